import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { seedCustomers } from './perf/audience-customers.js';
import { call, seedCampaign, startService, type ServiceUnderTest } from './perf/service-under-test.js';

/**
 * `npm run bench:audiences`: the audience routes on MariaDB with --customers
 * (default 1,000,000) varied customers in the tenant (plus --other in another tenant), through
 * HTTP against the built service in its own process (scripts/perf/service-under-test.ts):
 *
 * - GET /api/audiences/{id}/count of the 3-rule audience (attributes path, ends_with on e-mail,
 *   within_last_days; windows of 30 to 365 days), target 1 s;
 * - the member list: first page, then every page to the end (deep pages), target 100 ms each;
 * - POST /api/audiences/preview of the same rules, target 1 s;
 * - a sub-audience's count and first page;
 * - GET /api/campaigns/{id}/assignments/{customer_id} beside GET /api/customers/{id} (load with
 *   autocannon: the lookup should cost about what a GET of one record costs);
 * - GET /api/campaigns/{id}/assignment-summary, target 3 s.
 *
 * Prints first and median timings with the target; exits 1 when a median is over its target or
 * when the routes disagree with each other (count against pages walked, preview against count).
 * Needs MariaDB (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306) and a build.
 */
const { values: args } = parseArgs({
  options: {
    customers: { type: 'string', default: '1000000' },
    other: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
  },
});
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const CUSTOMERS = Number(args.customers);
const RUNS = Number(args.runs);
const WINDOWS = [30, 90, 180, 365];
/** About 2 % of the tenant: the window the member list and the preview use. */
const PAGED_WINDOW = 365;
const PREVIEW_WINDOW = 300;

const log = (line: string) => process.stdout.write(`${line}\n`);
const ms = (value: number) => `${value.toFixed(1)} ms`;

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
  const verdict = row.target === undefined ? '' : row.median <= row.target ? ` (within ${row.target} ms)` : ' (OVER)';
  if (row.target !== undefined && row.median > row.target) failed = true;
  log(`${row.check}: first ${ms(row.first)}, median ${ms(row.median)}${verdict}${row.note ? `; ${row.note}` : ''}`);
}

