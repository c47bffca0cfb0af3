import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { claimDue } from '../src/common/jobs/job-claims.js';
import { JobRunner } from '../src/common/jobs/job-runner.js';
import { Database } from '../src/common/persistence/database.js';
import type { CustomerImport } from '../src/modules/customer/entities/customer-import.entity.js';
import { IMPORT_QUEUE, ImportJobs } from '../src/modules/customer/imports/import-jobs.js';
import {
  childInstance,
  importApp,
  killChildInstances,
  mixedFile,
  preexisting,
  upload,
} from './imports-support/imports.js';
import { login } from './support/auth.js';
import { dataOf, newWorkspace, type Workspace } from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';

const ROWS = 4000;
const CHUNK = 50;

/**
 * Import jobs on several instances over one database: a claim is won by one instance, a job runs
 * on one instance at a time, and a job whose instance stops (gracefully, or killed) is resumed by
 * another with exactly the counts of an uninterrupted run. Job state is read from the database:
 * passport's strategies are process-wide, so the HTTP API of this process is only used while
 * every app created so far is still open.
 */
describe('customer import jobs across instances', () => {
  let a: TestApp;
  let w: Workspace;
  let db: Database;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    a = await importApp({ runner: false });
    w = await newWorkspace(a, await login(a));
    db = a.app.get(Database);
  });
  afterEach(killChildInstances);
  afterAll(async () => {
    for (const app of apps.reverse()) await app.app.close();
    await a.close();
  });

  /** The import's row, with its job's lease (none once the job has ended). */
  const row = async (id: number): Promise<ImportWithLease> => {
    const [job] = await db.query<{ lease_owner: string | null; lease_expires_at: number | string | null }>(
      'SELECT lease_owner, lease_expires_at FROM jobs WHERE queue = ? AND subject_id = ?',
      [IMPORT_QUEUE, id],
    );
    return {
      ...(await a.app.get(ImportJobs).read(id))!,
      lease_owner: job?.lease_owner ?? null,
      lease_expires_at: job?.lease_expires_at == null ? null : Number(job.lease_expires_at),
    };
  };
  const until = async (id: number, done: (job: ImportWithLease) => boolean, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await row(id);
      if (done(job)) return job;
      if (Date.now() > deadline) throw new Error(`job ${id} did not get there: ${JSON.stringify(job)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const count = async (sql: string, params: (string | number)[]) =>
    Number((await db.query<{ n: number | string }>(sql, params))[0].n);

  /** A queued job of `ROWS` rows (customers it updates made first); answers its id and expected end. */
  async function queue(prefix: string) {
    for (let i = 0, items = preexisting(ROWS, prefix); i < items.length; i += 1000) {
      await dataOf(
        a.http
          .post('/api/customers/batch')
          .set('Authorization', w.manager.token)
          .send({ items: items.slice(i, i + 1000) }),
      );
    }
    const { csv, expected } = mixedFile(ROWS, prefix);
    const res = await upload(a, w, csv);
    expect(res.status).toBe(202);
    return { id: res.body.data.id as number, expected, prefix };
  }

  /** The job ended with the counts of an uninterrupted run, each row applied once. */
  async function expectExact(job: { id: number; expected: ReturnType<typeof mixedFile>['expected']; prefix: string }) {
    // Ended, and its job settled: the lease goes with the job a moment after the import's last step.
    const ended = await until(job.id, (j) => j.status !== 'queued' && j.status !== 'running' && j.lease_owner === null);
    expect({ ...ended }).toMatchObject({ status: 'completed', ...job.expected, lease_owner: null });
    expect(
      await count('SELECT COUNT(*) AS n FROM customers WHERE tenant_id = ? AND external_id LIKE ?', [
        w.tenantId,
        `${job.prefix}-new-%`,
      ]),
    ).toBe(job.expected.created);
    expect(
      await count(
        "SELECT COUNT(*) AS n FROM customers WHERE tenant_id = ? AND external_id LIKE ? AND first_name = 'Changed'",
        [w.tenantId, `${job.prefix}-upd-%`],
      ),
    ).toBe(job.expected.updated);
    expect(await count('SELECT COUNT(*) AS n FROM customer_import_errors WHERE import_id = ?', [job.id])).toBe(
      job.expected.failed,
    );
    expect(
      await count('SELECT COUNT(DISTINCT line) AS n FROM customer_import_errors WHERE import_id = ?', [job.id]),
    ).toBe(job.expected.failed);
  }

  it('lets one instance win a claim', async () => {
    const other = await importApp({ runner: false }, a);
    apps.push(other);
    const { id } = await queue('claim');
    const claim = (app: TestApp, owner: string) =>
      claimDue(app.app.get(Database), {
        queue: IMPORT_QUEUE,
        lane: '',
        max: 1,
        owner,
        expires: Date.now() + 30_000,
        skip: [],
      });
    const claims = await Promise.all([claim(a, 'instance-a'), claim(other, 'instance-b')]);
    expect(claims.flatMap((won) => won.ids)).toHaveLength(1);
    const owner = claims[0].ids.length ? 'instance-a' : 'instance-b';
    expect((await row(id)).lease_owner).toBe(owner);
    // Nobody else gets it while the lease holds.
    expect((await claim(a, 'instance-c')).ids).toEqual([]);
    // Given back, as a stopping instance gives it back.
    await db.run('UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, run_at = ? WHERE queue = ?', [
      Date.now(),
      IMPORT_QUEUE,
    ]);
  });

  it('shares the queue between two instances, each job on one at a time', async () => {
    const jobs = [await queue('two-1'), await queue('two-2'), await queue('two-3')];
    const first = await importApp({ chunkRows: CHUNK }, a);
    const second = await importApp({ chunkRows: CHUNK }, a);
    apps.push(first, second);
    const owners = new Set<string>();
    for (const job of jobs) {
      const running = await until(job.id, (j) => j.lease_owner !== null || j.status === 'completed');
      if (running.lease_owner) owners.add(running.lease_owner);
    }
    // The claim test's job (released) is in the queue too.
    for (const job of jobs) await expectExact(job);
    expect([...owners].every((o) => [first, second].some((app) => app.app.get(JobRunner).owner === o))).toBe(true);
  });

  it('resumes a job whose instance stops gracefully, with the counts of an uninterrupted run', async () => {
    const [first, second] = apps.slice(-2);
    const job = await queue('graceful');
    const mid = await until(job.id, (j) => j.processed_rows >= 10 * CHUNK);
    const holder = [first, second].find((app) => app.app.get(JobRunner).owner === mid.lease_owner)!;
    const survivor = holder === first ? second : first;
    await holder.app.get(JobRunner).stop();
    const given = await row(job.id);
    expect(given.status === 'completed' || given.lease_owner !== holder.app.get(JobRunner).owner).toBe(true);
    if (given.status !== 'completed') {
      expect(given.processed_rows % CHUNK).toBe(0);
      expect(given.processed_rows).toBeLessThan(ROWS);
    }
    await expectExact(job);
    expect(survivor).toBeDefined();
  });

  it('a child instance ends when the process that started it goes away (its stdin closes)', async () => {
    const child = await childInstance(a, { runner: false });
    const exited = once(child, 'exit', { signal: AbortSignal.timeout(10_000) });
    child.stdin!.end();
    expect((await exited)[0]).toBe(0);
  });

  it('resumes a job whose instance was killed (SIGKILL) once its lease has run out', async () => {
    // The in-process runners stand by; the job starts on a child process.
    for (const app of apps) await app.app.get(JobRunner).stop();
    const child: ChildProcess = await childInstance(a, { chunkRows: CHUNK, leaseMs: 1500, pollMs: 20 });
    const job = await queue('killed');
    const mid = await until(job.id, (j) => j.processed_rows >= 10 * CHUNK);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const dead = await row(job.id);
    expect(dead).toMatchObject({ status: 'running', lease_owner: mid.lease_owner });
    expect(dead.processed_rows).toBeLessThan(ROWS);
    expect(dead.processed_rows % CHUNK).toBe(0);
    // Another instance takes it over only once the lease has run out, and finishes it.
    const taker = await importApp({ chunkRows: CHUNK }, a);
    apps.push(taker);
    const resumed = await until(
      job.id,
      (j) => j.lease_owner === taker.app.get(JobRunner).owner || j.status === 'completed',
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Number(dead.lease_expires_at));
    expect(resumed.processed_rows).toBeGreaterThanOrEqual(dead.processed_rows);
    await expectExact(job);
    // Two processes start in it (the child compiles the service's sources as it loads them): on a
    // loaded CI machine that alone once took most of the default minute.
  }, 180_000);
});

type ImportWithLease = CustomerImport & { lease_owner: string | null; lease_expires_at: number | null };
