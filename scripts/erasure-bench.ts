import { parseArgs } from 'node:util';
import { call, startService, type ServiceUnderTest } from './perf/service-under-test.js';

/**
 * `npm run bench:erasure` (docs/customer-lifecycle.md), on a fresh MariaDB database with the built
 * service: one customer with --entries activity-log entries and as many change-feed events (seeded
 * by SQL, numbered by the service before the clock starts), erased through the API. Prints the
 * seconds until every trace is scrubbed and until the job completes (which waits the settle time
 * after the request), and the latency of another client's PUTs to another customer before and
 * during the erasure (the job's batches must not hold them up). A merge of --sources customers
 * into one is timed too (median of --merges runs).
 */
const { values: args } = parseArgs({
  options: {
    entries: { type: 'string', default: '100000' },
    sources: { type: 'string', default: '50' },
    merges: { type: 'string', default: '10' },
  },
});
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const ROWS_PER_INSERT = 2000;

const round = (n: number) => Math.round(n * 10) / 10;
const percentile = (values: number[], p: number) =>
  round([...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? 0);

async function seedHistory(service: ServiceUnderTest, tenantId: number, customerId: number, n: number): Promise<void> {
  const now = new Date();
  for (let start = 0; start < n; start += ROWS_PER_INSERT) {
    const count = Math.min(ROWS_PER_INSERT, n - start);
    const entries: unknown[] = [];
    const events: unknown[] = [];
    for (let i = start; i < start + count; i++) {
      const properties = JSON.stringify({ attributes: { last_name: `Lovelace ${i}` }, old: { last_name: `L ${i}` } });
      entries.push('updated', 'Customer', customerId, 'updated', properties, `seed-${i}`, tenantId, now, now);
      const data = JSON.stringify({ id: customerId, email: 'ada@example.com', last_name: `Lovelace ${i}` });
      events.push(tenantId, 'customer.updated', 'customer', customerId, data, '["last_name"]', `seed-${i}`, Date.now());
    }
    await service.sql(
      `INSERT INTO activity_log (log_name, description, subject_type, subject_id, event, properties, batch_uuid,
         tenant_id, created_at, updated_at)
       VALUES ${Array(count).fill("('default', ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(', ')}`,
      entries,
    );
    await service.sql(
      `INSERT INTO events (tenant_id, type, resource, resource_id, data, changes, request_id, occurred_at)
       VALUES ${Array(count).fill('(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      events,
    );
  }
  // The service numbers them in the background: wait, so that the erasure is timed alone.
  for (;;) {
    const [rows] = (await service.sql('SELECT COUNT(*) AS n FROM events WHERE sequence IS NULL')) as [{ n: number }[]];
    if (Number(rows[0].n) === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** PUTs to one customer, one after the other, until `stop()`: their latencies in ms. */
function writer(service: ServiceUnderTest, customerId: number): { stop: () => Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const t0 = performance.now();
      const res = await fetch(`${service.base}/customers/${customerId}`, {
        method: 'PUT',
        headers: { authorization: service.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ first_name: `Writer ${i}` }),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`PUT: ${res.status}`);
      latencies.push(performance.now() - t0);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return latencies;
    },
  };
}

const summary = (latencies: number[]) => ({
  puts: latencies.length,
  p50_ms: percentile(latencies, 0.5),
  p99_ms: percentile(latencies, 0.99),
  max_ms: round(Math.max(...latencies)),
});

async function timeMerges(service: ServiceUnderTest, sources: number, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const items = Array.from({ length: sources + 1 }, (_, i) => ({
      external_id: i === 0 ? null : `merge-${run}-${i}`,
      first_name: i === 0 ? 'Ada' : `Source ${i}`,
      email: i === 0 ? null : `source-${run}-${i}@example.com`,
      phone: i % 3 === 0 ? '+31 20 123 4567' : null,
      attributes: JSON.stringify({ tier: i % 2 ? 'gold' : 'silver', [`k${i}`]: i }),
    }));
    const batch = await call<{ id: number }[]>(service, 'POST', '/customers/batch', { items });
    const [survivor, ...from] = batch.map((result) => result.id);
    const t0 = performance.now();
    await call(service, 'POST', `/customers/${survivor}/merge`, { from });
    times.push(round(performance.now() - t0));
  }
  return times;
}

async function main(): Promise<void> {
  const entries = Number(args.entries);
  const service = await startService({ server: SERVER });
  try {
    const me = await call<{ tenant_id: number }>(service, 'GET', '/user');
    const customer = await call<{ id: number }>(service, 'POST', '/customers', {
      email: 'ada@example.com',
      first_name: 'Ada',
      external_id: 'crm-ada',
    });
    const other = await call<{ id: number }>(service, 'POST', '/customers', { first_name: 'Writer' });
    let t0 = performance.now();
    await seedHistory(service, me.tenant_id, customer.id, entries);
    console.log(`seeded ${entries} entries and ${entries} events in ${round((performance.now() - t0) / 1000)} s`);

    const before = writer(service, other.id);
    await new Promise((r) => setTimeout(r, 5000));
    const idle = await before.stop();

    const during = writer(service, other.id);
    t0 = performance.now();
    const job = await call<{ id: number }>(service, 'POST', `/customers/${customer.id}/erase`);
    let scrubbed = 0;
    let state: Record<string, number | string> = {};
    for (;;) {
      state = await call(service, 'GET', `/customers/erasures/${job.id}`);
      if (!scrubbed && Number(state.activity_entries) >= entries && Number(state.events) >= entries) {
        scrubbed = performance.now() - t0;
      }
      if (state.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const completed = performance.now() - t0;
    const busy = await during.stop();
    console.log(JSON.stringify(state));
    console.table({
      erasure: { scrubbed_s: round(scrubbed / 1000), completed_s: round(completed / 1000) },
    });
    console.table({ 'PUT, before': summary(idle), 'PUT, during the erasure': summary(busy) });

    const merges = await timeMerges(service, Number(args.sources), Number(args.merges));
    console.log(`merge of ${args.sources} sources, ms: ${merges.join(', ')}; median ${percentile(merges, 0.5)}`);
  } finally {
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
