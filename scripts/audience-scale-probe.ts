import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { INestApplication } from '@nestjs/common';
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory.js';
import { loadConfig } from '../src/common/config/app-config.js';
import { bucketOf, bucketSql, summarizeBuckets } from '../src/modules/audience/rules/bucket.js';
import { parseSegment } from '../src/modules/audience/rules/condition-tree.js';
import { evaluableConditions, isMatchMode, type MatchMode } from '../src/modules/audience/rules/rule-grammar.js';
import {
  and,
  compileRules,
  compileSegment,
  impliedLowerBound,
  or,
  type CompileOptions,
  type SqlFragment,
} from '../src/modules/audience/rules/sql-compiler.js';
import { instantText, seedCustomers } from './perf/audience-customers.js';

/**
 * Audience evaluation at scale on MariaDB: seeds PROBE_CUSTOMERS (default 1,000,000) customers
 * into one tenant of a throw-away database `audience_probe_<random>` (plus PROBE_OTHER_CUSTOMERS
 * in another tenant), then times the 3-rule count, the first and deep member pages, and the
 * assignment summary, printing MariaDB's ANALYZE row counts. Drops the database at the end
 * (PROBE_KEEP=1 keeps it).
 *
 *   npm run build && node dist/scripts/audience-scale-probe.js
 *   PROBE_MYSQL_URL=mysql://root@127.0.0.1:3306/ PROBE_CUSTOMERS=200000 node dist/scripts/audience-scale-probe.js
 */
const SERVER_URL = process.env.PROBE_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';
const CUSTOMERS = Number(process.env.PROBE_CUSTOMERS ?? 1_000_000);
const OTHER_CUSTOMERS = Number(process.env.PROBE_OTHER_CUSTOMERS ?? 100_000);
const RUNS = Number(process.env.PROBE_RUNS ?? 5);
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const WINDOWS = [30, 90, 180, 365];
/** The window whose audience (about 2 % of the tenant) the member pages are read from. */
const PAGED_WINDOW = 365;

const log = (line: string) => process.stdout.write(`${line}\n`);

async function insertId(db: DataSource, sql: string, params: unknown[]): Promise<number> {
  const result = (await db.query(sql, params)) as { insertId: number };
  return Number(result.insertId);
}

/** A campaign with 3 treatment groups, and two audiences: the 3-rule one and "active customers". */
async function seedCampaign(db: DataSource, tenantId: number) {
  const stamp = instantText(NOW.getTime());
  const plan = [tenantId, 'Probe', 'probe', 'active', stamp, stamp, 0, 'probe', stamp, stamp];
  const program = await insertId(
    db,
    'INSERT INTO marketing_programs (tenant_id, name, description, status, start_date, end_date, budget, goal, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    plan,
  );
  const group = await insertId(
    db,
    'INSERT INTO campaign_groups (tenant_id, marketing_program_id, name, description, status, start_date, end_date, budget, goal, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [tenantId, program, ...plan.slice(1)],
  );
  const campaign = async () =>
    insertId(
      db,
      'INSERT INTO campaigns (tenant_id, campaign_group_id, name, description, status, start_date, end_date, budget, goal, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [tenantId, group, ...plan.slice(1)],
    );
  const campaigns = { all: await campaign(), narrow: await campaign() };
  for (const campaignId of Object.values(campaigns)) {
    for (const [name, allocation] of [
      ['A', '33.33'],
      ['B', '33.33'],
      ['control', '20.00'],
    ]) {
      await db.query(
        'INSERT INTO treatment_groups (tenant_id, campaign_id, name, description, type, allocation_percentage, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?, ?, ?)',
        [tenantId, campaignId, name, name === 'control' ? 'control' : 'treatment', allocation, stamp, stamp],
      );
    }
  }
  const audience = async (name: string, match: string, rules: [string, string, string][]) => {
    const id = await insertId(
      db,
      'INSERT INTO audiences (tenant_id, name, description, `match`, created_at, updated_at) VALUES (?, ?, NULL, ?, ?, ?)',
      [tenantId, name, match, stamp, stamp],
    );
    for (const [field, operator, value] of rules) {
      await db.query(
        'INSERT INTO audience_rules (audience_id, rule_type, rule_value, field, operator, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [id, field, value, field, operator, stamp, stamp],
      );
    }
    return id;
  };
  // The 3-rule audience of the speed target, over four windows (3 years of customers).
  const windows: Record<number, number> = {};
  for (const days of WINDOWS) {
    windows[days] = await audience(`NL Gmail customers of the last ${days} days`, 'all', [
      ['attributes.country', 'equals', 'NL'],
      ['email', 'ends_with', '@gmail.com'],
      ['created_at', 'within_last_days', String(days)],
    ]);
  }
  const threeRules = windows[PAGED_WINDOW];
  const active = await audience('Active customers', 'all', [['is_active', 'equals', 'true']]);
  const link = (campaignId: number, audienceId: number, override: string | null) =>
    db.query(
      'INSERT INTO campaign_audiences (tenant_id, campaign_id, audience_id, segment_override, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      [tenantId, campaignId, audienceId, override, stamp, stamp],
    );
  await link(campaigns.all, active, null);
  await link(campaigns.narrow, threeRules, '{"field":"attributes.plan","operator":"in","value":["pro","enterprise"]}');
  return { campaigns, windows };
}

