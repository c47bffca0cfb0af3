import { LOAD_DATA_MIN_ROWS, type Sql, type SqlValue, type WriteResult } from './database.js';
import { RetryTransaction } from './database-errors.js';
import { runTogether } from './statement-batch.js';

function recordingSql(
  compoundStatements: boolean,
  answer: (sql: string) => number = () => 1,
): Sql & { sent: [string, readonly SqlValue[]][]; committing: [string, readonly SqlValue[]][] } {
  const sent: [string, readonly SqlValue[]][] = [];
  const committing: [string, readonly SqlValue[]][] = [];
  return {
    dialect: 'mysql',
    compoundStatements,
    sent,
    committing,
    // MariaDB's transaction can end inside a compound statement; elsewhere the method is missing.
    runCommitting: compoundStatements
      ? async (statements: string, params: readonly SqlValue[]) => {
          committing.push([`BEGIN NOT ATOMIC ${statements}COMMIT; END`, params]);
        }
      : undefined,
    query: async () => [],
    run: async (sql: string, params: readonly SqlValue[] = []): Promise<WriteResult> => {
      sent.push([sql, params]);
      return { insertId: 0, affected: answer(sql) };
    },
    insertRows: async (table, columns, rows) => {
      sent.push([`rows of ${table} (${columns.join(', ')})`, rows.flat()]);
      return { insertId: 0, affected: rows.length };
    },
  };
}

const activity = { sql: "INSERT INTO activity_log (log_name, a) VALUES ('default', ?)", params: ['x'] };
const event = { sql: 'INSERT INTO events (a, b) VALUES (?, ?)', params: [1, null] };

describe('runTogether', () => {
  it('sends several statements as one compound statement where the database takes one, values in order', async () => {
    const sql = recordingSql(true);
    await runTogether(sql, [activity, event]);
    expect(sql.sent).toEqual([[`BEGIN NOT ATOMIC ${activity.sql}; ${event.sql}; END`, ['x', 1, null]]]);
  });

  it('sends them one after the other elsewhere', async () => {
    const sql = recordingSql(false);
    await runTogether(sql, [activity, event]);
    expect(sql.sent).toEqual([
      [activity.sql, ['x']],
      [event.sql, [1, null]],
    ]);
  });

  it('sends a lone statement as it is, and nothing for none', async () => {
    const sql = recordingSql(true);
    await runTogether(sql, [event]);
    await runTogether(sql, []);
    expect(sql.sent).toEqual([[event.sql, [1, null]]]);
  });

  it("sends rows with the statements as a multi-row INSERT, and a bulk write's after them through insertRows", async () => {
    const sql = recordingSql(true);
    const few = {
      table: 'events',
      columns: ['a', 'b'],
      rows: [
        [1, 'x'],
        [2, null],
      ],
    };
    const many = {
      table: 'activity_log',
      columns: ['c'],
      rows: Array.from({ length: LOAD_DATA_MIN_ROWS }, (_, i) => [i]),
    };
    await runTogether(sql, [many, activity, few]);
    expect(sql.sent).toEqual([
      [
        `BEGIN NOT ATOMIC ${activity.sql}; INSERT INTO \`events\` (\`a\`, \`b\`) VALUES (?, ?), (?, ?); END`,
        ['x', 1, 'x', 2, null],
      ],
      ['rows of activity_log (c)', many.rows.flat()],
    ]);
  });

  describe("with the transaction's last statements", () => {
    it('sends its COMMIT in their compound statement, a lone statement too, where the transaction can end there', async () => {
      const sql = recordingSql(true);
      await runTogether(sql, [activity, event], { last: true });
      await runTogether(sql, [event], { last: true });
      expect(sql.sent).toEqual([]);
      expect(sql.committing).toEqual([
        [`BEGIN NOT ATOMIC ${activity.sql}; ${event.sql}; COMMIT; END`, ['x', 1, null]],
        [`BEGIN NOT ATOMIC ${event.sql}; COMMIT; END`, [1, null]],
      ]);
    });

    it('leaves the COMMIT to the transaction where it cannot, for no statement, and when bulk rows follow them', async () => {
      const apart = recordingSql(false);
      await runTogether(apart, [activity, event], { last: true });
      expect(apart.sent).toEqual([
        [activity.sql, ['x']],
        [event.sql, [1, null]],
      ]);
      const sql = recordingSql(true);
      await runTogether(sql, [], { last: true });
      const many = { table: 'events', columns: ['a'], rows: Array.from({ length: LOAD_DATA_MIN_ROWS }, (_, i) => [i]) };
      await runTogether(sql, [activity, event, many], { last: true });
      expect(sql.committing).toEqual([]);
      expect(sql.sent).toEqual([
        [`BEGIN NOT ATOMIC ${activity.sql}; ${event.sql}; END`, ['x', 1, null]],
        ['rows of events (a)', many.rows.flat()],
      ]);
    });

    it('runs the transaction again when a guard signals before the COMMIT', async () => {
      const sql = recordingSql(true);
      sql.runCommitting = async () => {
        throw Object.assign(new Error('guard 0'), { errno: 1644, sqlMessage: 'guard 0' });
      };
      const guarded = { sql: 'UPDATE shares SET n = n - 1 WHERE id = ?', params: [7], mustChange: 'no room' };
      await expect(runTogether(sql, [event, guarded], { last: true })).rejects.toThrow(new RetryTransaction('no room'));
    });
  });

  describe('with a statement that must change a row', () => {
    const guarded = { sql: 'UPDATE shares SET n = n - 1 WHERE id = ? AND n >= 1', params: [7], mustChange: 'no room' };

    it('sends it first, followed by a signal when it changed nothing', async () => {
      const sql = recordingSql(true);
      await runTogether(sql, [activity, guarded, event]);
      expect(sql.sent).toEqual([
        [
          `BEGIN NOT ATOMIC ${guarded.sql}; IF ROW_COUNT() = 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'guard 0'; END IF; ${activity.sql}; ${event.sql}; END`,
          [7, 'x', 1, null],
        ],
      ]);
    });

    it('runs the transaction again when the compound statement signals that guard, and passes any other error on', async () => {
      const signalling = (message: string) => {
        const sql = recordingSql(true);
        sql.run = async () => {
          throw Object.assign(new Error(message), { errno: 1644, sqlMessage: message });
        };
        return sql;
      };
      await expect(runTogether(signalling('guard 0'), [guarded, event])).rejects.toThrow(
        new RetryTransaction('no room'),
      );
      await expect(runTogether(signalling('guard 1'), [guarded, event])).rejects.toThrow('guard 1');
      await expect(runTogether(signalling('other'), [guarded, event])).rejects.toThrow('other');
    });

    it('one after the other, stops at it and runs the transaction again when it changed nothing', async () => {
      const sql = recordingSql(false, (text) => (text === guarded.sql ? 0 : 1));
      await expect(runTogether(sql, [activity, guarded, event])).rejects.toBeInstanceOf(RetryTransaction);
      expect(sql.sent).toEqual([[guarded.sql, [7]]]);
      const alone = recordingSql(true, () => 0);
      await expect(runTogether(alone, [guarded])).rejects.toThrow('no room');
    });
  });
});
