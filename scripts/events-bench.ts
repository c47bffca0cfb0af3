import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { call, seedCustomersBySql, startService, type ServiceUnderTest } from './perf/service-under-test.js';

/**
 * `npm run bench:events` (docs/customer-events.md): customer events on MariaDB, through HTTP
 * against the built service in its own process (scripts/perf/service-under-test.ts):
 *
 * 1. --customers customers (SQL), then --events tracked events kept, spread over the --days before
 *    now in time order (SQL, the table's secondary indexes built after the rows, as a restore
 *    would), ten event names (purchase 10 %, page_view 40 %, login 15 %, ...);
 * 2. ingest: --ingest more events through POST /api/track, 1,000 a call, --in-flight calls open,
 *    message ids random UUIDs (--message-ids ordered: time-ordered ones), target 10,000 a second;
 * 3. reads of GET /api/customers/{id} idle and during ingest (autocannon): target 0.7 of idle;
 * 4. `performed` audiences (with and without a `where`; the last 30 days, and every kept event):
 *    count (target 1 s) and first page of members (target 100 ms); `last_performed` likewise;
 * 5. a customer's timeline and events list, first page (target 50 ms).
 *
 * Prints each check's first call and the median of --runs; exits 1 when a target is missed.
 * Needs MariaDB (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306) and `npm run build`.
 */
const { values: args } = parseArgs({
  options: {
    customers: { type: 'string', default: '1000000' },
    events: { type: 'string', default: '10000000' },
    ingest: { type: 'string', default: '300000' },
    'in-flight': { type: 'string', default: '4' },
    days: { type: 'string', default: '395' },
    runs: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
    'message-ids': { type: 'string', default: 'random' },
    'skip-ingest': { type: 'boolean', default: false },
    /** Leaves the database in place at the end (its name is printed), to look into its plans. */
    'keep-database': { type: 'boolean', default: false },
  },
});
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const CUSTOMERS = Number(args.customers);
const EVENTS = Number(args.events);
const INGEST = Number(args.ingest);
const IN_FLIGHT = Number(args['in-flight']);
const DAYS = Number(args.days);
const RUNS = Number(args.runs);
const DAY = 86_400_000;
const BATCH = 1000;
const PRELOAD_CHUNK = 500_000;

/** The names and their shares (percent) of the events. */
const NAMES: [string, number][] = [
  ['purchase', 10],
  ['page_view', 40],
  ['login', 15],
  ['add_to_cart', 5],
  ['search', 5],
  ['email_open', 5],
  ['email_click', 5],
  ['signup', 5],
  ['refund', 5],
  ['support_ticket', 5],
];

const log = (line: string) => process.stdout.write(`${line}\n`);
const ms = (value: number) => `${value.toFixed(1)} ms`;
const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

interface Row {
  check: string;
  first: number;
  median: number;
  target?: number;
  note?: string;
}
const rows: Row[] = [];
let failed = false;

function record(row: Row): void {
  rows.push(row);
  const over = row.target !== undefined && row.median > row.target;
  if (over) failed = true;
  const verdict = row.target === undefined ? '' : over ? ' (OVER)' : ` (within ${row.target} ms)`;
  log(`${row.check}: first ${ms(row.first)}, median ${ms(row.median)}${verdict}${row.note ? `; ${row.note}` : ''}`);
}

