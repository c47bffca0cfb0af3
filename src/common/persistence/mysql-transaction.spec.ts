import { LOAD_DATA_MIN_ROWS } from './load-data.js';
import { MysqlTransaction, type SendStatement } from './mysql-transaction.js';
import type { SqlValue } from './sql-text.js';

/** A transaction over a recording connection: `answer` gives each statement's result. */
function recorded(mariadb: boolean, answer: (sql: string) => unknown = () => ({ insertId: 0, affectedRows: 1 })) {
  const sent: [string, readonly SqlValue[]][] = [];
  const send = (async (sql: string, params: readonly SqlValue[]) => {
    sent.push([sql, params]);
    const result = answer(sql);
    if (result instanceof Error) throw result;
    return result;
  }) as SendStatement;
  const loaded: string[] = [];
  const tx = new MysqlTransaction(send, mariadb, async (table, _columns, rows) => {
    loaded.push(`${rows.length} rows of ${table}`);
    return { insertId: 1, affected: rows.length };
  });
  return { tx, sent, loaded, statements: () => sent.map(([sql]) => sql) };
}

const INSERT = 'INSERT INTO `customers` (`tenant_id`, `email`) VALUES (?, ?)';
/** The last statements of a write, as runTogether hands them over, and the compound statement they go in. */
const LAST = 'INSERT INTO activity_log (a) VALUES (?); INSERT INTO events (b) VALUES (?); ';
const ENTRY = `BEGIN NOT ATOMIC ${LAST}COMMIT; END`;

