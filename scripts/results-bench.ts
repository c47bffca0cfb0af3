import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { call, seedCampaign, startService, type ServiceUnderTest } from './perf/service-under-test.js';

/**
 * `npm run bench:results` (docs/campaign-results.md): GET /api/campaigns/{id}/results on MariaDB,
 * through HTTP against the built service in its own process (scripts/perf/service-under-test.ts).
 *
 * 1. --members customers (SQL), a campaign with three treatment groups (Control 10 %, Offer A 45 %,
 *    Offer B 45 %) and three goals through the API: `purchase` with a `where` on the amount and its
 *    value summed (3 days), `signup` (7 days), `login` (1 day);
 * 2. one completed run, as its job would have left it (SQL): every customer a member, its group by a
 *    hash, a recipient per treatment member (97 % delivered within the hour after the snapshot, the
 *    rest skipped), the snapshot --days ago;
 * 3. --events tracked events over the --days before now (SQL, the secondary indexes built after the
 *    rows, as the events bench does), five names (purchase 20 %, signup 10 %, login 30 %, ...);
 * 4. the results, --runs calls: target 1,000 ms (the median of the calls after the first).
 *
 * Prints each call and the answer's counts; exits 1 when the target is missed.
 * Needs MariaDB (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306) and `npm run build`.
 */
const { values: args } = parseArgs({
  options: {
    members: { type: 'string', default: '1000000' },
    events: { type: 'string', default: '10000000' },
    days: { type: 'string', default: '30' },
    runs: { type: 'string', default: '5' },
    'keep-database': { type: 'boolean', default: false },
  },
});
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const MEMBERS = Number(args.members);
const EVENTS = Number(args.events);
const DAYS = Number(args.days);
const RUNS = Number(args.runs);
const DAY = 86_400_000;
const CHUNK = 500_000;
const TARGET_MS = 1000;

const NAMES: [string, number][] = [
  ['purchase', 20],
  ['signup', 10],
  ['login', 30],
  ['page_view', 30],
  ['search', 10],
];

const log = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(0)} s`;
const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

type Rows<T> = [T[], unknown];

/** Drops a table's secondary indexes (but those named in `keep`), runs `fill`, builds them again from the sorted rows. */
async function withoutIndexes(service: ServiceUnderTest, table: string, keep: string[], fill: () => Promise<void>) {
  const [indexes] = (await service.sql(
    `SELECT INDEX_NAME AS name, MIN(NON_UNIQUE) AS non_unique, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS columns
       FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME NOT IN (${['PRIMARY', ...keep].map(() => '?').join(', ')})
      GROUP BY INDEX_NAME`,
    [table, 'PRIMARY', ...keep],
  )) as Rows<{ name: string; non_unique: number; columns: string }>;
  for (const index of indexes) await service.sql(`ALTER TABLE ${table} DROP INDEX \`${index.name}\``);
  await fill();
  for (const index of indexes) {
    const columns = index.columns
      .split(',')
      .map((c) => `\`${c}\``)
      .join(', ');
    const started = performance.now();
    await service.sql(
      `ALTER TABLE ${table} ADD ${Number(index.non_unique) ? 'INDEX' : 'UNIQUE INDEX'} \`${index.name}\` (${columns})`,
    );
    log(`  index ${table}.${index.name} built (${seconds(started)})`);
  }
  await service.sql(`ANALYZE TABLE ${table}`);
}

/** Statements over seq_<from>_to_<to> (MariaDB's sequence engine), CHUNK rows each. */
async function inChunks(total: number, each: (from: number, to: number) => Promise<void>) {
  for (let from = 1; from <= total; from += CHUNK) await each(from, Math.min(total, from + CHUNK - 1));
}