async function timed<T>(service: ServiceUnderTest, method: string, path: string, body?: unknown) {
  const started = performance.now();
  const res = await fetch(service.base + path, {
    method,
    headers: { authorization: service.authorization, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: T; meta?: Record<string, unknown> };
  const elapsed = performance.now() - started;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json).slice(0, 500)}`);
  return { elapsed, json };
}

async function repeat<T>(service: ServiceUnderTest, check: string, target: number, path: string): Promise<T> {
  const samples: number[] = [];
  let data: T | undefined;
  for (let run = 0; run < RUNS; run++) {
    const { elapsed, json } = await timed<T>(service, 'GET', path);
    samples.push(elapsed);
    data = json.data;
  }
  record({ check, first: samples[0], median: median(samples.slice(1)), target });
  return data!;
}

/** The name of an event by a number from 0 to 99, as the shares say. */
function nameOf(bucket: number): string {
  let sum = 0;
  for (const [name, share] of NAMES) {
    sum += share;
    if (bucket < sum) return name;
  }
  return NAMES[NAMES.length - 1][0];
}

/**
 * The kept events, inserted by SQL in time order (one statement per PRELOAD_CHUNK), the table's
 * secondary indexes dropped before and built again after (InnoDB builds an index from sorted rows
 * far faster than it takes the same entries one by one); then the names' counts and newest timestamps.
 */
async function preload(service: ServiceUnderTest, tenantId: number, firstCustomer: number, now: number) {
  const t0 = performance.now();
  for (const [name] of NAMES) {
    await service.sql(
      'INSERT INTO customer_event_names (tenant_id, name, name_key, count, created_at, updated_at) VALUES (?, ?, ?, 0, UTC_TIMESTAMP(), UTC_TIMESTAMP())',
      [tenantId, name, name],
    );
  }
  const [names] = (await service.sql('SELECT id, name FROM customer_event_names WHERE tenant_id = ?', [tenantId])) as [
    { id: number; name: string }[],
  ];
  const idOf = new Map(names.map((n) => [n.name, Number(n.id)]));
  const [indexes] = (await service.sql(
    `SELECT INDEX_NAME AS name, MIN(NON_UNIQUE) AS non_unique, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS columns
       FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'customer_events' AND INDEX_NAME NOT IN ('PRIMARY', 'customer_events_id_index')
      GROUP BY INDEX_NAME`,
  )) as [{ name: string; non_unique: number; columns: string }[]];
  for (const index of indexes) await service.sql(`ALTER TABLE customer_events DROP INDEX \`${index.name}\``);
  // One CASE over a bucket of 100, as nameOf reads it.
  let cases = '';
  let sum = 0;
  for (const [name, share] of NAMES) {
    sum += share;
    cases += ` WHEN b < ${sum} THEN ${idOf.get(name)}`;
  }
  const span = DAYS * DAY - 2 * 3600_000;
  const start = now - DAYS * DAY + 3600_000;
  const purchase = idOf.get('purchase')!;
  const pageView = idOf.get('page_view')!;
  for (let from = 1; from <= EVENTS; from += PRELOAD_CHUNK) {
    const to = Math.min(EVENTS, from + PRELOAD_CHUNK - 1);
    await service.sql(
      `INSERT INTO customer_events (tenant_id, name_id, occurred_at, customer_id, message_id, properties, created_at, updated_at)
       SELECT ?, n, at, c + ?, CONCAT('pre-', seq),
              CASE n WHEN ? THEN CONCAT('{"amount":', CRC32(seq * 7) % 500, ',"currency":"EUR"}')
                     WHEN ? THEN CONCAT('{"path":"/p/', seq % 100, '"}') ELSE NULL END,
              FROM_UNIXTIME(at DIV 1000), FROM_UNIXTIME(at DIV 1000)
         FROM (SELECT seq, CASE${cases} END AS n, ? + seq * ? DIV ? AS at, CRC32(seq) % ? AS c
                 FROM (SELECT seq, CRC32(seq * 3) % 100 AS b FROM seq_${from}_to_${to}) s) e`,
      [tenantId, firstCustomer, purchase, pageView, start, span, EVENTS, CUSTOMERS],
    );
    log(`  ${to.toLocaleString('en-US')} events kept (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  for (const index of indexes) {
    const columns = index.columns
      .split(',')
      .map((c) => `\`${c}\``)
      .join(', ');
    const started = performance.now();
    await service.sql(
      `ALTER TABLE customer_events ADD ${Number(index.non_unique) ? 'INDEX' : 'UNIQUE INDEX'} \`${index.name}\` (${columns})`,
    );
    log(`  index ${index.name} built (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  await service.sql(
    `UPDATE customer_event_names n SET
        count = (SELECT COUNT(*) FROM customer_events e WHERE e.tenant_id = n.tenant_id AND e.name_id = n.id),
        last_seen_at = (SELECT MAX(occurred_at) FROM customer_events e WHERE e.tenant_id = n.tenant_id AND e.name_id = n.id)
      WHERE n.tenant_id = ?`,
    [tenantId],
  );
  await service.sql('ANALYZE TABLE customer_events, customer_event_names');
  log(`${EVENTS.toLocaleString('en-US')} events kept in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

/** One call's events: random customers (one in twenty by external id), names by their shares, now. */
function batchOf(size: number, firstCustomer: number, sequence: { next: number }): unknown[] {
  const events = [];
  for (let i = 0; i < size; i++) {
    const n = Math.floor(Math.random() * CUSTOMERS);
    const name = nameOf(Math.floor(Math.random() * 100));
    const seq = sequence.next++;
    events.push({
      message_id: args['message-ids'] === 'ordered' ? `live-${Date.now()}-${seq}` : randomUUID(),
      ...(i % 20 === 0 ? { external_id: `sql-${n}` } : { customer_id: firstCustomer + n }),
      event: name,
      properties:
        name === 'purchase'
          ? { amount: Math.floor(Math.random() * 500), currency: 'EUR' }
          : { path: `/p/${seq % 100}`, referrer: 'https://example.com/' },
    });
  }
  return events;
}

/** `total` events through POST /api/track, IN_FLIGHT calls open; events a second (overall and in the last half). */
async function ingest(service: ServiceUnderTest, total: number, firstCustomer: number, sequence: { next: number }) {
  let sent = 0;
  let done = 0;
  let halfAt = 0;
  const t0 = performance.now();
  const cpu0 = service.cpuSeconds();
  const worker = async () => {
    while (sent < total) {
      const size = Math.min(BATCH, total - sent);
      sent += size;
      const answer = await call<unknown[]>(service, 'POST', '/track', {
        events: batchOf(size, firstCustomer, sequence),
      });
      const failures = (answer as { status: string; errors?: unknown }[]).filter((r) => r.status === 'failed');
      if (failures.length) throw new Error(`failed items: ${JSON.stringify(failures.slice(0, 3))}`);
      done += size;
      if (!halfAt && done >= total / 2) halfAt = performance.now();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const end = performance.now();
  return {
    perSecond: total / ((end - t0) / 1000),
    lastHalf: total / 2 / ((end - halfAt) / 1000),
    seconds: (end - t0) / 1000,
    cpuSeconds: service.cpuSeconds() - cpu0,
  };
}

async function readRate(service: ServiceUnderTest, path: string, seconds: number): Promise<number> {
  const result = await autocannon({
    url: service.base + path,
    connections: Number(args.connections),
    duration: seconds,
    headers: { authorization: service.authorization },
  });
  if (result.non2xx) throw new Error(`${path}: ${result.non2xx} non-2xx answers`);
  return result['2xx'] / result.duration;
}

const behaviour = (operator: string, node: object) => ({
  rule_type: 'behaviour',
  field: 'event',
  operator,
  rule_value: JSON.stringify(node),
});

async function main(): Promise<void> {
  const service = await startService({ server: SERVER });
  try {
    const [[{ tenant_id: tenantId }]] = (await service.sql('SELECT tenant_id FROM users LIMIT 1')) as [
      { tenant_id: number }[],
    ];
    const t0 = performance.now();
    await seedCustomersBySql(service, CUSTOMERS);
    const [[{ first }]] = (await service.sql('SELECT MIN(id) AS first FROM customers WHERE tenant_id = ?', [
      tenantId,
    ])) as [{ first: number }[]];
    log(`${CUSTOMERS.toLocaleString('en-US')} customers in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const now = Date.now();
    await preload(service, tenantId, Number(first), now);
    const sequence = { next: 0 };
    const firstCustomer = Number(first);

    // Ingest, alone; then the reads of another route idle and during more ingest.
    if (!args['skip-ingest']) {
      await ingest(service, Math.min(20_000, INGEST), firstCustomer, sequence); // warm-up
      const alone = await ingest(service, INGEST, firstCustomer, sequence);
      const rate = `${Math.round(alone.perSecond).toLocaleString('en-US')} events/s`;
      const cpu = `${((alone.cpuSeconds * 1000) / INGEST).toFixed(3)} ms of service CPU per event`;
      log(
        `ingest of ${INGEST.toLocaleString('en-US')} events through POST /api/track (${IN_FLIGHT} in flight, ` +
          `${args['message-ids']} message ids): ${rate}, last half ${Math.round(alone.lastHalf).toLocaleString('en-US')}/s, ${cpu}` +
          (alone.perSecond < 10_000 ? ' (UNDER 10,000/s)' : ' (target 10,000/s met)'),
      );
      if (alone.perSecond < 10_000) failed = true;
      const path = `/customers/${firstCustomer + Math.floor(CUSTOMERS / 2)}`;
      const seconds = Number(args.duration);
      const idle = await readRate(service, path, seconds);
      const during = ingest(service, INGEST, firstCustomer, sequence);
      await new Promise((r) => setTimeout(r, 2000));
      const busy = await readRate(service, path, seconds);
      const under = await during;
      const ratio = busy / idle;
      log(
        `GET /api/customers/{id}: ${Math.round(idle)} req/s idle, ${Math.round(busy)} req/s during ingest ` +
          `(${ratio.toFixed(2)} of idle${ratio < 0.7 ? ', UNDER 0.7' : ''}); ingest meanwhile ${Math.round(under.perSecond)} events/s`,
      );
      if (ratio < 0.7) failed = true;
    }
    const [[{ kept }]] = (await service.sql('SELECT COUNT(*) AS kept FROM customer_events')) as [{ kept: number }[]];
    log(
      `\n${Number(kept).toLocaleString('en-US')} events kept, ${CUSTOMERS.toLocaleString('en-US')} customers; runs per check: ${RUNS}\n`,
    );

    // Behaviour audiences: counts and first pages.
    const amount = [{ field: 'properties.amount', operator: 'gte', value: 100 }];
    const audiences: [string, object[]][] = [
      [
        'performed purchase ≥ 2 in 30 days, amount ≥ 100',
        [behaviour('performed', { event: 'purchase', min: 2, within_days: 30, where: amount })],
      ],
      ['performed purchase ≥ 2 in 30 days', [behaviour('performed', { event: 'purchase', min: 2, within_days: 30 })]],
      ['performed purchase ≥ 2, every kept event', [behaviour('performed', { event: 'purchase', min: 2 })]],
      [
        'performed purchase, every kept event, amount ≥ 100',
        [behaviour('performed', { event: 'purchase', where: amount })],
      ],
      ['last_performed login before 30 days', [behaviour('last_performed', { event: 'login', before_days: 30 })]],
    ];
    for (const [name, rules] of audiences) {
      const audience = await call<{ id: number }>(service, 'POST', '/audiences', { name, rules });
      const { count } = await repeat<{ count: number }>(
        service,
        `count: ${name}`,
        1000,
        `/audiences/${audience.id}/count`,
      );
      rows[rows.length - 1].note = `${count.toLocaleString('en-US')} members`;
      log(`  ${rows[rows.length - 1].note}`);
      await repeat(service, `first page of members: ${name}`, 100, `/audiences/${audience.id}/customers?limit=25`);
    }

    // A customer's timeline and events list: twenty customers, one call each (first: the first customer's).
    const samples: number[] = [];
    const lists: number[] = [];
    for (let i = 0; i < 20; i++) {
      const id = firstCustomer + Math.floor(Math.random() * CUSTOMERS);
      samples.push((await timed(service, 'GET', `/customers/${id}/timeline?limit=25`)).elapsed);
      lists.push((await timed(service, 'GET', `/customers/${id}/events?limit=25`)).elapsed);
    }
    record({
      check: 'timeline, first page (20 customers)',
      first: samples[0],
      median: median(samples.slice(1)),
      target: 50,
    });
    record({
      check: "a customer's events, first page (20 customers)",
      first: lists[0],
      median: median(lists.slice(1)),
      target: 50,
    });

    log('');
    console.table(
      rows.map((r) => ({
        check: r.check,
        'first ms': Number(r.first.toFixed(1)),
        'median ms': Number(r.median.toFixed(1)),
        'target ms': r.target ?? '',
        note: r.note ?? '',
      })),
    );
  } finally {
    await service.stop({ keepDatabase: args['keep-database'] });
    if (args['keep-database']) log(`the database ${service.database} is kept`);
  }
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
