import type { PoolConnection, PrepareStatementInfo } from 'mysql2';
import { errnoOf } from './database-errors.js';

type Callback = (error: Error | null, result: unknown) => void;

/** Statements kept per connection; beyond it a statement runs through mysql2's own `execute` (and its cache). */
export const PREPARED_PER_CONNECTION = 256;
/** The server no longer knows the statement (mysql2 closed it when its own cache evicted it). */
const ER_UNKNOWN_STMT_HANDLER = 1243;
/** Errors after which a pooled connection is not handed out again (mysql2's pool does the same). */
const READ_ONLY_ERRORS = new Set([1290, 1792, 1836]);

const kept = new WeakMap<object, Map<string, PrepareStatementInfo>>();

/**
 * Runs `sql` as a prepared statement of `connection`, prepared once per connection and found again
 * by the very string the caller passes. mysql2's `execute` queues a prepare command before every
 * execution and finds the statement under a key it concatenates from the whole text on each call,
 * which V8 then hashes again: 4 to 5 µs of a two-statement GET (docs/performance.md).
 */
export function executePrepared(
  connection: PoolConnection,
  sql: string,
  values: readonly unknown[],
  callback: Callback,
): void {
  let statements = kept.get(connection);
  if (!statements) kept.set(connection, (statements = new Map()));
  const statement = statements.get(sql);
  if (statement) {
    statement.execute(values as never, (error, result) => {
      if (errnoOf(error) !== ER_UNKNOWN_STMT_HANDLER) return callback(error, result);
      statements.delete(sql);
      prepareAndRun(connection, statements, sql, values, callback);
    });
    return;
  }
  if (statements.size >= PREPARED_PER_CONNECTION) {
    connection.execute(sql, values as never, (error, result) => callback(error, result));
    return;
  }
  prepareAndRun(connection, statements, sql, values, callback);
}

function prepareAndRun(
  connection: PoolConnection,
  statements: Map<string, PrepareStatementInfo>,
  sql: string,
  values: readonly unknown[],
  callback: Callback,
): void {
  connection.prepare(sql, (error, statement) => {
    if (error) return callback(error, undefined);
    statements.set(sql, statement);
    statement.execute(values as never, (failure, result) => callback(failure, result));
  });
}

/** What hands out connections: mysql2's pool, or FailoverPool on a cluster. */
export interface ConnectionSource {
  getConnection(callback: (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void): void;
}

export const isConnectionSource = (on: object): on is ConnectionSource =>
  typeof (on as Partial<ConnectionSource>).getConnection === 'function';

/** One statement on a connection of `pool`, returned to it afterwards (what mysql2's `pool.execute` does). */
export function executePreparedOnPool(
  pool: ConnectionSource,
  sql: string,
  values: readonly unknown[],
  callback: Callback,
): void {
  pool.getConnection((error, connection) => {
    if (error) return callback(error, undefined);
    executePrepared(connection, sql, values, (failure, result) => {
      if (READ_ONLY_ERRORS.has(errnoOf(failure) ?? 0)) connection.destroy();
      else connection.release();
      callback(failure, result);
    });
  });
}