describe('MysqlTransaction on MariaDB', () => {
  it('sends START TRANSACTION with an INSERT of new rows first, and the COMMIT with the last statements: two round trips', async () => {
    const { tx, sent } = recorded(true, (sql) =>
      sql.includes('LAST_INSERT_ID()') ? [[{ affected: 1, insert_id: '41' }], {}] : {},
    );
    await tx.begin();
    expect(await tx.insertRows('customers', ['tenant_id', 'email'], [[7, 'a@example.com']])).toEqual({
      insertId: 41,
      affected: 1,
    });
    await tx.runCommitting!(LAST, ['x', 'y']);
    await tx.end();
    expect(sent).toEqual([
      [
        `BEGIN NOT ATOMIC START TRANSACTION; DO LAST_INSERT_ID(0); ${INSERT}; SELECT ROW_COUNT() AS affected, LAST_INSERT_ID() AS insert_id; END`,
        [7, 'a@example.com'],
      ],
      [ENTRY, ['x', 'y']],
    ]);
  });

  it('sends START TRANSACTION with a SELECT first and answers its rows; later statements go as they are', async () => {
    const rows = [{ id: 3 }];
    const { tx, statements } = recorded(true, (sql) => (sql.startsWith('BEGIN') ? [rows, {}] : [{ id: 4 }]));
    await tx.begin();
    expect(await tx.query('SELECT id FROM customers WHERE id = ? FOR UPDATE', [3])).toBe(rows);
    expect(await tx.query('SELECT id FROM customers WHERE id = ?', [4])).toEqual([{ id: 4 }]);
    await tx.end();
    expect(statements()).toEqual([
      'BEGIN NOT ATOMIC START TRANSACTION; SELECT id FROM customers WHERE id = ? FOR UPDATE; END',
      'SELECT id FROM customers WHERE id = ?',
      'COMMIT',
    ]);
  });

  it('sends START TRANSACTION alone before an UPDATE, an INSERT that names its ids, and a bulk load', async () => {
    for (const first of [
      (tx: MysqlTransaction) => tx.run('UPDATE customers SET email = ? WHERE id = ?', ['b@example.com', 3]),
      (tx: MysqlTransaction) => tx.insertRows('customers', ['id', 'email'], [[9, 'c@example.com']]),
      (tx: MysqlTransaction) =>
        tx.insertRows(
          'customers',
          ['email'],
          Array.from({ length: LOAD_DATA_MIN_ROWS }, (_, i) => [`${i}@example.com`]),
        ),
    ]) {
      const { tx, statements, loaded } = recorded(true);
      await tx.begin();
      await first(tx);
      await tx.end();
      expect(statements()[0]).toBe('START TRANSACTION');
      expect(statements().at(-1)).toBe('COMMIT');
      expect(statements().length + loaded.length).toBe(3);
    }
  });

  it('loads many rows as LOAD DATA, unless the insert asks for an INSERT statement (ConcurrentBulkInserts)', async () => {
    const rows = Array.from({ length: LOAD_DATA_MIN_ROWS }, (_, i) => [`${i}@example.com`]);
    const loading = recorded(true);
    await loading.tx.insertRows('customers', ['email'], rows);
    expect(loading.loaded).toEqual([`${LOAD_DATA_MIN_ROWS} rows of customers`]);
    const inserting = recorded(true, (sql) =>
      sql.includes('LAST_INSERT_ID()') ? [[{ affected: rows.length, insert_id: '5' }], {}] : {},
    );
    expect(await inserting.tx.insertRows('customer_events', ['email'], rows, { loadData: false })).toEqual({
      insertId: 5,
      affected: rows.length,
    });
    expect(inserting.loaded).toEqual([]);
    expect(inserting.statements()[0]).toContain('INSERT INTO `customer_events` (`email`) VALUES (?), (?)');
  });

  it('starts at once for READ COMMITTED, so that no later transaction of the connection inherits the level', async () => {
    const { tx, statements } = recorded(true);
    await tx.begin('read committed');
    await tx.end();
    expect(statements()).toEqual(['SET TRANSACTION ISOLATION LEVEL READ COMMITTED', 'START TRANSACTION', 'COMMIT']);
  });

  it('sends nothing for a transaction without statements, and the whole of one that only commits in one round trip', async () => {
    const empty = recorded(true);
    await empty.tx.begin();
    await empty.tx.end();
    expect(await empty.tx.rollback()).toBe(true);
    expect(empty.sent).toEqual([]);
    const lone = recorded(true);
    await lone.tx.begin();
    await lone.tx.runCommitting!(LAST, ['x', 'y']);
    await lone.tx.end();
    expect(lone.statements()).toEqual([ENTRY.replace('BEGIN NOT ATOMIC ', 'BEGIN NOT ATOMIC START TRANSACTION; ')]);
  });

  it('refuses a statement once committed: it would run outside the transaction', async () => {
    const { tx, sent } = recorded(true);
    await tx.begin();
    await tx.runCommitting!(LAST, []);
    await expect(tx.run('DELETE FROM customers')).rejects.toThrow('The transaction has already committed.');
    await expect(tx.query('SELECT 1')).rejects.toThrow('The transaction has already committed.');
    await expect(tx.insertRows('customers', ['email'], [['d@example.com']])).rejects.toThrow('already committed');
    await expect(tx.runCommitting!(LAST, [])).rejects.toThrow('already committed');
    expect(sent).toHaveLength(1);
  });

  it('rolls back a started transaction, and tells when the rollback itself failed', async () => {
    const { tx, statements } = recorded(true);
    await tx.begin();
    await tx.run('UPDATE customers SET email = NULL');
    expect(await tx.rollback()).toBe(true);
    expect(statements()).toEqual(['START TRANSACTION', 'UPDATE customers SET email = NULL', 'ROLLBACK']);
    const broken = recorded(true, (sql) => (sql === 'ROLLBACK' ? new Error('connection lost') : {}));
    await broken.tx.begin();
    await broken.tx.run('UPDATE customers SET email = NULL');
    expect(await broken.tx.rollback()).toBe(false);
  });
});

describe('MysqlTransaction on MySQL (no compound statements)', () => {
  it('sends START TRANSACTION first and COMMIT last, each alone, and has no runCommitting', async () => {
    const { tx, statements } = recorded(false, (sql) => (sql.startsWith('SELECT') ? [] : {}));
    expect(tx.runCommitting).toBeUndefined();
    await tx.begin();
    await tx.query('SELECT 1');
    await tx.insertRows('customers', ['email'], [['e@example.com']]);
    await tx.end();
    expect(statements()).toEqual([
      'START TRANSACTION',
      'SELECT 1',
      'INSERT INTO `customers` (`email`) VALUES (?)',
      'COMMIT',
    ]);
  });
});
