import type { ResultSetHeader } from 'mysql2';
import type { InsertOptions, Sql, WriteResult } from './sql.js';
import type { SqlValue } from './sql-text.js';
import { LOAD_DATA_MIN_ROWS } from './load-data.js';
import { COMPOUND_BEGIN } from './statement-batch.js';
import { insertStatement } from './rows-insert.js';

/** Sends one statement on the transaction's connection; `prepared: false` for transaction control. */
export type SendStatement = <T>(sql: string, params: readonly SqlValue[], prepared?: boolean) => Promise<T>;

/** LOAD DATA of rows on the transaction's connection, where the server takes it. */
export type LoadRows = (
  table: string,
  columns: readonly string[],
  rows: readonly (readonly SqlValue[])[],
) => Promise<WriteResult>;

const SELECT = /^\s*SELECT\s/i;

/**
 * The statements of one transaction on one MySQL/MariaDB connection. On MariaDB its
 * `START TRANSACTION` goes in one compound statement with its first statement when that is a SELECT
 * or an INSERT of new rows, and its `COMMIT` with its last statements (runCommitting): a create is
 * then two round trips, its INSERT and its activity entry with its event (docs/performance.md).
 * Otherwise `START TRANSACTION` goes alone, before the first statement. A transaction that sent no
 * statement sends neither.
 */
export class MysqlTransaction implements Sql {
  readonly dialect = 'mysql';
  readonly runCommitting?: (statements: string, params: readonly SqlValue[]) => Promise<void>;
  private started = false;
  private committed = false;

  /** `mariadb`: the server runs compound statements outside a stored program (MySQL does not). */
  constructor(
    private readonly send: SendStatement,
    readonly compoundStatements: boolean,
    private readonly loadRows: LoadRows | undefined,
  ) {
    if (compoundStatements) this.runCommitting = (statements, params) => this.commitWith(statements, params);
  }

  /** READ COMMITTED applies to the next transaction: it is started at once, so no later one inherits it. */
  async begin(isolation?: 'read committed'): Promise<void> {
    if (isolation) await this.send('SET TRANSACTION ISOLATION LEVEL READ COMMITTED', [], false);
    if (isolation || !this.compoundStatements) await this.start();
  }

  /** COMMIT, unless the last statements carried it or no statement was sent. */
  async end(): Promise<void> {
    if (this.started && !this.committed) await this.send('COMMIT', [], false);
  }

  /** ROLLBACK after a failure; false when it failed too (the connection is then in an unknown state). */
  async rollback(): Promise<boolean> {
    if (!this.started) return true;
    return this.send('ROLLBACK', [], false).then(
      () => true,
      () => false,
    );
  }

  async query<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    if (this.committed) return afterCommit();
    if (!this.started && this.compoundStatements && SELECT.test(sql)) {
      const [rows] = await this.sendCompound<[T[], ResultSetHeader]>(`${sql}; `, params);
      return rows;
    }
    if (!this.started) await this.start();
    return this.send<T[]>(sql, params);
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<WriteResult> {
    if (this.committed) return afterCommit();
    if (!this.started) await this.start();
    return mysqlWriteResult(await this.send<ResultSetHeader>(sql, params));
  }

  async insertRows(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly SqlValue[])[],
    options: InsertOptions = {},
  ): Promise<WriteResult> {
    if (this.committed) return afterCommit();
    if (this.loadRows && rows.length >= LOAD_DATA_MIN_ROWS && options.loadData !== false) {
      if (!this.started) await this.start();
      return this.loadRows(table, columns, rows);
    }
    const { sql, params } = insertStatement({ table, columns, rows });
    // LAST_INSERT_ID() is the OK packet's insert id only for rows whose id the server gives: an
    // INSERT that names its ids keeps START TRANSACTION apart. The reset makes a table without an
    // AUTO_INCREMENT column answer 0, as the OK packet does.
    if (this.started || !this.compoundStatements || columns.includes('id')) return this.run(sql, params);
    const [[written]] = await this.sendCompound<
      [[{ affected: number | string; insert_id: number | string }], ResultSetHeader]
    >(`DO LAST_INSERT_ID(0); ${sql}; SELECT ROW_COUNT() AS affected, LAST_INSERT_ID() AS insert_id; `, params);
    return { insertId: Number(written.insert_id), affected: Number(written.affected) };
  }

  /** Callers test `started` first, so that a statement of a started transaction awaits nothing more. */
  private async start(): Promise<void> {
    this.started = true;
    await this.send('START TRANSACTION', [], false);
  }

  /** `statements` (each ending in `; `) as one compound statement, led by START TRANSACTION when this is the first round trip. */
  private sendCompound<T>(statements: string, params: readonly SqlValue[]): Promise<T> {
    const start = this.started ? '' : 'START TRANSACTION; ';
    this.started = true;
    return this.send<T>(`${COMPOUND_BEGIN}${start}${statements}END`, params);
  }

  private async commitWith(statements: string, params: readonly SqlValue[]): Promise<void> {
    if (this.committed) return afterCommit();
    await this.sendCompound(`${statements}COMMIT; `, params);
    this.committed = true;
  }
}

export function mysqlWriteResult(header: ResultSetHeader): WriteResult {
  return { insertId: Number(header.insertId ?? 0), affected: Number(header.affectedRows ?? 0) };
}

/** A statement after runCommitting would run outside the transaction, in autocommit: refused. */
const afterCommit = (): Promise<never> => Promise.reject(new Error('The transaction has already committed.'));
