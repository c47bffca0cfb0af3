import { Readable } from 'node:stream';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, PoolConnection, ResultSetHeader } from 'mysql2';
import type { DataSource, QueryRunner } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver.js';
import { ApiException } from '../http/api-exception.js';
import { isRetryableConflict, RetryTransaction } from './database-errors.js';
import { loadDataStatement, loadDataText } from './load-data.js';
import { MysqlTransaction, mysqlWriteResult } from './mysql-transaction.js';
import { mysqlPoolStats, type PoolStats } from './pool-stats.js';
import { executePrepared, executePreparedOnPool, isConnectionSource } from './prepared-statements.js';
import { insertStatement } from './rows-insert.js';
import type { Dialect, Sql, WriteResult } from './sql.js';
import { statementText, type SqlValue } from './sql-text.js';

export type { Dialect, Sql, WriteResult } from './sql.js';
export type { SqlValue } from './sql-text.js';
export { LOAD_DATA_MIN_ROWS } from './load-data.js';

/** Options of one transaction. */
export interface TransactionOptions {
  /** READ COMMITTED for a transaction that scans rows others are inserting (no gap locks); REPEATABLE READ otherwise. */
  isolation?: 'read committed';
}

/**
 * A pool that sends writes to one node of several (src/database/mysql-pool.ts, FailoverPool on a
 * Galera cluster); a plain pool has one server and no such methods.
 */
interface WriterRouting {
  getWriterConnection(callback: (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void): void;
  executeOnWriter(sql: string, values: unknown[], callback: (error: Error | null, result: unknown) => void): void;
  queryOnWriter(sql: string, callback: (error: Error | null, result: unknown) => void): void;
}

/**
 * A statement with more parameters than this (a multi-row INSERT, a long IN list: the bulk paths)
 * goes as text, its values escaped by mysql2, not as a prepared statement: mysql2 keeps every
 * prepared statement of a connection with a definition object per parameter (a 1,000-row INSERT
 * holds 10,000), which filled the heap during a 1,000,000-row import; and a statement run once
 * saves the PREPARE round trip.
 */
const MAX_PREPARED_PARAMS = 64;

const routesWrites = (pool: unknown): pool is WriterRouting =>
  typeof (pool as Partial<WriterRouting>).getWriterConnection === 'function';

/** Attempts of a transaction that keeps losing deadlock / lock-wait / certification conflicts. */
export const TRANSACTION_ATTEMPTS = 12;
/** The longest pause between two attempts (the pauses grow from 10 ms). */
const MAX_BACKOFF_MS = 1_000;
export const CONFLICT_RETRY_AFTER_SECONDS = 1;

/**
 * Parameterised statements the callers compose (the generic resource layer composes them from
 * entity metadata once per table), on the connections of TypeORM's data source. Transactions are
 * retried from their start when the database resolves a conflict by aborting them (a deadlock, a
 * lock-wait timeout, or a Galera certification failure); when the attempts run out the answer is 503.
 *
 * MySQL/MariaDB: prepared statements (prepared once per connection: prepared-statements.ts) on the data source's
 * own pool: TypeORM's query runner wraps each statement in promises, events and copies that cost
 * more than the statement itself on a cheap request (docs/performance.md). Every statement still
 * goes through the data source's logger.
 *
 * SQLite is one connection for the whole process: its transactions and statements take turns, so
 * that one request never sees another's uncommitted rows (nor nests a transaction inside it).
 */
@Injectable()
export class Database implements Sql, OnModuleInit {
  readonly dialect: Dialect;
  /** The server is MariaDB, which runs a compound statement outside a stored program (MySQL does not). */
  private mariadb = false;
  /** The server takes LOAD DATA LOCAL INFILE (`@@local_infile`). */
  private loadData = false;
  /** Transactions run again because a concurrent one won a conflict (for the cluster figures). */
  conflictRetries = 0;
  private sqliteTurn: Promise<unknown> = Promise.resolve();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.dialect = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
  }

  async onModuleInit(): Promise<void> {
    if (this.dialect !== 'mysql') return;
    const [row] = await this.query<{ version: string; local_infile: number | string }>(
      'SELECT VERSION() AS version, @@local_infile AS local_infile',
    );
    this.mariadb = /mariadb/i.test(row?.version ?? '');
    this.loadData = Number(row?.local_infile) === 1;
  }