/** An audience's rules, read as part 2 will, and its filter. */
async function audienceFilter(db: DataSource, audienceId: number, options: CompileOptions) {
  const [audience] = await db.query('SELECT `match` FROM audiences WHERE id = ?', [audienceId]);
  const rules = await db.query(
    'SELECT rule_type, rule_value, field, operator FROM audience_rules WHERE audience_id = ? ORDER BY id',
    [audienceId],
  );
  const match: MatchMode = isMatchMode(audience.match) ? audience.match : 'all';
  const conditions = evaluableConditions(rules);
  return { conditions, match, filter: compileRules(conditions, match, options) };
}

/** Customers eligible for a campaign: members of any of its audiences, each narrowed by its segment_override. */
async function eligibility(db: DataSource, campaignId: number, options: CompileOptions): Promise<SqlFragment> {
  const links = await db.query(
    'SELECT audience_id, segment_override FROM campaign_audiences WHERE campaign_id = ? ORDER BY id',
    [campaignId],
  );
  const filters: SqlFragment[] = [];
  for (const link of links) {
    const members = (await audienceFilter(db, Number(link.audience_id), options)).filter;
    const parsed = link.segment_override === null ? null : parseSegment(link.segment_override, 'segment override');
    if (parsed && !parsed.ok) throw new Error(parsed.message);
    const narrowing = parsed ? compileSegment(parsed.segment, options) : null;
    filters.push(narrowing ? and(members, narrowing) : members);
  }
  return or(...filters);
}

interface Timing {
  first: number;
  median: number;
  result: unknown;
}

async function time(db: DataSource, sql: string, params: unknown[], runs: number): Promise<Timing> {
  const samples: number[] = [];
  let result: unknown;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    result = await db.query(sql, params);
    samples.push(performance.now() - started);
  }
  const rest = samples.slice(1).sort((a, b) => a - b);
  return { first: samples[0], median: rest.length ? rest[Math.floor(rest.length / 2)] : samples[0], result };
}

/** The per-table lines of ANALYZE FORMAT=JSON: access type, index, estimated and actual rows. */
async function analyze(db: DataSource, sql: string, params: unknown[]): Promise<string[]> {
  const [row] = await db.query(`ANALYZE FORMAT=JSON ${sql}`, params);
  // MariaDB does not escape quotes inside the condition texts; they are not needed here.
  const text = Object.values(row as Record<string, string>)[0]
    .split('\n')
    .map((line) => line.replace(/^(\s*"[a-z_]*condition[a-z_]*": ).*?(,?)$/, '$1""$2'))
    .join('\n');
  const plan = JSON.parse(text);
  const lines: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    if (typeof n.table_name === 'string') {
      lines.push(
        `${n.table_name}: ${n.access_type} key=${n.key ?? '-'} rows=${n.rows} r_rows=${n.r_rows} ` +
          `filtered=${n.filtered} r_filtered=${n.r_filtered} r_table_time_ms=${Number(n.r_table_time_ms ?? 0).toFixed(1)}`,
      );
    }
    Object.values(n).forEach(walk);
  };
  walk(plan);
  return lines;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

