import { DataSource } from 'typeorm';
import { encodeCursor } from '../src/common/persistence/cursor.js';
import { login } from './support/auth.js';
import { newTenant, newUser, type TestUser } from './support/factories.js';
import { newCampaignTree, newTreatmentGroup } from './support/marketing-factories.js';
import { mysqlBaseUrl } from './support/requirements.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * API-CONVENTIONS §4: "A page costs the same on a table of a thousand rows and of ten million".
 * These tests look at the plan of the exact SQL a list request runs, and count the queries a
 * request costs. Set LIST_INDEX_REPORT=1 to print the figures.
 */
const onMysql = !!mysqlBaseUrl();
const ROWS_PER_TENANT = 3000;
const CHUNK = 500;
const LIST_INDEX = 'validation_rules_list_id_index';

const report = (label: string, value: unknown) => {
  if (process.env.LIST_INDEX_REPORT) process.stdout.write(`[list-index] ${label}: ${JSON.stringify(value)}\n`);
};

interface Captured {
  sql: string;
  parameters: unknown[];
}

/** Records every SQL statement the application's DataSource runs while `work` runs. */
async function captureQueries(db: DataSource, work: () => Promise<unknown>): Promise<Captured[]> {
  // The drivers hand every statement to the data source's logger before running it.
  const spy = jest.spyOn(db.logger, 'logQuery');
  try {
    await work();
    return spy.mock.calls.map(([sql, parameters]) => ({
      sql,
      parameters: Array.isArray(parameters) ? (parameters as unknown[]) : [],
    }));
  } finally {
    spy.mockRestore();
  }
}

/** Inserts validation rules of one tenant in multi-row INSERTs; answers their ids, lowest first. */
async function seedRules(db: DataSource, tenantId: number, count: number): Promise<number[]> {
  for (let start = 0; start < count; start += CHUNK) {
    const size = Math.min(CHUNK, count - start);
    const params: unknown[] = [];
    for (let i = 0; i < size; i++) {
      params.push(
        tenantId,
        `Seeded ${start + i}`,
        null,
        '{"seeded":true}',
        1,
        '2026-01-01 00:00:00',
        '2026-01-01 00:00:00',
      );
    }
    await db.query(
      'INSERT INTO validation_rules (tenant_id, name, description, rule_definition, is_active, created_at, updated_at) VALUES ' +
        Array.from({ length: size }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', '),
      params,
    );
  }
  const rows = (await db.query('SELECT id FROM validation_rules WHERE tenant_id = ? ORDER BY id', [tenantId])) as {
    id: number | string;
  }[];
  return rows.map((r) => Number(r.id));
}

interface MariaDbPlan {
  key: string | null;
  /** EXPLAIN's access type: `range` walks (tenant_id, id) from the cursor; `ref` reads every row of the tenant. */
  type: string;
  /** Bytes of the key used: 8 is tenant_id alone, 16 is tenant_id and id. */
  keyLength: number | null;
  /** Rows the optimizer estimated (EXPLAIN). */
  estimated: number;
  /** Rows the executor read from the table (ANALYZE r_rows × r_loops), MariaDB only. */
  examined: number | null;
}

/** EXPLAIN and, where the server has it (MariaDB), ANALYZE FORMAT=JSON of one statement. */
async function mysqlPlan(db: DataSource, sql: string, parameters: unknown[]): Promise<MariaDbPlan> {
  const [explain] = (await db.query(`EXPLAIN ${sql}`, parameters)) as {
    key: string | null;
    type: string;
    key_len: string | null;
    rows: number | string;
  }[];
  let examined: number | null = null;
  try {
    const [analyzed] = (await db.query(`ANALYZE FORMAT=JSON ${sql}`, parameters)) as Record<string, string>[];
    const block = JSON.parse(Object.values(analyzed)[0]) as {
      query_block: { table?: AnalyzedTable; nested_loop?: { table: AnalyzedTable }[] };
    };
    const table = block.query_block.table ?? block.query_block.nested_loop?.[0].table;
    if (table) examined = Number(table.r_rows) * Number(table.r_loops ?? 1);
    report('ANALYZE', table);
  } catch {
    examined = null; // MySQL has no ANALYZE FORMAT=JSON (it has EXPLAIN ANALYZE); the EXPLAIN figures remain.
  }
  return {
    key: explain.key,
    type: explain.type,
    keyLength: explain.key_len === null ? null : Number(explain.key_len),
    estimated: Number(explain.rows),
    examined,
  };
}

