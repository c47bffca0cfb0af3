import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import type { AppConfig } from '../src/common/config/app-config.js';
import { SuppressionList } from '../src/modules/customer/suppression/suppression-list.js';
import { call, setPlanLimits, startService, type ServiceUnderTest } from './perf/service-under-test.js';

/**
 * `npm run bench:bulk` (docs/bulk-data.md), on a fresh MariaDB database with the built service:
 * 1. --customers customers through POST /api/customers/batch, 1,000 per call, from one client
 *    keeping --in-flight calls open;
 * 2. a CSV of --rows rows (about 100 bytes a row) from upload to `completed`, into a second tenant
 *    whose suppression list holds --suppressions e-mail addresses of the file (evenly spread: those
 *    rows fail, as an erased person's would);
 * 3. GET /api/customers/export of the first tenant's customers (CSV).
 * `--limits` sets every plan limit of both tenants first.
 * For each: seconds, rows per second, the service's CPU seconds and its largest RSS (sampled every
 * 100 ms). The service runs with `--max-old-space-size=<--max-old-space>` and
 * `--max-semi-space-size=<--semi-space>` (0: V8's default), the flags docs/bulk-data.md recommends
 * for an instance that runs imports. Needs MariaDB (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306)
 * and `npm run build`.
 */
const { values: args } = parseArgs({
  options: {
    customers: { type: 'string', default: '1000000' },
    rows: { type: 'string', default: '1000000' },
    'in-flight': { type: 'string', default: '2' },
    suppressions: { type: 'string', default: '10000' },
    // V8 collects garbage lazily: without a cap the import's RSS climbs to ~350 MB on a live heap of ~40 MB.
    'max-old-space': { type: 'string', default: '160' },
    // A bulk write keeps a few MB alive per chunk: with V8's 16 MB semi-spaces each scavenge copies them.
    'semi-space': { type: 'string', default: '32' },
    /** Sets every plan limit of both tenants first (high enough never to be reached): counting under a limit. */
    limits: { type: 'boolean', default: false },
    /** Extra node flags for the service, e.g. `--node-flags='--cpu-prof --cpu-prof-dir=/tmp/prof'`. */
    'node-flags': { type: 'string', default: '' },
  },
});
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const BATCH = 1000;

interface Phase {
  phase: string;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  cpuSeconds: number;
  maxRssMb: number;
}

async function measure(
  service: ServiceUnderTest,
  phase: string,
  rows: number,
  work: () => Promise<void>,
): Promise<Phase> {
  let maxRss = service.rssMb();
  const sampler = setInterval(() => (maxRss = Math.max(maxRss, service.rssMb())), 100);
  const cpu0 = service.cpuSeconds();
  const t0 = performance.now();
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - t0) / 1000;
  maxRss = Math.max(maxRss, service.rssMb());
  const result = {
    phase,
    rows,
    seconds: round(seconds),
    rowsPerSecond: Math.round(rows / seconds),
    cpuSeconds: round(service.cpuSeconds() - cpu0),
    maxRssMb: Math.round(maxRss),
  };
  console.log(JSON.stringify(result));
  return result;
}

const round = (n: number) => Math.round(n * 10) / 10;

async function batches(service: ServiceUnderTest, total: number, inFlight: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const start = next;
      next += BATCH;
      if (start >= total) return;
      const items = [];
      for (let i = start; i < Math.min(start + BATCH, total); i++) {
        items.push({
          external_id: `crm-${i}`,
          first_name: `Ada${i % 97}`,
          last_name: 'Lovelace',
          email: `ada${i}@example.com`,
          phone: '+31 20 123 4567',
          attributes: `{"tier":"gold","n":${i}}`,
          is_active: i % 2 === 0,
        });
      }
      const res = await fetch(`${service.base}/customers/batch`, {
        method: 'POST',
        headers: { authorization: service.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ items }),
      });
      const body = (await res.json()) as { meta?: { created: number; failed: number } };
      if (!res.ok || body.meta?.failed)
        throw new Error(`batch at ${start}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

async function writeCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('external_id,first_name,last_name,email,phone,attributes,is_active\n');
  let buffer = '';
  for (let i = 0; i < rows; i++) {
    buffer += `imp-${i},Ada${i % 97},"Lovelace, ${i % 13}",imp${i}@example.com,+31 20 123 ${String(i % 10000).padStart(4, '0')},"{""tier"":""gold"",""n"":${i}}",${i % 2 ? 'true' : 'false'}\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
}

