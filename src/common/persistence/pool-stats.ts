/** A MySQL/MariaDB connection pool at one moment (GET /metrics). */
export interface PoolStats {
  /** `main`, or on a cluster the node's name (`node1`, `node2`... in DATABASE_URL's order). */
  pool: string;
  /** Connections lent to a statement or a transaction. */
  inUse: number;
  /** Open connections waiting in the pool. */
  idle: number;
  /** Requests for a connection queued because every connection is in use and no more may be opened. */
  waiting: number;
  /** The most connections the pool opens. */
  limit: number;
}

/** The parts of mysql2's Pool (3.x) read here. They are not its public API: a change gives no figures, not wrong ones. */
interface Mysql2PoolInternals {
  _allConnections?: { length?: unknown };
  _freeConnections?: { length?: unknown };
  _connectionQueue?: { length?: unknown };
  config?: { connectionLimit?: unknown };
}

/** What a mysql2 pool holds now; undefined when its internals are not as mysql2 3.x keeps them. */
export function mysqlPoolStats(name: string, pool: unknown): PoolStats | undefined {
  const internals = pool as Mysql2PoolInternals | undefined;
  const all = internals?._allConnections?.length;
  const free = internals?._freeConnections?.length;
  const waiting = internals?._connectionQueue?.length;
  const limit = internals?.config?.connectionLimit;
  if (typeof all !== 'number' || typeof free !== 'number' || typeof waiting !== 'number' || typeof limit !== 'number') {
    return undefined;
  }
  return { pool: name, inUse: all - free, idle: free, waiting, limit };
}