interface AnalyzedTable {
  key?: string;
  r_rows: number;
  r_loops?: number;
}

const withoutHint = (sql: string) => sql.replace(/\s*FORCE INDEX \(`?\w+`?\)/i, '');

describe('listValidationRules: the plan of the validation-rule list (list index)', () => {
  let t: TestApp;
  let db: DataSource;
  let first: TestUser;
  let firstIds: number[];
  let secondIds: number[];

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
    db = t.app.get(DataSource);
    const root = await login(t);
    first = await newUser(t, root, ['admin'], (await newTenant(t, root)).id);
    firstIds = await seedRules(db, first.tenant_id, ROWS_PER_TENANT);
    // A second tenant's rows come after (higher ids): a newest-first walk of the primary key
    // for the first tenant would pass all of them.
    const second = await newUser(t, root, ['admin'], (await newTenant(t, root)).id);
    secondIds = await seedRules(db, second.tenant_id, ROWS_PER_TENANT);
    // Index statistics as a production table would have them; straight after a bulk load
    // InnoDB recalculates them in the background, and unhinted plans change with that timing.
    if (onMysql) await db.query('ANALYZE TABLE validation_rules');
  }, 120_000);
  afterAll(() => t.close());

  /** The SELECT of the page that a list request runs, with its parameters, and the page it answered. */
  const listQuery = async (query: Record<string, string | number>) => {
    let body: { data: { id: number }[] } = { data: [] };
    const captured = await captureQueries(db, async () => {
      const res = await t.http.get('/api/validation-rules').query(query).set('Authorization', first.token).expect(200);
      body = res.body;
    });
    const page = captured.filter((q) => /^SELECT\b/i.test(q.sql) && /\bvalidation_rules\b/.test(q.sql));
    expect(page).toHaveLength(1);
    return { ...page[0], ids: body.data.map((r) => r.id) };
  };

  it('seeds two tenants of 3000 rules each', async () => {
    expect(firstIds).toHaveLength(ROWS_PER_TENANT);
    expect(secondIds).toHaveLength(ROWS_PER_TENANT);
    expect(Math.min(...secondIds)).toBeGreaterThan(Math.max(...firstIds));
  });

  it('pages far down with the tenant and id index, examining about one page of rows', async () => {
    // The 200th-oldest rule of the first tenant: a page far down its newest-first list.
    const cursorId = firstIds[200];
    const { sql, parameters, ids } = await listQuery({
      limit: 10,
      cursor: encodeCursor({ sort: '-id', id: cursorId }),
    });
    expect(ids).toEqual(firstIds.slice(190, 200).reverse());
    report('far-down page SQL', sql);

    if (!onMysql) {
      const plan = (await db.query(`EXPLAIN QUERY PLAN ${sql}`, parameters)) as { detail: string }[];
      const details = plan.map((p) => p.detail);
      report('SQLite plan', details);
      // A range search on an index that starts with tenant_id; no full scan, no sort step.
      expect(details.join(' | ')).toMatch(/SEARCH validation_rules USING (COVERING )?INDEX validation_rules_list_\w+/);
      expect(details.join(' | ')).not.toMatch(/TEMP B-TREE|^SCAN/);
      return;
    }

    expect(sql).toContain(`FORCE INDEX (\`${LIST_INDEX}\`)`);
    const hinted = await mysqlPlan(db, sql, parameters);
    report('with the hint', hinted);
    expect(hinted.key).toBe(LIST_INDEX);
    expect({ type: hinted.type, keyLength: hinted.keyLength }).toEqual({ type: 'range', keyLength: 16 });
    if (hinted.examined !== null) expect(hinted.examined).toBeLessThanOrEqual(50);

    // Without the hint the page is the same, but MariaDB 10.11 picks `ref` on tenant_id alone
    // (key length 8) and reads every row of the tenant above the cursor (2811 of them here),
    // filtering `id < ?` afterwards. The hint is what keeps a deep page at one page of reads.
    const bare = withoutHint(sql);
    expect(bare).not.toContain('FORCE INDEX');
    const unhinted = await mysqlPlan(db, bare, parameters);
    report('without the hint', unhinted);
    const rows = (await db.query(bare, parameters)) as { id: number | string }[];
    expect(rows.map((r) => Number(r.id)).slice(0, 10)).toEqual(ids);
    if (hinted.examined !== null && unhinted.examined !== null) {
      expect(unhinted.examined).toBeGreaterThanOrEqual(hinted.examined);
    }
  });

  it("reads the first page of the older tenant without walking the newer tenant's rows", async () => {
    const { sql, parameters, ids } = await listQuery({ limit: 10 });
    expect(ids).toEqual(firstIds.slice(-10).reverse());
    if (!onMysql) {
      const plan = (await db.query(`EXPLAIN QUERY PLAN ${sql}`, parameters)) as { detail: string }[];
      report(
        'SQLite first-page plan',
        plan.map((p) => p.detail),
      );
      expect(plan.map((p) => p.detail).join(' | ')).toMatch(/SEARCH validation_rules USING (COVERING )?INDEX/);
      return;
    }
    const hinted = await mysqlPlan(db, sql, parameters);
    const unhinted = await mysqlPlan(db, withoutHint(sql), parameters);
    report('first page with the hint', hinted);
    report('first page without the hint', unhinted);
    expect(hinted.key).toBe(LIST_INDEX);
    if (hinted.examined !== null) expect(hinted.examined).toBeLessThanOrEqual(50);
    // Whatever plan the optimizer picks unhinted, it must not read the other tenant's rows.
    if (unhinted.examined !== null) expect(unhinted.examined).toBeLessThanOrEqual(50);
  });
});