function uploadFile(service: ServiceUnderTest, file: string, tenantId: number): Promise<{ id: number }> {
  const url = new URL(`${service.base}/customers/imports?file_name=bench.csv`);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: service.authorization,
          'x-tenant-id': String(tenantId),
          'content-type': 'text/csv',
          'content-length': statSync(file).size,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          res.statusCode === 202
            ? resolve(JSON.parse(text).data)
            : reject(new Error(`upload: ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}

async function waitForImport(
  service: ServiceUnderTest,
  id: number,
  tenantId: number,
): Promise<Record<string, unknown>> {
  for (;;) {
    const res = await fetch(`${service.base}/customers/imports/${id}`, {
      headers: { authorization: service.authorization, 'x-tenant-id': String(tenantId) },
    });
    const job = ((await res.json()) as { data: Record<string, unknown> }).data;
    if (['completed', 'failed', 'cancelled'].includes(job.status as string)) return job;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function exportAll(service: ServiceUnderTest): Promise<number> {
  const res = await fetch(`${service.base}/customers/export`, { headers: { authorization: service.authorization } });
  if (!res.ok || !res.body) throw new Error(`export: ${res.status}`);
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  }
  return lines - 1;
}

/**
 * Puts `count` e-mail addresses of the import file (every rows/count-th row's) on the tenant's
 * suppression list, hashed as the service hashes them. Answers how many rows they suppress.
 */
async function suppress(service: ServiceUnderTest, tenantId: number, rows: number, count: number): Promise<number> {
  if (count === 0) return 0;
  const list = new SuppressionList({ suppressionKey: service.suppressionKey } as AppConfig);
  const step = Math.floor(rows / count);
  const now = new Date();
  for (let start = 0; start < count; start += 1000) {
    const values: unknown[] = [];
    const end = Math.min(start + 1000, count);
    for (let n = start; n < end; n++) {
      values.push(tenantId, 'email', list.hash(tenantId, 'email', `imp${n * step}@example.com`), now, now);
    }
    await service.sql(
      `INSERT INTO customer_suppressions (tenant_id, kind, value_hash, created_at, updated_at)
       VALUES ${Array(end - start)
         .fill('(?, ?, ?, ?, ?)')
         .join(', ')}`,
      values,
    );
  }
  await service.sql('UPDATE tenants SET suppressions_listed = ? WHERE id = ?', [count, tenantId]);
  console.log(`suppression list: ${count} e-mail addresses of the file`);
  return count;
}

async function main(): Promise<void> {
  const customers = Number(args.customers);
  const rows = Number(args.rows);
  const heap = Number(args['max-old-space']);
  const semiSpace = Number(args['semi-space']);
  const service = await startService({
    server: SERVER,
    nodeFlags: [
      ...(heap ? [`--max-old-space-size=${heap}`] : []),
      ...(semiSpace ? [`--max-semi-space-size=${semiSpace}`] : []),
      ...args['node-flags'].split(' ').filter(Boolean),
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-bulk-'));
  const results: Phase[] = [];
  try {
    if (args.limits) await setPlanLimits(service);
    results.push(
      await measure(service, `batch (${BATCH} per call, ${args['in-flight']} in flight)`, customers, () =>
        batches(service, customers, Number(args['in-flight'])),
      ),
    );

    const tenant = await call<{ id: number }>(service, 'POST', '/admin/tenants', {
      name: `Import bench ${Date.now()}`,
    });
    if (args.limits) await setPlanLimits(service, tenant.id);
    const suppressed = await suppress(service, tenant.id, rows, Number(args.suppressions));
    const file = join(dir, 'customers.csv');
    await writeCsv(file, rows);
    console.log(`csv: ${rows} rows, ${Math.round(statSync(file).size / 1e6)} MB`);
    let job: Record<string, unknown> = {};
    results.push(
      await measure(service, 'import (upload to completed)', rows, async () => {
        const queued = await uploadFile(service, file, tenant.id);
        job = await waitForImport(service, queued.id, tenant.id);
      }),
    );
    console.log(`import job: ${JSON.stringify(job)}`);
    if (job.status !== 'completed' || job.created !== rows - suppressed || job.failed !== suppressed) {
      throw new Error('the import did not create every row but the suppressed ones');
    }

    let exported = 0;
    results.push(
      await measure(service, 'export (CSV)', customers, async () => {
        exported = await exportAll(service);
      }),
    );
    if (exported !== customers) throw new Error(`exported ${exported} rows, expected ${customers}`);
    console.table(results);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
