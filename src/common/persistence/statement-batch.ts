import type { Sql, SqlValue } from './database.js';

/** One statement and its values. */
export interface Statement {
  sql: string;
  params: SqlValue[];
}

/**
 * Runs statements of one transaction in order. On MariaDB they go in one round trip, as one
 * compound statement (`BEGIN NOT ATOMIC s1; s2; END`, prepared like any other: a write's activity
 * entries and its events); elsewhere one after the other. Either way the transaction they are in
 * makes them all or none.
 */
export async function runTogether(sql: Sql, statements: readonly Statement[]): Promise<void> {
  if (statements.length > 1 && sql.compoundStatements) {
    await sql.run(
      `BEGIN NOT ATOMIC ${statements.map((statement) => statement.sql).join('; ')}; END`,
      statements.flatMap((statement) => statement.params),
    );
    return;
  }
  for (const statement of statements) await sql.run(statement.sql, statement.params);
}
