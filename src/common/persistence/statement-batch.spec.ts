import type { Sql, SqlValue, WriteResult } from './database.js';
import { runTogether } from './statement-batch.js';

function recordingSql(compoundStatements: boolean): Sql & { sent: [string, readonly SqlValue[]][] } {
  const sent: [string, readonly SqlValue[]][] = [];
  return {
    dialect: 'mysql',
    compoundStatements,
    sent,
    query: async () => [],
    run: async (sql: string, params: readonly SqlValue[] = []): Promise<WriteResult> => {
      sent.push([sql, params]);
      return { insertId: 0, affected: 1 };
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
});
