import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import type {
  DestinationsConfig,
  ImportConfig,
  RunsConfig,
  WebhooksConfig,
} from '../../src/common/config/app-config.js';
import type { Workspace } from '../support/campaign-fixtures.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** An app whose import runner polls often, on a fresh database (or on `sharedWith`'s) and storage. */
export function importApp(imports: Partial<ImportConfig> = {}, sharedWith?: TestApp): Promise<TestApp> {
  const storageDir = sharedWith?.config.storageDir ?? mkdtempSync(join(tmpdir(), 'cs-imports-'));
  return createTestApp({
    sharedWith,
    config: {
      rateLimitPerMinute: 100_000,
      authAttemptsPerMinute: 100_000,
      storageDir,
      imports: { maxBytes: 256 * 1024 * 1024, runner: true, leaseMs: 30_000, chunkRows: 1000, pollMs: 50, ...imports },
    },
  });
}

export function upload(t: TestApp, w: Workspace, csv: string, fileName?: string): Promise<Response> {
  const req = t.http
    .post('/api/customers/imports')
    .set('Authorization', w.manager.token)
    .set('Content-Type', 'text/csv');
  if (fileName) req.query({ file_name: fileName });
  return req.send(csv);
}

export interface Job {
  id: number;
  status: string;
  file_name: string | null;
  total_rows: number | null;
  processed_rows: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  error: string | null;
}

export async function jobOf(t: TestApp, w: Workspace, id: number): Promise<Job> {
  const res = await t.http.get(`/api/customers/imports/${id}`).set('Authorization', w.manager.token);
  if (res.status !== 200) throw new Error(`job ${id}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Polls the job until `done` says so (or the time runs out). */
export async function waitForJob(
  t: TestApp,
  w: Workspace,
  id: number,
  done: (job: Job) => boolean = (job) => ['completed', 'failed', 'cancelled'].includes(job.status),
  timeoutMs = 60_000,
): Promise<Job> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = await jobOf(t, w, id);
    if (done(job)) return job;
    if (Date.now() > until) throw new Error(`job ${id} did not get there: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every error of a job, in file order. */
export async function jobErrors(
  t: TestApp,
  w: Workspace,
  id: number,
): Promise<{ line: number; field: string; message: string }[]> {
  const all = [];
  let cursor: string | undefined;
  do {
    const res = await t.http
      .get(`/api/customers/imports/${id}/errors`)
      .query({ limit: 100, ...(cursor ? { cursor } : {}) })
      .set('Authorization', w.manager.token);
    if (res.status !== 200) throw new Error(`errors of ${id}: ${res.status} ${JSON.stringify(res.body)}`);
    all.push(...res.body.data);
    cursor = res.body.meta.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

/**
 * A file of `rows` rows: every tenth (from the 4th) has a bad e-mail, every tenth (from the 8th)
 * updates a customer `upd-<n>` made beforehand (see `preexisting`), the others create `new-<n>`.
 */
export function mixedFile(
  rows: number,
  prefix: string,
): { csv: string; expected: Omit<Job, 'id' | 'status' | 'file_name' | 'error'> } {
  const lines = ['external_id,first_name,email'];
  for (let n = 0; n < rows; n++) {
    if (n % 10 === 3) lines.push(`${prefix}-bad-${n},Bad,not-an-e-mail`);
    else if (n % 10 === 7) lines.push(`${prefix}-upd-${n},Changed,upd${n}@example.com`);
    else lines.push(`${prefix}-new-${n},New,new${n}@example.com`);
  }
  const tenth = Math.floor(rows / 10) + (rows % 10 > 3 ? 1 : 0);
  const updates = Math.floor(rows / 10) + (rows % 10 > 7 ? 1 : 0);
  return {
    csv: lines.join('\n') + '\n',
    expected: {
      total_rows: rows,
      processed_rows: rows,
      created: rows - tenth - updates,
      updated: updates,
      unchanged: 0,
      failed: tenth,
    },
  };
}

/** The batch items that make the customers `mixedFile` updates. */
export function preexisting(rows: number, prefix: string): { external_id: string; first_name: string }[] {
  const items = [];
  for (let n = 7; n < rows; n += 10) items.push({ external_id: `${prefix}-upd-${n}`, first_name: 'Before' });
  return items;
}

const children = new Set<ChildProcess>();

/**
 * A child process running another instance of the service on `t`'s database and storage. It exits
 * when this process is gone or closes its stdin (`child.stdin.end()`); killChildInstances ends
 * those a test left running (call it in afterEach).
 */
export async function childInstance(
  t: TestApp,
  imports: Partial<ImportConfig>,
  webhooks: Partial<WebhooksConfig> = {},
  more: { runs?: Partial<RunsConfig>; destinations?: Partial<DestinationsConfig> } = {},
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['-r', join(__dirname, 'swc-register.js'), join(__dirname, 'child-instance.ts')],
    {
      env: {
        ...process.env,
        DATABASE_URL: t.config.database.kind === 'mysql' ? t.config.database.url : '',
        DATA_DIR: t.config.dataDir,
        STORAGE_DIR: t.config.storageDir,
        JWT_SECRET: t.config.jwtSecret,
        LOG_LEVEL: process.env.CHILD_LOG_LEVEL ?? 'silent',
        CHILD_IMPORTS: JSON.stringify(imports),
        CHILD_WEBHOOKS: JSON.stringify(webhooks),
        CHILD_RUNS: JSON.stringify(more.runs ?? {}),
        CHILD_DESTINATIONS: JSON.stringify(more.destinations ?? {}),
        WEBHOOK_ALLOWED_HOSTS: t.config.webhooks.allowedHosts,
      },
      // stdin: the child exits when this pipe closes, so it never outlives this process.
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  children.add(child);
  child.once('exit', () => children.delete(child));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the child instance exited with ${code}`)));
  });
  return child;
}

/** Kills every child instance still running (a test that failed before killing its own). */
export async function killChildInstances(): Promise<void> {
  await Promise.all(
    [...children].map((child) => {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      return exited;
    }),
  );
}