  query<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    if (this.dialect === 'mysql') return this.execute<T[]>(this.pool(), sql, params);
    return this.inTurn(() => this.dataSource.query<T[]>(sql, this.bind(params)));
  }

  /** One autocommit write (on a cluster, on the writer node). */
  async run(sql: string, params: readonly SqlValue[] = []): Promise<WriteResult> {
    if (this.dialect === 'mysql') return mysqlWriteResult(await this.executeOnWriter<ResultSetHeader>(sql, params));
    return this.inTurn(async () => {
      const runner = this.dataSource.createQueryRunner();
      try {
        return writeResult(await runner.query(sql, this.bind(params), true));
      } finally {
        await runner.release();
      }
    });
  }

  insertRows(table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<WriteResult> {
    const { sql, params } = insertStatement({ table, columns, rows });
    return this.run(sql, params);
  }

  /**
   * Runs `work` in one transaction. The whole of `work` is run again, with the next attempt's number,
   * when the database aborts it on a conflict or `work` throws RetryTransaction (it lost a race the
   * database could not see, such as two upserts creating one key).
   */
  transaction<T>(work: (tx: Sql, attempt: number) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return this.retryingConflicts((attempt) => this.inTurn(() => this.once(work, attempt, options)));
  }

  /**
   * The one retry policy: runs `attemptOnce` (a transaction, or one autocommit statement) again when
   * it lost to a concurrent one, with a jittered backoff; 503 when the attempts run out.
   */
  async retryingConflicts<T>(attemptOnce: (attempt: number) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await attemptOnce(attempt);
      } catch (error) {
        if (!isRetryableConflict(error) && !(error instanceof RetryTransaction)) throw error;
        if (attempt >= TRANSACTION_ATTEMPTS) {
          throw new ApiException(
            503,
            { message: 'Service Unavailable: the change kept conflicting with concurrent changes. Try again shortly.' },
            { 'retry-after': String(CONFLICT_RETRY_AFTER_SECONDS) },
          );
        }
        this.conflictRetries++;
        // Jittered exponential backoff (10 ms, 20 ms, 40 ms, ... up to 1 s, each ±50 %), so that
        // writers that collided do not collide again in step.
        await sleep(Math.min(MAX_BACKOFF_MS, 10 * 2 ** (attempt - 1)) * (0.5 + Math.random()));
      }
    }
  }

  private async once<T>(
    work: (tx: Sql, attempt: number) => Promise<T>,
    attempt: number,
    options: TransactionOptions,
  ): Promise<T> {
    if (this.dialect === 'mysql') return this.onceOnMysql(work, attempt, options);
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const result = await work(this.inTransaction(runner), attempt);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  private async onceOnMysql<T>(
    work: (tx: Sql, attempt: number) => Promise<T>,
    attempt: number,
    options: TransactionOptions,
  ): Promise<T> {
    const pool = this.pool();
    const connection = await new Promise<PoolConnection>((resolve, reject) => {
      const take = (error: NodeJS.ErrnoException | null, conn: PoolConnection) =>
        error ? reject(error) : resolve(conn);
      if (routesWrites(pool)) pool.getWriterConnection(take);
      else pool.getConnection(take);
    });
    let broken = false;
    const tx = new MysqlTransaction(
      (sql, params, prepared) => this.execute(connection, sql, params, prepared),
      this.mariadb,
      this.loadData ? (table, columns, rows) => this.loadRows(connection, table, columns, rows) : undefined,
    );
    try {
      await tx.begin(options.isolation);
      const result = await work(tx, attempt);
      await tx.end();
      return result;
    } catch (error) {
      broken = !(await tx.rollback());
      throw error;
    } finally {
      // A connection whose rollback failed is in an unknown state: it leaves the pool.
      if (broken) connection.destroy();
      else connection.release();
    }
  }

  /** One statement; `prepared: false` for statements the binary protocol does not take (transaction control). */
  private execute<T>(on: Pool | PoolConnection, sql: string, params: readonly SqlValue[], prepared = true): Promise<T> {
    this.dataSource.logger.logQuery(sql, params as unknown[]);
    return new Promise<T>((resolve, reject) => {
      const done = (error: Error | null, result: unknown) => (error ? reject(error) : resolve(result as T));
      if (!prepared) on.query(sql, done);
      else if (params.length > MAX_PREPARED_PARAMS) on.query(statementText(sql, params), done);
      else if (isConnectionSource(on)) executePreparedOnPool(on, sql, params, done);
      else executePrepared(on, sql, params, done);
    });
  }

  /**
   * LOAD DATA LOCAL INFILE of `rows`, then the first row's id. The server skips a row it cannot
   * store as given (a duplicate key, a value it would change) with a warning where an INSERT fails:
   * any warning fails the load as that INSERT would have failed (ER_DUP_ENTRY for a duplicate key),
   * and the caller's transaction rolls back.
   */
  private async loadRows(
    connection: PoolConnection,
    table: string,
    columns: readonly string[],
    rows: readonly (readonly SqlValue[])[],
  ): Promise<WriteResult> {
    const sql = loadDataStatement(table, columns);
    this.dataSource.logger.logQuery(sql);
    const data = loadDataText(rows);
    const header = await new Promise<ResultSetHeader>((resolve, reject) =>
      connection.query<ResultSetHeader>({ sql, infileStreamFactory: () => Readable.from([data]) }, (error, result) =>
        error ? reject(error) : resolve(result),
      ),
    );
    if (header.warningStatus > 0 || header.affectedRows !== rows.length) {
      const [warning] = await this.execute<{ Code: number; Message: string }[]>(connection, 'SHOW WARNINGS', [], false);
      throw Object.assign(
        new Error(warning?.Message ?? `LOAD DATA wrote ${header.affectedRows} of ${rows.length} rows`),
        {
          errno: warning?.Code,
          code: warning?.Code === 1062 ? 'ER_DUP_ENTRY' : 'ER_LOAD_DATA_WARNING',
          sqlMessage: warning?.Message,
        },
      );
    }
    const [first] = await this.execute<{ id: number | string }[]>(
      connection,
      'SELECT LAST_INSERT_ID() AS id',
      [],
      false,
    );
    return { insertId: Number(first.id), affected: header.affectedRows };
  }

  private executeOnWriter<T>(sql: string, params: readonly SqlValue[]): Promise<T> {
    const pool = this.pool();
    if (!routesWrites(pool)) return this.execute<T>(pool, sql, params);
    this.dataSource.logger.logQuery(sql, params as unknown[]);
    return new Promise<T>((resolve, reject) => {
      const done = (error: Error | null, result: unknown) => (error ? reject(error) : resolve(result as T));
      if (params.length > MAX_PREPARED_PARAMS) pool.queryOnWriter(statementText(sql, params), done);
      else pool.executeOnWriter(sql, params as SqlValue[], done);
    });
  }

  /**
   * The pool's connections in use and idle, and the requests waiting for one (GET /metrics): one
   * pool, `main`, or one per node of a cluster. None on SQLite (one connection, no pool), once
   * closed, or if mysql2's internals change.
   */
  poolStats(): PoolStats[] {
    if (this.dialect !== 'mysql') return [];
    const pool = (this.dataSource.driver as MysqlDriver).pool as (Pool & { stats?: () => PoolStats[] }) | undefined;
    if (!pool) return [];
    if (typeof pool.stats === 'function') return pool.stats();
    const stats = mysqlPoolStats('main', pool);
    return stats ? [stats] : [];
  }

  private pool(): Pool {
    const pool = (this.dataSource.driver as MysqlDriver).pool as Pool | undefined;
    if (!pool) throw Object.assign(new Error('Pool is closed'), { code: 'PROTOCOL_CONNECTION_LOST' });
    return pool;
  }

  private inTransaction(runner: QueryRunner): Sql {
    return {
      dialect: this.dialect,
      query: (sql, params = []) => runner.query(sql, this.bind(params)),
      run: async (sql, params = []) => writeResult(await runner.query(sql, this.bind(params), true)),
      insertRows: async (table, columns, rows) => {
        const { sql, params } = insertStatement({ table, columns, rows });
        return writeResult(await runner.query(sql, this.bind(params), true));
      },
    };
  }

  /** SQLite takes every statement and transaction in turn; MySQL/MariaDB have a pool. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.dialect === 'mysql') return work();
    const turn = this.sqliteTurn.then(work);
    this.sqliteTurn = turn.catch(() => undefined);
    return turn;
  }

  /** Values as the driver binds them: SQLite keeps instants as UTC text, as TypeORM writes them. */
  private bind(params: readonly SqlValue[]): unknown[] {
    if (this.dialect === 'mysql') return params as unknown[];
    return params.map((value) =>
      value instanceof Date ? sqliteDateTime(value) : typeof value === 'boolean' ? Number(value) : value,
    );
  }
}

function writeResult(result: { raw: unknown; affected?: number | null }): WriteResult {
  const raw = result.raw as { insertId?: number | string } | number | bigint | undefined;
  const insertId = typeof raw === 'object' && raw !== null ? Number(raw.insertId ?? 0) : Number(raw ?? 0);
  return { insertId, affected: Number(result.affected ?? 0) };
}

/** `YYYY-MM-DD HH:MM:SS.SSS` in UTC, the text TypeORM stores SQLite datetimes as. */
export const sqliteDateTime = (date: Date): string => date.toISOString().replace('T', ' ').replace('Z', '');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
