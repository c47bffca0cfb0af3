import type { DataSource, EntityManager } from 'typeorm';

/**
 * The embedded SQLite database is one connection shared by every request, so two transactions
 * that overlap in time would nest ("cannot start a transaction within a transaction") or mix their
 * statements. On SQLite, transactions started through the data source therefore wait for the one
 * in progress (SQLite has a single writer anyway). MySQL/MariaDB use a pool and are left alone.
 */
export function serializeTransactionsOnSqlite(dataSource: DataSource): DataSource {
  if (dataSource.options.type !== 'better-sqlite3') return dataSource;
  const manager: EntityManager = dataSource.manager;
  const transaction = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  let tail: Promise<unknown> = Promise.resolve();
  manager.transaction = ((...args: unknown[]) => {
    const turn = tail.then(() => transaction(...args));
    tail = turn.catch(() => undefined);
    return turn;
  }) as EntityManager['transaction'];
  return dataSource;
}