async function report(
  db: DataSource,
  label: string,
  target: number,
  sql: string,
  params: unknown[],
  runs = RUNS,
): Promise<Timing> {
  const timing = await time(db, sql, params, runs);
  const verdict = timing.median <= target ? 'within' : 'OVER';
  const rest = runs > 1 ? `, median of ${runs - 1} more ${ms(timing.median)}` : '';
  log(`\n${label}: first ${ms(timing.first)}${rest} (${verdict} ${target} ms)`);
  for (const line of await analyze(db, sql, params)) log(`  ${line}`);
  return timing;
}

async function main(): Promise<void> {
  const name = `audience_probe_${randomBytes(4).toString('hex')}`;
  const server = new URL(SERVER_URL);
  server.pathname = '/';
  const admin = await createConnection({ uri: server.toString() });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  const url = new URL(server.toString());
  url.pathname = `/${name}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'audience-probe-'));
  let app: INestApplication | undefined;
  try {
    log(`database ${name}; ${CUSTOMERS} customers (+${OTHER_CUSTOMERS} in another tenant); now ${NOW.toISOString()}`);
    // Booting the app runs the migrations and seeds the default tenant.
    app = await createApp(
      loadConfig({
        ...process.env,
        DATABASE_URL: url.toString(),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        ADMIN_PASSWORD: 'probe-password-1',
      }),
    );
    const db = app.get(DataSource);
    const tenantId = await insertId(
      db,
      'INSERT INTO tenants (name, description, is_active, created_at, updated_at) VALUES (?, NULL, 1, NOW(), NOW())',
      [`probe ${name}`],
    );
    const other = await insertId(
      db,
      'INSERT INTO tenants (name, description, is_active, created_at, updated_at) VALUES (?, NULL, 1, NOW(), NOW())',
      [`probe other ${name}`],
    );
    const run = (sql: string, params: unknown[]) => db.query(sql, params);
    await seedCustomers(run, other, Math.floor(OTHER_CUSTOMERS / 2), 1, NOW, log);
    await seedCustomers(run, tenantId, CUSTOMERS, 2, NOW, log);
    await seedCustomers(run, other, OTHER_CUSTOMERS - Math.floor(OTHER_CUSTOMERS / 2), 3, NOW, log);
    await db.query('ANALYZE TABLE customers');
    const [size] = await db.query(
      'SELECT ROUND(data_length / 1048576) AS data_mb, ROUND(index_length / 1048576) AS index_mb FROM information_schema.tables WHERE table_schema = ? AND table_name = ?',
      [name, 'customers'],
    );
    log(`customers table: ${size.data_mb} MiB data, ${size.index_mb} MiB indexes`);

    const { campaigns, windows } = await seedCampaign(db, tenantId);
    const options: CompileOptions = { dialect: 'mysql', alias: 'c', now: NOW };
    const totals: Record<number, number> = {};
    for (const days of WINDOWS) {
      const members = (await audienceFilter(db, windows[days], options)).filter;
      if (days === PAGED_WINDOW) {
        const shown = members.sql.replace(/REPLACE\((?:REPLACE\()+/g, 'REPLACE(...');
        log(`\n3-rule audience filter:\n  ${shown}\n  ${JSON.stringify(members.params)}`);
      }
      const count = await report(
        db,
        `Count, 3 rules, created_at within_last_days ${days}`,
        1000,
        `SELECT COUNT(*) AS n FROM customers c WHERE c.tenant_id = ? AND ${members.sql}`,
        [tenantId, ...members.params],
      );
      totals[days] = Number((count.result as { n: number }[])[0].n);
      log(`  members: ${totals[days]} (${((100 * totals[days]) / CUSTOMERS).toFixed(2)} % of the tenant)`);
    }

    const paged = await audienceFilter(db, windows[PAGED_WINDOW], options);
    const members = paged.filter;
    const total = totals[PAGED_WINDOW];
    const params = [tenantId, ...members.params];

    // Every member is in the created_at range the rules imply; its lowest id is an exact floor for
    // scans by id. Found on (tenant_id, created_at, id); a member list can carry it in its cursor.
    const since = impliedLowerBound(paged.conditions, paged.match, 'created_at', NOW);
    const range = await report(
      db,
      'Id floor of the implied created_at range',
      100,
      'SELECT MIN(m.id) AS floor, COUNT(*) AS n FROM customers m WHERE m.tenant_id = ? AND m.created_at >= ?',
      [tenantId, since],
    );
    const floor = Number((range.result as { floor: number }[])[0].floor);
    const floorCount = await report(
      db,
      `Count, within_last_days ${PAGED_WINDOW}, clustered-index scan from the id floor`,
      1000,
      `SELECT COUNT(*) AS n FROM customers c FORCE INDEX (PRIMARY) WHERE c.tenant_id = ? AND ${members.sql} AND c.id >= ?`,
      [...params, floor],
    );

    const same = Number((floorCount.result as { n: number }[])[0].n) === total;
    log(`  same count as the plain query: ${same}`);
    if (!same) process.exitCode = 1;

    // Member pages: keyset by id, newest first, on the (tenant_id, id) index.
    const page = (table: string, extra = '') =>
      `SELECT c.* FROM ${table} WHERE c.tenant_id = ? AND ${members.sql}${extra} ORDER BY c.id DESC LIMIT 26`;
    const hinted = 'customers c FORCE INDEX (customers_list_id_index)';
    const cursorAt = async (offset: number) => {
      const [row] = await db.query(
        `SELECT c.id FROM ${hinted} WHERE c.tenant_id = ? AND ${members.sql} ORDER BY c.id DESC LIMIT 1 OFFSET ${offset}`,
        params,
      );
      return Number(row.id);
    };
    const middle = Math.floor(total / 2 / 25) * 25;
    const last = Math.max(25, Math.floor((total - 1) / 25) * 25);
    const [middleCursor, lastCursor] = [await cursorAt(middle - 1), await cursorAt(last - 1)];
    await report(db, 'First page (26 rows)', 100, page(hinted), params);
    await report(db, `Deep page (after ${middle} members)`, 100, page(hinted, ' AND c.id < ?'), [
      ...params,
      middleCursor,
    ]);
    await report(db, `Last page (after ${last} members)`, 100, page(hinted, ' AND c.id < ?'), [...params, lastCursor]);
    await report(db, 'Last page with the id floor', 100, page(hinted, ' AND c.id < ? AND c.id >= ?'), [
      ...params,
      lastCursor,
      floor,
    ]);
    await report(
      db,
      `For contrast, the deep page without the index hint`,
      100,
      page('customers c', ' AND c.id < ?'),
      [...params, middleCursor],
      1,
    );

    for (const [label, campaignId] of Object.entries(campaigns)) {
      const eligible = await eligibility(db, campaignId, options);
      const bucket = bucketSql('mysql', 'c', campaignId);
      const sql = `SELECT ${bucket.sql} AS bucket, COUNT(*) AS customers FROM customers c WHERE c.tenant_id = ? AND ${eligible.sql} GROUP BY bucket`;
      const summaryParams = [...bucket.params, tenantId, ...eligible.params];
      const timing = await report(db, `Assignment summary, campaign "${label}"`, 3000, sql, summaryParams);
      if (label === 'narrow') {
        const fromFloor = await report(
          db,
          'Assignment summary, campaign "narrow", clustered-index scan from the id floor',
          3000,
          sql.replace('FROM customers c WHERE', 'FROM customers c FORCE INDEX (PRIMARY) WHERE c.id >= ? AND'),
          [...bucket.params, floor, tenantId, ...eligible.params],
        );
        const rows = (t: Timing) =>
          JSON.stringify((t.result as { bucket: number }[]).sort((a, b) => a.bucket - b.bucket));
        const same = rows(fromFloor) === rows(timing);
        log(`  same buckets as the plain query: ${same}`);
        if (!same) process.exitCode = 1;
      }
      const groups = await db.query(
        'SELECT id, allocation_percentage FROM treatment_groups WHERE campaign_id = ? ORDER BY id',
        [campaignId],
      );
      const summary = summarizeBuckets(timing.result as { bucket: number; customers: number }[], groups);
      log(`  ${JSON.stringify(summary)}`);
      // The database's buckets are the formula's: check a sample.
      const sample: { id: number; bucket: number }[] = await db.query(
        `SELECT c.id, ${bucket.sql} AS bucket FROM customers c WHERE c.tenant_id = ? ORDER BY c.id DESC LIMIT 1000`,
        [...bucket.params, tenantId],
      );
      const wrong = sample.filter((row) => Number(row.bucket) !== bucketOf(campaignId, row.id)).length;
      log(`  bucket check: ${sample.length - wrong} of ${sample.length} sampled customers agree with bucketOf`);
      if (wrong) process.exitCode = 1;
    }
  } finally {
    await app?.close();
    if (process.env.PROBE_KEEP === '1') log(`kept database ${name}`);
    else await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
