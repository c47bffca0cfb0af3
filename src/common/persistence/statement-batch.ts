import { RetryTransaction, signalledMessage } from './database-errors.js';
import { LOAD_DATA_MIN_ROWS } from './load-data.js';
import { insertStatement, type RowsInsert } from './rows-insert.js';
import type { Sql } from './sql.js';
import type { SqlValue } from './sql-text.js';

/** How a MariaDB compound statement begins (it ends in `END`). */
export const COMPOUND_BEGIN = 'BEGIN NOT ATOMIC ';

/** One statement and its values. */
export interface Statement {
  sql: string;
  params: SqlValue[];
  /**
   * Set on a statement that must change a row: when it changes none, the transaction is run again
   * (RetryTransaction, with this as the reason), and the writer takes another way on that attempt.
   */
  mustChange?: string;
}

/** How runTogether sends its statements. */
export interface TogetherOptions {
  /**
   * They are the transaction's last statements: where the transaction can end inside a compound
   * statement (Sql.runCommitting, MariaDB), its COMMIT goes with them, saving the COMMIT's round trip.
   */
  last?: boolean;
}

/** The text a compound statement signals when a guarded statement changed nothing: `guard <index>`. */
const GUARD_MESSAGE = /^guard (\d+)$/;

/**
 * Runs statements of one transaction in order, the guarded ones (`mustChange`) first. On MariaDB
 * they go in one round trip, as one compound statement (`BEGIN NOT ATOMIC s1; s2; END`, prepared
 * like any other: a write's activity entries and its events), where a guarded statement that
 * changed nothing signals and stops the rest; elsewhere one after the other. Either way the
 * transaction they are in makes them all or none. Rows to insert go with them as a multi-row
 * INSERT, or, from LOAD_DATA_MIN_ROWS rows (a bulk write's), after them through Sql.insertRows
 * (LOAD DATA on MariaDB).
 */
export async function runTogether(
  sql: Sql,
  work: readonly (Statement | RowsInsert)[],
  options: TogetherOptions = {},
): Promise<void> {
  const statements: Statement[] = [];
  const apart: RowsInsert[] = [];
  for (const item of work) {
    if (!('rows' in item)) statements.push(item);
    else if (item.rows.length >= LOAD_DATA_MIN_ROWS) apart.push(item);
    else statements.push(insertStatement(item));
  }
  await runStatements(sql, statements, options.last === true && apart.length === 0);
  for (const insert of apart) await sql.insertRows(insert.table, insert.columns, insert.rows);
}

async function runStatements(sql: Sql, statements: readonly Statement[], last: boolean): Promise<void> {
  const ordered = statements.some((statement) => statement.mustChange)
    ? [
        ...statements.filter((statement) => statement.mustChange),
        ...statements.filter((statement) => !statement.mustChange),
      ]
    : statements;
  const committing = last && ordered.length > 0 && sql.runCommitting !== undefined;
  if (committing || (ordered.length > 1 && sql.compoundStatements)) {
    // Built with loops: this runs in every write (flatMap and join were 1 % of a create's CPU).
    let body = '';
    const params: SqlValue[] = [];
    for (let index = 0; index < ordered.length; index++) {
      const statement = ordered[index];
      body += statement.mustChange
        ? `${statement.sql}; IF ROW_COUNT() = 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'guard ${index}'; END IF; `
        : `${statement.sql}; `;
      for (const value of statement.params) params.push(value);
    }
    try {
      if (committing) await sql.runCommitting!(body, params);
      else await sql.run(`${COMPOUND_BEGIN}${body}END`, params);
    } catch (error) {
      const guard = GUARD_MESSAGE.exec(signalledMessage(error) ?? '');
      const reason = guard && ordered[Number(guard[1])]?.mustChange;
      if (reason) throw new RetryTransaction(reason);
      throw error;
    }
    return;
  }
  for (const statement of ordered) {
    const { affected } = await sql.run(statement.sql, statement.params);
    if (statement.mustChange && affected === 0) throw new RetryTransaction(statement.mustChange);
  }
}