/** One HTTP call, timed from the client (request to parsed body). */
async function timed<T>(service: ServiceUnderTest, method: string, path: string, body?: unknown) {
  const started = performance.now();
  const res = await fetch(service.base + path, {
    method,
    headers: { authorization: service.authorization, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: T; meta?: { next_cursor: string | null } };
  const elapsed = performance.now() - started;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return { elapsed, json };
}

const median = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** RUNS calls: the first (cold) one, and the median of the rest. */
async function repeat<T>(
  service: ServiceUnderTest,
  check: string,
  target: number,
  method: string,
  path: string,
  body?: unknown,
) {
  const samples: number[] = [];
  let data: T | undefined;
  for (let run = 0; run < RUNS; run++) {
    const { elapsed, json } = await timed<T>(service, method, path, body);
    samples.push(elapsed);
    data = json.data;
  }
  record({ check, first: samples[0], median: median(samples.slice(1)), target });
  return data!;
}

const rule = (field: string, operator: string, rule_value: string) => ({
  rule_type: field,
  rule_value,
  field,
  operator,
});
const threeRules = (days: number) => [
  rule('attributes.country', 'equals', 'NL'),
  rule('email', 'ends_with', '@gmail.com'),
  rule('created_at', 'within_last_days', String(days)),
];

async function main(): Promise<void> {
  const service = await startService({ server: SERVER });
  try {
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const [[{ tenant_id: tenantId }]] = (await service.sql('SELECT tenant_id FROM users LIMIT 1')) as [
      { tenant_id: number }[],
    ];
    const [other] = (await service.sql(
      'INSERT INTO tenants (name, description, is_active, created_at, updated_at) VALUES (?, NULL, 1, UTC_TIMESTAMP(), UTC_TIMESTAMP())',
      ['bench other tenant'],
    )) as [{ insertId: number }];
    const run = (sql: string, params: unknown[]) => service.sql(sql, params);
    const others = Number(args.other);
    // The other tenant's customers before and after ours, so that their ids interleave at the edges.
    await seedCustomers(run, other.insertId, Math.floor(others / 2), 1, now, log);
    await seedCustomers(run, tenantId, CUSTOMERS, 2, now, log);
    await seedCustomers(run, other.insertId, others - Math.floor(others / 2), 3, now, log);
    await service.sql('ANALYZE TABLE customers');

    // Audiences, a campaign with three groups and two audiences, a sub-audience: through the API.
    const windows: Record<number, number> = {};
    for (const days of WINDOWS) {
      windows[days] = (
        await call<{ id: number }>(service, 'POST', '/audiences', {
          name: `NL Gmail customers of the last ${days} days`,
          rules: threeRules(days),
        })
      ).id;
    }
    const active = await call<{ id: number }>(service, 'POST', '/audiences', {
      name: 'Active customers',
      rules: [rule('is_active', 'equals', 'true')],
    });
    const campaigns = { all: await seedCampaign(service), narrow: await seedCampaign(service) };
    for (const campaignId of Object.values(campaigns)) {
      for (const [name, allocation] of [
        ['A', 33.33],
        ['B', 33.33],
        ['control', 20],
      ] as const) {
        await call(service, 'POST', `/campaigns/${campaignId}/treatment-groups`, {
          name,
          type: name === 'control' ? 'control' : 'treatment',
          allocation_percentage: allocation,
        });
      }
    }
    const plans = '{"field":"attributes.plan","operator":"in","value":["pro","enterprise"]}';
    await call(service, 'POST', `/campaigns/${campaigns.all}/audiences`, { audience_id: active.id });
    await call(service, 'POST', `/campaigns/${campaigns.narrow}/audiences`, {
      audience_id: windows[PAGED_WINDOW],
      segment_override: plans,
    });
    const sub = await call<{ id: number }>(service, 'POST', `/campaigns/${campaigns.narrow}/sub-audiences`, {
      audience_id: windows[PAGED_WINDOW],
      name: 'Pro and enterprise',
      segment_definition: plans,
    });
    log(
      `\n${CUSTOMERS} customers in tenant ${tenantId} (+${others} in tenant ${other.insertId}); runs per check: ${RUNS}\n`,
    );

    // The member list: the first page, then every page to the end.
    const list = `/audiences/${windows[PAGED_WINDOW]}/customers?limit=25`;
    await repeat(service, `first page of members (25), within_last_days ${PAGED_WINDOW}`, 100, 'GET', list);
    rows[rows.length - 1].note = 'first: the id floor read; then found in the per-instance cache';

    // Counts of the 3-rule audience (the paged window's id floor is known by now).
    const counts: Record<number, number> = {};
    for (const days of WINDOWS) {
      const data = await repeat<{ count: number }>(
        service,
        `count, 3 rules, within_last_days ${days}`,
        1000,
        'GET',
        `/audiences/${windows[days]}/count`,
      );
      counts[days] = data.count;
      rows[rows.length - 1].note = `${data.count} members (${((100 * data.count) / CUSTOMERS).toFixed(2)} %)`;
      log(`  ${rows[rows.length - 1].note}`);
    }

    const pages: number[] = [];
    let walked = 0;
    let cursor: string | null = null;
    do {
      const page: { elapsed: number; json: { data: unknown[]; meta?: { next_cursor: string | null } } } = await timed<
        unknown[]
      >(service, 'GET', `${list}${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(page.elapsed);
      walked += page.json.data.length;
      cursor = page.json.meta!.next_cursor;
    } while (cursor);
    record({
      check: `every page after the first (${pages.length - 1} pages)`,
      first: pages[pages.length - 1],
      median: median(pages.slice(1)),
      target: 100,
      note: `"first" is the last page; slowest ${ms(Math.max(...pages.slice(1)))}; ${walked} members walked`,
    });
    if (walked !== counts[PAGED_WINDOW]) {
      failed = true;
      log(`  MISMATCH: the pages hold ${walked} members, the count says ${counts[PAGED_WINDOW]}`);
    }
    await repeat(
      service,
      'first page of members (25), active customers (90 %)',
      100,
      'GET',
      `/audiences/${active.id}/customers?limit=25`,
    );

    // A window no route has read yet: the first preview reads its id floor.
    const preview = await repeat<{ count: number; customers: unknown[] }>(
      service,
      `preview, 3 rules, within_last_days ${PREVIEW_WINDOW}`,
      1000,
      'POST',
      '/audiences/preview',
      { rules: threeRules(PREVIEW_WINDOW) },
    );
    rows[rows.length - 1].note = `${preview.count} members`;
    const previewed = await call<{ count: number }>(service, 'POST', '/audiences/preview', {
      rules: threeRules(PAGED_WINDOW),
    });
    if (previewed.count !== counts[PAGED_WINDOW] || preview.customers.length !== 10) {
      failed = true;
      log(`  MISMATCH: the preview counts ${previewed.count}, the count route ${counts[PAGED_WINDOW]}`);
    }

    const subCount = await repeat<{ count: number }>(
      service,
      'sub-audience count (3 rules + plan tree)',
      1000,
      'GET',
      `/sub-audiences/${sub.id}/count`,
    );
    rows[rows.length - 1].note = `${subCount.count} members`;
    await repeat(service, 'sub-audience first page', 100, 'GET', `/sub-audiences/${sub.id}/customers?limit=25`);

    // An assignment lookup beside a GET of one record, under the same load.
    const [[customer]] = (await service.sql('SELECT MAX(id) AS id FROM customers WHERE tenant_id = ?', [tenantId])) as [
      { id: number }[],
    ];
    const load = async (label: string, path: string) => {
      const base = {
        url: service.base + path,
        connections: Number(args.connections),
        headers: { authorization: service.authorization },
      };
      await autocannon({ ...base, duration: 1 });
      const cpu0 = service.cpuSeconds();
      const result = await autocannon({ ...base, duration: Number(args.duration) });
      const cpuMs = ((service.cpuSeconds() - cpu0) * 1000) / Math.max(1, result['2xx']);
      log(
        `${label}: ${Math.round(result['2xx'] / result.duration)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
          `${cpuMs.toFixed(2)} ms CPU per request${result.non2xx ? `, ${result.non2xx} non-2xx` : ''}`,
      );
      if (result.non2xx) failed = true;
      return result.latency.p50;
    };
    await repeat(
      service,
      'assignment lookup (single calls)',
      100,
      'GET',
      `/campaigns/${campaigns.narrow}/assignments/${customer.id}`,
    );
    await load('GET /api/customers/{id}', `/customers/${customer.id}`);
    await load(
      'GET /api/campaigns/{id}/assignments/{customer_id} (narrow)',
      `/campaigns/${campaigns.narrow}/assignments/${customer.id}`,
    );
    await load(
      'GET /api/campaigns/{id}/assignments/{customer_id} (all)',
      `/campaigns/${campaigns.all}/assignments/${customer.id}`,
    );

    for (const [label, campaignId] of Object.entries(campaigns)) {
      const summary = await repeat<{ eligible: number; held_out: number }>(
        service,
        `assignment summary, campaign "${label}"`,
        3000,
        'GET',
        `/campaigns/${campaignId}/assignment-summary`,
      );
      rows[rows.length - 1].note = `${summary.eligible} eligible, ${summary.held_out} held out`;
      // The narrow campaign's one audience and override are the sub-audience's audience and definition.
      if (label === 'narrow' && summary.eligible !== subCount.count) {
        failed = true;
        log(`  MISMATCH: ${summary.eligible} eligible, but the sub-audience counts ${subCount.count}`);
      }
    }

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
    await service.stop();
  }
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