async function main(): Promise<void> {
  const service = await startService({ server: SERVER });
  try {
    const [[{ tenant_id: tenantId }]] = (await service.sql('SELECT tenant_id FROM users LIMIT 1')) as Rows<{
      tenant_id: number;
    }>;
    const t0 = performance.now();
    await inChunks(
      MEMBERS,
      (from, to) =>
        service.sql(
          `INSERT INTO customers (tenant_id, external_id, first_name, last_name, email, is_active, created_at, updated_at)
         SELECT ?, CONCAT('sql-', seq), 'Seed', 'Row', CONCAT('seed', seq, '@example.com'), 1, UTC_TIMESTAMP(), UTC_TIMESTAMP()
           FROM seq_${from}_to_${to}`,
          [tenantId],
        ) as Promise<void>,
    );
    await service.sql('ANALYZE TABLE customers');
    const [[{ first }]] = (await service.sql('SELECT MIN(id) AS first FROM customers WHERE tenant_id = ?', [
      tenantId,
    ])) as Rows<{ first: number }>;
    const firstCustomer = Number(first);
    log(`${MEMBERS.toLocaleString('en-US')} customers in ${seconds(t0)}`);

    const campaignId = await seedCampaign(service);
    const groups: { id: number; type: string }[] = [];
    for (const [name, type, allocation_percentage] of [
      ['Control', 'control', 10],
      ['Offer A', 'treatment', 45],
      ['Offer B', 'treatment', 45],
    ] as const)
      groups.push(
        await call(service, 'POST', `/campaigns/${campaignId}/treatment-groups`, { name, type, allocation_percentage }),
      );
    const goal = (body: object) =>
      call(service, 'POST', `/campaigns/${campaignId}/customer-goals`, {
        goal_type: 'conversion',
        target_value: 1,
        ...body,
      });
    await goal({
      name: 'Purchase of 100 or more',
      event: 'purchase',
      where: [{ field: 'properties.amount', operator: 'gte', value: 100 }],
      value_property: 'amount',
      window_days: 3,
    });
    await goal({ name: 'Signup', event: 'signup', window_days: 7 });
    await goal({ name: 'Login', event: 'login', window_days: 1 });
    await call(service, 'POST', `/campaigns/${campaignId}/kpis`, {
      name: 'Delivered',
      kpi_type: 'delivered',
      target_value: 1,
    });

    // One completed run, as its job leaves it.
    const now = Date.now();
    const snapshotAt = now - DAYS * DAY + DAY;
    await service.sql(
      `INSERT INTO campaign_runs (tenant_id, campaign_id, status, \`trigger\`, dry_run, counts, phase, started_at, snapshot_at, finished_at, created_at, updated_at)
       VALUES (?, ?, 'completed', 'manual', 0, '{}', 'done', UTC_TIMESTAMP(), ?, UTC_TIMESTAMP(), UTC_TIMESTAMP(), UTC_TIMESTAMP())`,
      [tenantId, campaignId, snapshotAt],
    );
    const [[{ runId }]] = (await service.sql('SELECT MAX(id) AS runId FROM campaign_runs')) as Rows<{ runId: number }>;
    const [control, offerA, offerB] = groups.map((g) => g.id);
    const t1 = performance.now();
    const groupOf = `CASE WHEN CRC32(seq * 11) % 100 < 10 THEN ${control} WHEN CRC32(seq * 11) % 100 < 55 THEN ${offerA} ELSE ${offerB} END`;
    await withoutIndexes(service, 'campaign_run_members', [], () =>
      inChunks(
        MEMBERS,
        (from, to) =>
          service.sql(
            `INSERT INTO campaign_run_members (tenant_id, run_id, customer_id, treatment_group_id, created_at, updated_at)
           SELECT ?, ?, ? + seq - 1, ${groupOf}, UTC_TIMESTAMP(), UTC_TIMESTAMP() FROM seq_${from}_to_${to}`,
            [tenantId, runId, firstCustomer],
          ) as Promise<void>,
      ),
    );
    await withoutIndexes(service, 'campaign_run_recipients', [], () =>
      inChunks(
        MEMBERS,
        (from, to) =>
          service.sql(
            `INSERT INTO campaign_run_recipients (tenant_id, run_id, campaign_destination_id, customer_id, treatment_group_id, action, status, message_id, delivered_at, created_at, updated_at)
           SELECT ?, ?, 1, ? + seq - 1, g, 'add', IF(CRC32(seq * 13) % 100 < 97, 'delivered', 'skipped'), CONCAT('m-', seq),
                  IF(CRC32(seq * 13) % 100 < 97, ? + CRC32(seq * 17) % 3600000, NULL), UTC_TIMESTAMP(), UTC_TIMESTAMP()
             FROM (SELECT seq, ${groupOf} AS g FROM seq_${from}_to_${to}) s WHERE g <> ${control}`,
            [tenantId, runId, firstCustomer, snapshotAt],
          ) as Promise<void>,
      ),
    );
    log(`a run of ${MEMBERS.toLocaleString('en-US')} members and their recipients in ${seconds(t1)}`);

    // The events, spread over the days before now.
    const t2 = performance.now();
    for (const [name] of NAMES)
      await service.sql(
        'INSERT INTO customer_event_names (tenant_id, name, name_key, count, created_at, updated_at) VALUES (?, ?, ?, 0, UTC_TIMESTAMP(), UTC_TIMESTAMP())',
        [tenantId, name, name],
      );
    const [names] = (await service.sql('SELECT id, name FROM customer_event_names WHERE tenant_id = ?', [
      tenantId,
    ])) as Rows<{ id: number; name: string }>;
    const idOf = new Map(names.map((n) => [n.name, Number(n.id)]));
    let cases = '';
    let sum = 0;
    for (const [name, share] of NAMES) {
      sum += share;
      cases += ` WHEN b < ${sum} THEN ${idOf.get(name)}`;
    }
    const span = DAYS * DAY - 2 * 3600_000;
    const start = now - DAYS * DAY + 3600_000;
    await withoutIndexes(service, 'customer_events', ['customer_events_id_index'], () =>
      inChunks(EVENTS, async (from, to) => {
        await service.sql(
          `INSERT INTO customer_events (tenant_id, name_id, occurred_at, customer_id, message_id, properties, created_at, updated_at)
           SELECT ?, n, at, c + ?, CONCAT('pre-', seq),
                  CASE n WHEN ? THEN CONCAT('{"amount":', CRC32(seq * 7) % 500, ',"currency":"EUR"}') ELSE NULL END,
                  FROM_UNIXTIME(at DIV 1000), FROM_UNIXTIME(at DIV 1000)
             FROM (SELECT seq, CASE${cases} END AS n, ? + seq * ? DIV ? AS at, CRC32(seq) % ? AS c
                     FROM (SELECT seq, CRC32(seq * 3) % 100 AS b FROM seq_${from}_to_${to}) s) e`,
          [tenantId, firstCustomer, idOf.get('purchase'), start, span, EVENTS, MEMBERS],
        );
        log(`  ${to.toLocaleString('en-US')} events (${seconds(t2)})`);
      }),
    );
    log(`${EVENTS.toLocaleString('en-US')} events in ${seconds(t2)}\n`);

    const samples: number[] = [];
    let answer: { goals: { name: string; groups: { name: string; members: number; converted: number }[] }[] } | null =
      null;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      answer = await call(service, 'GET', `/campaigns/${campaignId}/results`);
      samples.push(performance.now() - started);
      log(`GET /api/campaigns/{id}/results: ${samples[run].toFixed(0)} ms`);
    }
    for (const goal of answer!.goals)
      log(
        `  ${goal.name}: ${goal.groups.map((g) => `${g.name} ${g.converted.toLocaleString('en-US')} of ${g.members.toLocaleString('en-US')}`).join(', ')}`,
      );
    const typical = median(samples.slice(1));
    log(
      `\nresults of ${MEMBERS.toLocaleString('en-US')} members, ${EVENTS.toLocaleString('en-US')} events, 3 goals: ` +
        `first ${samples[0].toFixed(0)} ms, median ${typical.toFixed(0)} ms of ${RUNS - 1} more ` +
        (typical <= TARGET_MS ? `(within ${TARGET_MS} ms)` : `(OVER ${TARGET_MS} ms)`),
    );
    if (typical > TARGET_MS) process.exitCode = 1;
  } finally {
    await service.stop({ keepDatabase: args['keep-database'] });
    if (args['keep-database']) log(`the database ${service.database} is kept`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
