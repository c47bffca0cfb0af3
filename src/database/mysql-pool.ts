import mysql2, { type Pool, type PoolCluster, type PoolConnection, type PoolOptions } from 'mysql2';
import type { DatabaseHost } from '../common/config/app-config.js';

/**
 * On a MariaDB Galera cluster every session waits, before each read, until its node has applied
 * every write the cluster committed before the read began, so that a read through any instance sees
 * an earlier 2xx write through any other. On a standalone server (wsrep_on OFF) it sets 0: nothing
 * changes. On a server without the variable (MySQL) the statement fails and is ignored.
 */
const SESSION_SETUP = 'SET SESSION wsrep_sync_wait = IF(@@wsrep_on, 1, 0)';

/** A node that refused a connection is skipped this long before it is tried again. */
const NODE_RETRY_MS = 1_000;

function prepareSessions(pool: Pool): Pool {
  // Queued before anything the requester sends on the new connection: commands run in order.
  pool.on('connection', (connection) => connection.query(SESSION_SETUP, () => undefined));
  return pool;
}

/**
 * The pool of several nodes of a multi-primary cluster, through mysql2's PoolCluster: new
 * connections go to the first node that answers (in the URL's order); a node that refuses is left
 * out for a second and then tried again, so the instance moves to a survivor when its node dies and
 * back when it returns. It offers what TypeORM and the Database service use of a pool.
 */
export class FailoverPool {
  private readonly nodes;
  /** Connections whose session is set up (PoolCluster has no 'connection' event of its own). */
  private readonly prepared = new WeakSet<PoolConnection>();

  constructor(private readonly cluster: PoolCluster) {
    this.nodes = cluster.of('*', 'ORDER');
  }

  getConnection(callback: (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void): void {
    this.nodes.getConnection((error, connection) => {
      if (!error && !this.prepared.has(connection)) {
        this.prepared.add(connection);
        connection.query(SESSION_SETUP, () => undefined);
      }
      callback(error, connection);
    });
  }

  execute(sql: string, values: unknown[], callback: (error: Error | null, result: unknown) => void): void {
    this.getConnection((error, connection) => {
      if (error) return callback(error, undefined);
      connection.execute(sql, values as never, (failure, result) => {
        connection.release();
        callback(failure, result);
      });
    });
  }

  query(sql: string, callback: (error: Error | null, result: unknown) => void): void {
    this.getConnection((error, connection) => {
      if (error) return callback(error, undefined);
      connection.query(sql, (failure, result) => {
        connection.release();
        callback(failure, result);
      });
    });
  }

  end(callback: (error?: Error | null) => void): void {
    this.cluster.end(callback as never);
  }
}

/**
 * What TypeORM's MySQL driver calls `createPool` on (its `driver` option): mysql2 itself, with the
 * session set-up on every connection, and a FailoverPool when DATABASE_URL names several hosts.
 */
export function mysqlDriver(hosts: DatabaseHost[]) {
  return {
    ...mysql2,
    createPool(options: PoolOptions): Pool | FailoverPool {
      if (hosts.length <= 1) return prepareSessions(mysql2.createPool(options));
      const cluster = mysql2.createPoolCluster({
        canRetry: true,
        removeNodeErrorCount: 1,
        restoreNodeTimeout: NODE_RETRY_MS,
        defaultSelector: 'ORDER',
      });
      hosts.forEach((node, index) => cluster.add(`node${index + 1}`, { ...options, host: node.host, port: node.port }));
      return new FailoverPool(cluster);
    },
  };
}
