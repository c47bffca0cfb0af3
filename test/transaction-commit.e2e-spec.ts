import { Database, type Sql } from '../src/common/persistence/database.js';
import { runTogether } from '../src/common/persistence/statement-batch.js';
import { login } from './support/auth.js';
import { newTenant, newUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * MariaDB (in both suite runs): a write's last statements (its activity entries and events) carry
 * its COMMIT in their compound statement, one round trip fewer per write. What that must keep: the
 * transaction is whole once they ran, none of it stays when they fail, and nothing runs after them
 * outside it.
 */
describe("a write's COMMIT sent with its last statements, on MariaDB", () => {
  let t: TestApp;
  let db: Database;

  beforeAll(async () => {
    t = await createTestApp({ database: 'mysql' });
    db = t.app.get(Database);
    await db.run('CREATE TABLE commit_probe (id INT PRIMARY KEY, label VARCHAR(20))');
    await db.run('CREATE TABLE commit_auto (id INT AUTO_INCREMENT PRIMARY KEY, label VARCHAR(20) UNIQUE)');
    await db.run('CREATE TABLE commit_pairs (a INT, b INT, PRIMARY KEY (a, b))');
  });
  afterAll(async () => {
    await db.run('DROP TABLE commit_probe, commit_auto, commit_pairs');
    await t.close();
  });

  const insert = (id: number) => ({
    sql: 'INSERT INTO commit_probe (id, label) VALUES (?, ?)',
    params: [id, `row ${id}`],
  });
  /** What another connection sees (the pool's, outside the transaction). */
  const seen = async (ids: number[]) =>
    (
      await db.query<{ id: number }>(
        `SELECT id FROM commit_probe WHERE id IN (${ids.map(() => '?').join(', ')}) ORDER BY id`,
        ids,
      )
    ).map((row) => row.id);

  it('has committed the whole transaction when its last statements have run, and refuses a statement after them', async () => {
    let seenBeforeTheyRan: number[] = [];
    let seenOnceTheyRan: number[] = [];
    let after: unknown;
    await db.transaction(async (sql: Sql) => {
      expect(sql.runCommitting).toBeDefined();
      await sql.run(insert(1).sql, insert(1).params);
      seenBeforeTheyRan = await seen([1, 2, 3]);
      await runTogether(sql, [insert(2), insert(3)], { last: true });
      seenOnceTheyRan = await seen([1, 2, 3]);
      after = await sql.run(insert(4).sql, insert(4).params).catch((error: Error) => error.message);
    });
    expect(seenBeforeTheyRan).toEqual([]);
    expect(seenOnceTheyRan).toEqual([1, 2, 3]);
    expect(after).toBe('The transaction has already committed.');
    expect(await seen([4])).toEqual([]);
  });

  it('keeps nothing of the transaction when one of its last statements fails', async () => {
    const failed = db.transaction(async (sql) => {
      await sql.run(insert(10).sql, insert(10).params);
      await runTogether(sql, [insert(11), insert(1)], { last: true }); // 1 exists: duplicate key
    });
    await expect(failed).rejects.toMatchObject({ code: 'ER_DUP_ENTRY' });
    expect(await seen([10, 11])).toEqual([]);
    // The connection went back to the pool usable, out of any transaction.
    const [state] = await db.query<{ open: number }>('SELECT @@in_transaction AS open');
    expect(Number(state.open)).toBe(0);
  });

  it('answers the insert id and row count of an INSERT that starts the transaction as the server gives them', async () => {
    const first = await db.transaction((sql) => sql.insertRows('commit_auto', ['label'], [['a'], ['b']]));
    const ids = await db.query<{ id: number }>("SELECT id FROM commit_auto WHERE label IN ('a', 'b') ORDER BY id");
    expect(first).toEqual({ insertId: ids[0].id, affected: 2 });
    // Every connection of the pool has inserted a row with a new id: a table without one answers 0 all the same.
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        db.transaction((sql) => sql.insertRows('commit_auto', ['label'], [[`c${i}`]])),
      ),
    );
    const pairs = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        db.transaction((sql) => sql.insertRows('commit_pairs', ['a', 'b'], [[i, i]])),
      ),
    );
    expect(pairs).toEqual(Array.from({ length: 12 }, () => ({ insertId: 0, affected: 1 })));
  });

  it('answers the rows of a SELECT that starts the transaction, and keeps nothing when its first INSERT fails', async () => {
    const rows = await db.transaction((sql) =>
      sql.query<{ label: string }>("SELECT label FROM commit_auto WHERE label = 'a' FOR UPDATE"),
    );
    expect(rows).toEqual([{ label: 'a' }]);
    const duplicate = db.transaction(async (sql) => {
      await sql.insertRows('commit_auto', ['label'], [['fresh'], ['a']]);
    });
    await expect(duplicate).rejects.toMatchObject({ code: 'ER_DUP_ENTRY' });
    expect(await db.query("SELECT id FROM commit_auto WHERE label = 'fresh'")).toEqual([]);
  });

  it('writes a record, its activity entry and its event through the API as before', async () => {
    const root = await login(t);
    const tenant = await newTenant(t, root);
    const admin = await newUser(t, root, ['admin'], tenant.id);
    const created = await t.http
      .post('/api/customers')
      .set('authorization', admin.token)
      .send({ external_id: 'commit-1', first_name: 'Ada' })
      .expect(201);
    const id = created.body.data.id as number;
    const [logged] = await db.query<{ n: number }>(
      "SELECT COUNT(*) AS n FROM activity_log WHERE subject_type = 'Customer' AND subject_id = ?",
      [id],
    );
    const [evented] = await db.query<{ n: number }>(
      'SELECT COUNT(*) AS n FROM events WHERE tenant_id = ? AND resource_id = ?',
      [tenant.id, id],
    );
    expect([Number(logged.n), Number(evented.n)]).toEqual([1, 1]);
  });
});
