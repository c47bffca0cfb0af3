import { parseArgs } from 'node:util';
import { call, startService } from './perf/service-under-test.js';

/**
 * `npm run bench:feed`: the change feed's read cost at size, on a fresh MariaDB database with the
 * built service. Seeds --events events of one tenant straight into the table (a customer's answer
 * as data, numbered 1..N, the way the sequencer leaves them, in doubling INSERT ... SELECTs), then
 * times `GET /api/events?limit=1000` at the start, the middle and the end of the feed, a filtered
 * page (`types`) and one record's history, each --repeats times (first and median, milliseconds).
 * Needs MariaDB (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306) and `npm run build`.
 */
const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '10000000' },
    repeats: { type: 'string', default: '9' },
  },
});
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const TOTAL = Number(args.events);
const REPEATS = Number(args.repeats);

const cursorAt = (sequence: number) => Buffer.from(`seq:${sequence}`).toString('base64url');

async function main(): Promise<void> {
  const service = await startService({ server: SERVER });
  try {
    const [[tenant]] = (await service.sql('SELECT id FROM tenants ORDER BY id LIMIT 1')) as [{ id: number }[]];
    const tenantId = Number(tenant.id);
    const t0 = performance.now();
    const data = JSON.stringify({
      id: 0,
      tenant_id: tenantId,
      external_id: 'crm-000000',
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      phone: '+31 20 123 4567',
      attributes: '{"tier":"gold"}',
      is_active: true,
      created_at: '2026-11-26T09:00:00.000Z',
      updated_at: '2026-11-26T09:00:00.000Z',
    });
    const now = Date.now();
    const seed = Math.min(TOTAL, 1000);
    const values = Array.from({ length: seed }, (_, i) => i + 1);
    await service.sql(
      `INSERT INTO events (tenant_id, sequence, type, resource, resource_id, data, changes, causer_id, request_id, occurred_at)
       VALUES ${values.map(() => "(?, ?, 'customer.created', 'customer', ?, ?, '[]', 1, 'bench', ?)").join(', ')}`,
      values.flatMap((n) => [tenantId, n, n, data, now - (TOTAL - n)]),
    );
    for (let have = seed; have < TOTAL;) {
      const add = Math.min(have, TOTAL - have);
      await service.sql(
        `INSERT INTO events (tenant_id, sequence, type, resource, resource_id, data, changes, causer_id, request_id, occurred_at)
         SELECT tenant_id, sequence + ?, IF(MOD(sequence, 100) = 0, 'customer.deleted', type), resource, resource_id + ?,
                data, changes, causer_id, request_id, occurred_at + ?
           FROM events WHERE tenant_id = ? AND sequence <= ?`,
        [have, have, have, tenantId, add],
      );
      have += add;
      process.stdout.write(`seeded ${have} events\n`);
    }
    await service.sql(
      'INSERT INTO event_counters (tenant_id, last_sequence) VALUES (?, ?) ON DUPLICATE KEY UPDATE last_sequence = ?',
      [tenantId, TOTAL, TOTAL],
    );
    await service.sql('ANALYZE TABLE events');
    const seeding = Math.round((performance.now() - t0) / 100) / 10;

    const time = async (label: string, path: string) => {
      const ms: number[] = [];
      let count = 0;
      for (let i = 0; i < REPEATS; i++) {
        const started = performance.now();
        const events = await call<unknown[]>(service, 'GET', path);
        ms.push(performance.now() - started);
        count = events.length;
      }
      const sorted = [...ms].sort((a, b) => a - b);
      const result = {
        page: label,
        events: count,
        firstMs: Math.round(ms[0] * 10) / 10,
        medianMs: Math.round(sorted[Math.floor(sorted.length / 2)] * 10) / 10,
      };
      console.log(JSON.stringify(result));
      return result;
    };
    const results = [
      await time('first page', '/events?limit=1000'),
      await time('middle', `/events?limit=1000&cursor=${cursorAt(Math.floor(TOTAL / 2))}`),
      await time('last full page', `/events?limit=1000&cursor=${cursorAt(TOTAL - 1000)}`),
      await time(
        'types filter (1 in 100)',
        `/events?limit=1000&types=customer.deleted&cursor=${cursorAt(Math.floor(TOTAL / 2))}`,
      ),
      await time('one record', `/events?limit=1000&resource=customer&resource_id=${Math.floor(TOTAL / 3)}`),
    ];
    console.log(JSON.stringify({ events: TOTAL, seedingSeconds: seeding }));
    console.table(results);
  } finally {
    await service.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
