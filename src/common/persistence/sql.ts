import type { SqlValue } from './sql-text.js';

export type { SqlValue } from './sql-text.js';

export type Dialect = 'mysql' | 'sqlite';

export interface WriteResult {
  /** The id an INSERT gave its row. */
  insertId: number;
  /** Rows an UPDATE or DELETE changed. */
  affected: number;
}

export interface InsertOptions {
  /** False: as an INSERT statement, never as LOAD DATA (a table declared ConcurrentBulkInserts). */
  loadData?: boolean;
}

/** Runs SQL: the application's one way to the database outside start-up (migrations, seeds). */
export interface Sql {
  readonly dialect: Dialect;
  query<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  run(sql: string, params?: readonly SqlValue[]): Promise<WriteResult>;
  /**
   * Inserts rows (each the values of `columns`, in order) with one statement: its `insertId` is the
   * first row's id on MySQL/MariaDB, the last one's on SQLite, as a multi-row INSERT answers.
   */
  insertRows(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly SqlValue[])[],
    options?: InsertOptions,
  ): Promise<WriteResult>;
  /** MariaDB in a transaction: several statements may go as one `BEGIN NOT ATOMIC … END` (runTogether). */
  readonly compoundStatements?: boolean;
  /**
   * MariaDB in a transaction: runs `statements` (each ending in `; `) and the COMMIT as one compound
   * statement (runTogether's `last` statements). The transaction then sends no COMMIT of its own
   * and takes no further statement.
   */
  runCommitting?(statements: string, params: readonly SqlValue[]): Promise<void>;
}
