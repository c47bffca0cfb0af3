import type { Pool, PoolConnection } from 'mysql2';
import { DataSource } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver.js';
import { Database, type Sql } from '../src/common/persistence/database.js';
import { executePrepared, PREPARED_PER_CONNECTION } from '../src/common/persistence/prepared-statements.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * MySQL/MariaDB (in both suite runs): a statement of few parameters is prepared once per
 * connection; one of many (the bulk paths' multi-row INSERTs and long IN lists) goes as text with
 * its values escaped, so that mysql2 does not keep it, with a definition object per parameter, on
 * every connection (that filled the heap during a 1,000,000-row import).
 */
describe('statements on MariaDB: prepared up to 64 parameters, sent as text beyond', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ database: 'mysql' });
  });
  afterAll(() => t.close());

  /** Statements this connection has prepared so far (a per-session counter, untouched by other tests). */
  const prepared = async (sql: Sql) =>
    Number(
      (
        await sql.query<{ n: string }>(
          "SELECT VARIABLE_VALUE AS n FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'COM_STMT_PREPARE'",
        )
      )[0].n,
    );

  const sumOf = (count: number) => `SELECT ${Array.from({ length: count }, () => '?').join(' + ')} AS total`;
  const numbers = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

  it('prepares a statement of 64 parameters and sends one of 65 as text, with the same answers', async () => {
    await t.app.get(Database).transaction(async (sql) => {
      await prepared(sql); // prepares the counter's own statement
      const before = await prepared(sql);
      const [many] = await sql.query<{ total: number | string }>(sumOf(65), numbers(65));
      expect(Number(many.total)).toBe((65 * 66) / 2);
      expect(await prepared(sql)).toBe(before);
      const [few] = await sql.query<{ total: number | string }>(sumOf(64), numbers(64));
      expect(Number(few.total)).toBe((64 * 65) / 2);
      expect(await prepared(sql)).toBe(before + 1);
    });
  });

  it('stores text, dates, nulls and booleans from a statement sent as text exactly as from a prepared one', async () => {
    const values = ['O\'Brien \\ "quoted" ; DROP TABLE users; --', new Date('2026-03-04T05:06:07.123Z'), null, true];
    await t.app.get(Database).transaction(async (sql) => {
      await sql.run(
        'CREATE TEMPORARY TABLE statement_values (id INT, text VARCHAR(255), moment DATETIME(3), nothing VARCHAR(10) NULL, yes TINYINT(1))',
      );
      const insert = (ids: number[]) =>
        sql.run(
          `INSERT INTO statement_values (id, text, moment, nothing, yes) VALUES ${ids.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
          ids.flatMap((id) => [id, ...values]),
        );
      await insert([1]); // 5 parameters: prepared
      await insert(numbers(14).map((n) => n + 1)); // 70: as text
      const rows = await sql.query<Record<string, unknown>>('SELECT * FROM statement_values ORDER BY id');
      expect(rows).toHaveLength(15);
      expect(rows[0]).toEqual({ id: 1, text: values[0], moment: values[1], nothing: null, yes: 1 });
      for (const row of rows.slice(1)) expect({ ...row, id: 1 }).toEqual(rows[0]);
    });
  });

  describe('kept per connection', () => {
    let connection: PoolConnection;
    beforeAll(async () => {
      const pool = (t.app.get(DataSource).driver as MysqlDriver).pool as Pool;
      connection = await new Promise((resolve, reject) =>
        pool.getConnection((error, taken) => (error ? reject(error) : resolve(taken))),
      );
    });
    afterAll(() => connection.release());

    const run = <T>(sql: string, values: unknown[]) =>
      new Promise<T>((resolve, reject) =>
        executePrepared(connection, sql, values, (error, rows) => (error ? reject(error) : resolve(rows as T))),
      );
    const preparedSoFar = async () =>
      Number(
        (
          await run<{ n: string }[]>(
            "SELECT VARIABLE_VALUE AS n FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'COM_STMT_PREPARE'",
            [],
          )
        )[0].n,
      );

    it('prepares a statement once and runs it again with other values', async () => {
      await preparedSoFar();
      const before = await preparedSoFar();
      for (const n of [1, 2, 3]) expect(await run<{ n: number }[]>('SELECT ? * 2 AS n', [n])).toEqual([{ n: n * 2 }]);
      expect(await preparedSoFar()).toBe(before + 1);
    });

    it('prepares it again when the server no longer knows it (mysql2 closed it), and answers', async () => {
      const sql = 'SELECT ? + 100 AS n';
      expect(await run<{ n: number }[]>(sql, [1])).toEqual([{ n: 101 }]);
      connection.unprepare(sql); // closes the statement on the server behind the kept handle
      const before = await preparedSoFar();
      expect(await run<{ n: number }[]>(sql, [2])).toEqual([{ n: 102 }]);
      expect(await preparedSoFar()).toBe(before + 1);
    });

    it('answers statements beyond those it keeps, and a failing statement fails with the server error', async () => {
      for (let i = 0; i <= PREPARED_PER_CONNECTION; i++) {
        expect(await run<{ n: number }[]>(`SELECT ? + ${i} AS n`, [1])).toEqual([{ n: 1 + i }]);
      }
      await expect(run('SELECT * FROM no_such_table WHERE id = ?', [1])).rejects.toMatchObject({
        code: 'ER_NO_SUCH_TABLE',
      });
    });
  });
});