describe('listTreatmentGroups: queries per list request (list index)', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp({
      config: {
        rateLimitPerMinute: 100_000,
        authAttemptsPerMinute: 100_000,
        // No background numbering of the change feed, nor polls of any queue, among the queries counted.
        events: { background: false },
        webhooks: { worker: false },
        imports: { runner: false },
        erasures: { runner: false },
        destinations: { worker: false },
        runs: { runner: false },
      },
    });
    const root = await login(t);
    admin = await newUser(t, root, ['admin'], (await newTenant(t, root)).id);
  });
  afterAll(() => t.close());

  it('costs the same number of queries for a page of 2 and of 25 treatment groups', async () => {
    const small = (await newCampaignTree(t, admin.token)).campaign;
    const large = (await newCampaignTree(t, admin.token)).campaign;
    for (let i = 0; i < 2; i++) await newTreatmentGroup(t, admin.token, small.id, { allocation_percentage: 4 });
    for (let i = 0; i < 25; i++) await newTreatmentGroup(t, admin.token, large.id, { allocation_percentage: 4 });
    const db = t.app.get(DataSource);

    const count = async (campaignId: number) => {
      let rows = 0;
      const queries = await captureQueries(db, async () => {
        const res = await t.http
          .get(`/api/campaigns/${campaignId}/treatment-groups?limit=25`)
          .set('Authorization', admin.token)
          .expect(200);
        rows = res.body.data.length;
      });
      return { rows, queries: queries.map((q) => q.sql.replace(/\s+/g, ' ').slice(0, 90)) };
    };
    const smallPage = await count(small.id);
    const largePage = await count(large.id);
    expect(smallPage.rows).toBe(2);
    expect(largePage.rows).toBe(25);
    report('queries for 2 rows', smallPage.queries);
    report('queries for 25 rows', largePage.queries);
    // Token and user access, the parent campaign, the page; never one per row.
    expect(largePage.queries.length).toBe(smallPage.queries.length);
    expect(largePage.queries.length).toBeLessThanOrEqual(5);
  });
});
