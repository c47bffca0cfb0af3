import mysql2, { type Pool, type PoolCluster, type PoolConnection, type PoolOptions } from 'mysql2';
import type { DatabaseHost } from '../common/config/app-config.js';
import { mysqlPoolStats, type PoolStats } from '../common/persistence/pool-stats.js';
import { executePreparedOnPool } from '../common/persistence/prepared-statements.js';

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

/** How often each instance asks the nodes which of them is the writer. */
const WRITER_CHECK_MS = 1_000;

/** A node's answer to "may you be the writer, and with which rank". */
interface NodeState {
  name: string;
  /** wsrep_local_index: the node's place in the primary component's membership (the same on every node). */
  index: number;
  eligible: boolean;
}

const WSREP_STATE_SQL =
  "SHOW STATUS WHERE Variable_name IN ('wsrep_local_index', 'wsrep_cluster_status', 'wsrep_local_state')";

/**
 * The pool of several nodes of a Galera cluster, through mysql2's PoolCluster. Reads take the first
 * node that answers (in the URL's order: the instance's own node first); a node that refuses is left
 * out for a second and then tried again, so the instance moves to a survivor when its node dies and
 * back when it returns. Writes (every transaction and every autocommit write) go to one node that
 * every instance agrees on, the way MariaDB MaxScale's Galera monitor picks its master: the synced
 * member of the primary component with the lowest `wsrep_local_index`. Each instance asks every
 * node once a second (and at once when a write finds its writer gone), so a node loss moves every
 * instance to the same next node. With every write on one node, a `SELECT ... FOR UPDATE` holds
 * for the whole cluster and no rule rests on certification conflicts (docs/cluster.md).
 */
export class FailoverPool {
  private readonly nodes;
  /** Connections whose session is set up (PoolCluster has no 'connection' event of its own). */
  private readonly prepared = new WeakSet<PoolConnection>();
  private writer: string;
  private election: Promise<void> | undefined;
  private readonly monitor: NodeJS.Timeout;

  constructor(
    private readonly cluster: PoolCluster,
    private readonly names: readonly string[],
    private readonly hosts: readonly DatabaseHost[],
  ) {
    this.nodes = cluster.of('*', 'ORDER');
    this.writer = names[0];
    this.monitor = setInterval(() => void this.elect(), WRITER_CHECK_MS);
    this.monitor.unref();
  }

  /** The node writes go to now, as `host:port`. */
  get writerAddress(): string {
    const host = this.hosts[this.names.indexOf(this.writer)];
    return `${host.host}:${host.port}`;
  }

  getConnection(callback: (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void): void {
    this.nodes.getConnection((error, connection) => this.prepare(error, connection, callback));
  }

  /** A connection to the writer node (elected once before the first write). */
  getWriterConnection(callback: (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void): void {
    (this.election ??= this.elect()).then(() =>
      this.cluster.of(this.writer).getConnection((error, connection) => {
        if (error) void this.elect();
        this.prepare(error, connection, callback);
      }),
    );
  }

  /** One autocommit write, on the writer node. */
  executeOnWriter(sql: string, values: unknown[], callback: (error: Error | null, result: unknown) => void): void {
    executePreparedOnPool({ getConnection: (take) => this.getWriterConnection(take) }, sql, values, callback);
  }

  query(sql: string, callback: (error: Error | null, result: unknown) => void): void {
    this.getConnection((error, connection) => this.queryOn(error, connection, sql, callback));
  }

  /** One autocommit write as text (no parameters), on the writer node. */
  queryOnWriter(sql: string, callback: (error: Error | null, result: unknown) => void): void {
    this.getWriterConnection((error, connection) => this.queryOn(error, connection, sql, callback));
  }

  /** Each node's pool, by the node's name (GET /metrics; mysql2's PoolCluster keeps a pool per node). */
  stats(): PoolStats[] {
    const nodes = (this.cluster as unknown as { _nodes?: Record<string, { pool: unknown }> })._nodes ?? {};
    return this.names.flatMap((name) => mysqlPoolStats(name, nodes[name]?.pool) ?? []);
  }

  end(callback: (error?: Error | null) => void): void {
    clearInterval(this.monitor);
    this.cluster.end(callback as never);
  }

  /** Asks every node for its state and makes the eligible one of lowest index the writer. */
  private async elect(): Promise<void> {
    const states = await Promise.all(this.names.map((name) => this.stateOf(name)));
    const eligible = states.filter((state): state is NodeState => state?.eligible === true);
    if (eligible.length === 0) return; // nobody can tell: keep the writer until the next check
    eligible.sort((a, b) => a.index - b.index || this.names.indexOf(a.name) - this.names.indexOf(b.name));
    this.writer = eligible[0].name;
  }

  private stateOf(name: string): Promise<NodeState | undefined> {
    return new Promise((resolve) => {
      this.cluster.of(name).getConnection((error, connection) => {
        if (error) return resolve(undefined);
        connection.query(WSREP_STATE_SQL, (failure, rows) => {
          connection.release();
          if (failure) return resolve(undefined);
          const status = new Map(
            (rows as { Variable_name: string; Value: string }[]).map((r) => [r.Variable_name, r.Value]),
          );
          // A server without Galera (no wsrep status) may be written: it is the only copy of its data.
          if (!status.has('wsrep_local_index'))
            return resolve({ name, index: this.names.indexOf(name), eligible: true });
          resolve({
            name,
            index: Number(status.get('wsrep_local_index')),
            eligible: status.get('wsrep_cluster_status') === 'Primary' && status.get('wsrep_local_state') === '4',
          });
        });
      });
    });
  }

  private prepare(
    error: NodeJS.ErrnoException | null,
    connection: PoolConnection,
    callback: (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void,
  ): void {
    if (!error && !this.prepared.has(connection)) {
      this.prepared.add(connection);
      connection.query(SESSION_SETUP, () => undefined);
    }
    callback(error, connection);
  }

  private queryOn(
    error: Error | null,
    connection: PoolConnection,
    sql: string,
    callback: (error: Error | null, result: unknown) => void,
  ): void {
    if (error) return callback(error, undefined);
    connection.query(sql, (failure, result) => {
      connection.release();
      callback(failure, result);
    });
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
      const names = hosts.map((_, index) => `node${index + 1}`);
      hosts.forEach((node, index) => cluster.add(names[index], { ...options, host: node.host, port: node.port }));
      return new FailoverPool(cluster, names, hosts);
    },
  };
}
