import { systemAuth, type AuthContext } from '../src/common/auth/auth-context.js';
import { Database } from '../src/common/persistence/database.js';
import { Tables } from '../src/common/persistence/tables.js';
import type { TenantReads } from '../src/common/persistence/tenant-reads.js';
import { CustomerSuppression } from '../src/modules/customer/entities/customer-suppression.entity.js';
import { SuppressionList } from '../src/modules/customer/suppression/suppression-list.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const LISTED = 3_000;
const ITEMS = 1_000; // a batch or an import chunk: 2,000 hashes

/**
 * MariaDB (in both suite runs): the suppression check of a 1,000-item batch finds each hash through
 * the unique index (tenant_id, kind, value_hash) with one lookup, whatever the size of the tenant's
 * list. It read the whole list for every chunk (the kind was not named, and MariaDB turns an IN list
 * of 1,000 values or more into a subquery), and then looked each hash up under both kinds.
 */
describe('the suppression check of a batch on MariaDB', () => {
  let t: TestApp;
  let auth: AuthContext;

  beforeAll(async () => {
    t = await createTestApp({ database: 'mysql' });
    const list = t.app.get(SuppressionList);
    const tenantId = 1;
    auth = {
      ...systemAuth(tenantId, 'suppression-lookup'),
      tenant: { limits: {}, suppressionsListed: LISTED },
    } as AuthContext;
    const rows = Array.from({ length: LISTED }, (_, i) => ({
      kind: 'email' as const,
      value_hash: list.hash(tenantId, 'email', `listed${i}@example.com`),
      created_by: null,
    }));
    await t.app.get(Tables).write(auth, (tx) => tx.table(CustomerSuppression).insertMany(rows));
    await t.app.get(Database).query('ANALYZE TABLE customer_suppressions');
  });
  afterAll(() => t.close());

  it('refuses the listed items and examines about one index entry per hash', async () => {
    const reads = t.app.get(Tables).read(auth);
    const statements: { sql: string; params: readonly unknown[] }[] = [];
    const watched: TenantReads = Object.assign(Object.create(reads) as TenantReads, {
      select: (sql: string, params: readonly never[] = []) => {
        statements.push({ sql, params });
        return reads.select(sql, params);
      },
    });
    const items = Array.from({ length: ITEMS }, (_, i) => ({
      email: i % 10 === 0 ? `LISTED${i}@Example.com` : `new${i}@example.com`,
      external_id: `E-${i}`,
    }));
    const refusals = await t.app.get(SuppressionList).refusals(watched, items);
    expect(refusals.filter(Boolean)).toHaveLength(ITEMS / 10);
    expect(refusals[0]).toEqual({ email: ['The email is suppressed by an erasure request.'] });

    const db = t.app.get(Database);
    let examined = 0;
    for (const { sql, params } of statements) {
      const [plan] = await db.query<{ plan: string }>(`ANALYZE FORMAT=JSON ${sql}`, params as never[]);
      const text = Object.values(plan)[0] as string;
      examined += [...text.matchAll(/"r_rows":\s*([\d.]+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    }
    expect(statements.length).toBeGreaterThan(0);
    // Two hashes per item; the whole list would be LISTED per statement.
    expect(examined).toBeLessThanOrEqual(2 * ITEMS);

    // One index lookup per hash: with both kinds named in each read, every hash was looked up under both.
    const lookups = await db.transaction(async (tx) => {
      const keyReads = async () =>
        Number((await tx.query<{ Value: string }>("SHOW SESSION STATUS LIKE 'Handler_read_key'"))[0].Value);
      const before = await keyReads();
      for (const { sql, params } of statements) await tx.query(sql, params as never[]);
      return (await keyReads()) - before;
    });
    expect(lookups).toBeGreaterThanOrEqual(2 * ITEMS);
    expect(lookups).toBeLessThanOrEqual(2 * ITEMS + statements.length);
  });
});
