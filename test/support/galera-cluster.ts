/**
 * A throw-away MariaDB Galera cluster on loopback, for tests and scripts.
 *
 *   const cluster = await GaleraCluster.start();        // 3 nodes, Synced
 *   await cluster.query(1, 'CREATE DATABASE app');       // node numbers are 1-based
 *   cluster.multiHostUrl('app');                         // mysql://root@127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/app
 *   await cluster.kill(2);                               // kill -9, the others see a cluster of 2
 *   await cluster.restart(2);                            // { ist: true, transfer: 'IST', seconds: 4 }
 *   await cluster.stop();                                // every node gone, the temp folder removed
 *
 * Everything lives under one mkdtemp folder: per node a data dir made by mariadb-install-db,
 * a generated my.cnf (passed with --defaults-file), socket, pid file, error log and tmpdir.
 * Every port (SQL, gmcast, IST, SST) is probed free; the well-known ones (3306, 4444, 4567,
 * 4568) are never used. Node 1 bootstraps with --wsrep-new-cluster, the others join it by SST
 * (rsync) one after the other. Run as root, the nodes run as the `mysql` user.
 *
 * Nodes are never left behind: stop() kills what is still running and removes the folder; a
 * process 'exit' handler SIGKILLs the nodes of every cluster not stopped; and a small detached
 * watchdog does the same if this process dies without running its exit handlers (SIGKILL).
 * Scripts that want Ctrl-C to clean up call stopClustersOnSignals().
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createConnection, createPool, type Connection, type Pool } from 'mysql2/promise';
import { portFree } from './free-port.js';

export interface GaleraNode {
  /** 1-based: node 1 is the one that bootstrapped the cluster. */
  readonly index: number;
  readonly host: string;
  /** SQL port. */
  readonly port: number;
  readonly socket: string;
  readonly dataDir: string;
  /** The node's folder (my.cnf, error.log, pid file, socket, data/, tmp/). */
  readonly dir: string;
  readonly configFile: string;
  readonly errorLog: string;
  /** Galera group communication (gmcast.listen_addr), IST receive and SST receive ports. */
  readonly galeraPort: number;
  readonly istPort: number;
  readonly sstPort: number;
  /** The mariadbd process id while the node runs, undefined when it is down. */
  readonly pid: number | undefined;
  /** mysql://root@127.0.0.1:PORT/db */
  url(db?: string): string;
}

export interface GaleraClusterOptions {
  /** Number of nodes, 3 by default (Galera wants an odd number for quorum). */
  nodes?: number;
  /** First port to probe; every port is probed free upwards from here. Default: random in 20000-29999. */
  basePort?: number;
  /** How long one node may take to start (or rejoin) and reach Synced. Default 120 s. */
  startTimeoutMs?: number;
  /** Galera gcache size; big enough that a node down for a while rejoins by IST. Default 128M. */
  gcacheSize?: string;
  /** Extra `key=value` wsrep provider options, appended as given (e.g. 'evs.suspect_timeout=PT3S'). */
  providerOptions?: string[];
  /** Progress lines (`node 2 synced in 4.1 s`); silent by default. */
  log?: (line: string) => void;
}

export interface RestartResult {
  /** True when the node rejoined without a full SST: it caught up by IST, or had nothing to catch up. */
  ist: boolean;
  /** What its error log shows: 'IST' (write sets from a peer's gcache), 'SST' (the whole data dir copied), 'none'. */
  transfer: 'IST' | 'SST' | 'none';
  /** From spawning mariadbd until the node reported wsrep_local_state_comment = 'Synced'. */
  seconds: number;
}

type Status = Record<string, string>;

/** Ports never handed out: the machine's own MariaDB and Galera's defaults. */
const RESERVED_PORTS = new Set([3306, 4444, 4567, 4568]);
/** Ports handed out by this process (released when a cluster stops), so two clusters never share one. */
const portsInUse = new Set<number>();
const liveClusters = new Set<GaleraCluster>();
let exitHandlerInstalled = false;

class NodeState implements GaleraNode {
  process: ChildProcess | undefined;
  exited: Promise<void> = Promise.resolve();
  pool: Pool | undefined;

  constructor(
    readonly index: number,
    readonly host: string,
    readonly port: number,
    readonly galeraPort: number,
    readonly istPort: number,
    readonly sstPort: number,
    readonly dir: string,
  ) {}

  get socket(): string {
    return join(this.dir, 'mysqld.sock');
  }
  get dataDir(): string {
    return join(this.dir, 'data');
  }
  get configFile(): string {
    return join(this.dir, 'my.cnf');
  }
  get errorLog(): string {
    return join(this.dir, 'error.log');
  }
  get stdoutLog(): string {
    return join(this.dir, 'stdout.log');
  }
  get pidFile(): string {
    return join(this.dir, 'mysqld.pid');
  }
  get pid(): number | undefined {
    return this.process?.exitCode === null && this.process.signalCode === null ? this.process.pid : undefined;
  }
  /** Resolves when the process has exited; holds the event loop open meanwhile (the child is unref'd). */
  async waitExit(): Promise<void> {
    const child = this.process;
    if (!child || this.pid === undefined) return;
    child.ref();
    try {
      await this.exited;
    } finally {
      child.unref();
    }
  }
  url(db = ''): string {
    return `mysql://root@${this.host}:${this.port}/${db}`;
  }
}

export class GaleraCluster {
  private readonly state: NodeState[];
  private stopping: Promise<void> | undefined;

  private constructor(
    /** The temp folder that holds everything. */
    readonly dir: string,
    nodes: NodeState[],
    private readonly runAs: { user: string; uid: number; gid: number } | undefined,
    private readonly options: Required<Omit<GaleraClusterOptions, 'basePort' | 'nodes'>>,
  ) {
    this.state = nodes;
  }

  get nodes(): readonly GaleraNode[] {
    return this.state;
  }

  /**
   * Creates, starts and waits for a Synced cluster; on any failure everything started is torn down.
   * Ports are probed free, but another process may take one before a node binds it: such a start
   * is retried (twice, on other ports) before giving up.
   */
  static async start(options: GaleraClusterOptions = {}): Promise<GaleraCluster> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await GaleraCluster.startOnce(attempt === 1 ? options : { ...options, basePort: undefined });
      } catch (error) {
        const portTaken = /Address already in use|Bind on TCP\/IP port|bind\(\) failed/i.test((error as Error).message);
        if (!portTaken || attempt >= 3) throw error;
        options.log?.(`a port was taken meanwhile; starting again on other ports (attempt ${attempt + 1})`);
      }
    }
  }

  private static async startOnce(options: GaleraClusterOptions): Promise<GaleraCluster> {
    const count = options.nodes ?? 3;
    if (!Number.isInteger(count) || count < 1) throw new Error(`GaleraCluster: nodes must be >= 1 (got ${count})`);
    const resolved = {
      startTimeoutMs: options.startTimeoutMs ?? 120_000,
      gcacheSize: options.gcacheSize ?? '128M',
      providerOptions: options.providerOptions ?? [],
      log: options.log ?? (() => undefined),
    };
    const binaries = findBinaries();
    const runAs = userInfo().uid === 0 ? mysqlUser() : undefined;

    const dir = mkdtempSync(join(tmpdir(), 'galera-'));
    const basePort = options.basePort ?? 20000 + Math.floor(Math.random() * 10000);
    const ports = await freePorts(basePort, count * 4);
    const nodes = Array.from(
      { length: count },
      (_, i) =>
        new NodeState(
          i + 1,
          '127.0.0.1',
          ports[i * 4],
          ports[i * 4 + 1],
          ports[i * 4 + 2],
          ports[i * 4 + 3],
          join(dir, `node${i + 1}`),
        ),
    );
    const cluster = new GaleraCluster(dir, nodes, runAs, resolved);
    cluster.register();

    const started = Date.now();
    try {
      const clusterName = `harness-${randomBytes(4).toString('hex')}`;
      for (const node of nodes) {
        mkdirSync(join(node.dir, 'tmp'), { recursive: true });
        writeFileSync(node.configFile, cluster.config(node, clusterName, binaries.provider));
      }
      cluster.chownTree(dir);
      // mariadb-install-db runs a bootstrap mariadbd per node: run them side by side.
      await Promise.all(nodes.map((node) => cluster.installDataDir(node, binaries.installDb)));
      resolved.log(`data dirs initialised in ${secondsSince(started)} s`);
      for (const node of nodes) {
        const t = Date.now();
        cluster.spawnNode(node, binaries.mariadbd, node.index === 1);
        await cluster.waitNodeSynced(node, node.index);
        resolved.log(`node ${node.index} synced in ${secondsSince(t)} s (port ${node.port})`);
      }
      await cluster.waitSynced();
      resolved.log(`cluster of ${count} up in ${secondsSince(started)} s under ${dir}`);
      return cluster;
    } catch (error) {
      await cluster.stop().catch(() => undefined);
      throw error;
    }
  }

  /** mysql://root@127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/db: every node, in node order. */
  multiHostUrl(db: string): string {
    return `mysql://root@${this.state.map((n) => `${n.host}:${n.port}`).join(',')}/${db}`;
  }

  /** Runs one statement on a node (through a small per-node pool) and answers its rows / result header. */
  async query(nodeIndex: number, sql: string, params?: unknown[]): Promise<any> {
    const node = this.node(nodeIndex);
    node.pool ??= createPool({ host: node.host, port: node.port, user: 'root', connectionLimit: 4 });
    const [rows] = await node.pool.query(sql, params);
    return rows;
  }

  /** A dedicated connection to one node (for sessions and transactions); the caller ends it. */
  async connect(nodeIndex: number, database?: string): Promise<Connection> {
    const node = this.node(nodeIndex);
    return createConnection({ host: node.host, port: node.port, user: 'root', database, connectTimeout: 5000 });
  }

  /** SHOW GLOBAL STATUS LIKE 'wsrep%' of one node, as name -> value. */
  async status(nodeIndex: number): Promise<Status> {
    return readStatus(this.node(nodeIndex));
  }

  /** The last lines of a node's error log. */
  errorLogTail(nodeIndex: number, lines = 40): string {
    return tail(this.node(nodeIndex).errorLog, lines);
  }

  /**
   * kill -9 of a node; resolves once every other running node reports a cluster one smaller (and,
   * while they keep a majority, is Synced in a Primary component again: a minority stays non-Primary).
   */
  async kill(nodeIndex: number): Promise<void> {
    const node = this.node(nodeIndex);
    if (node.pid === undefined) throw new Error(`GaleraCluster: node ${nodeIndex} is not running`);
    await this.closePool(node);
    node.process!.kill('SIGKILL');
    await node.waitExit();
    this.writePidList();
    const survivors = this.state.filter((n) => n.pid !== undefined);
    const quorum = survivors.length * 2 > survivors.length + 1;
    await Promise.all(survivors.map((n) => this.waitNode(n, survivors.length, quorum)));
    if (!quorum)
      this.options.log(`node ${nodeIndex} killed: the ${survivors.length} left have no quorum (non-Primary)`);
  }

  /**
   * Starts a node that was killed or stopped and waits until it is Synced. `ist` tells whether it
   * caught up by IST (from its peers' gcache) rather than a full SST, read from its error log.
   */
  async restart(nodeIndex: number): Promise<RestartResult> {
    const node = this.node(nodeIndex);
    if (node.pid !== undefined) throw new Error(`GaleraCluster: node ${nodeIndex} is still running`);
    if (!this.state.some((n) => n.pid !== undefined)) {
      throw new Error(`GaleraCluster: node ${nodeIndex} has no running node to rejoin (re-bootstrap is not supported)`);
    }
    const logOffset = existsSync(node.errorLog) ? statSync(node.errorLog).size : 0;
    const t = Date.now();
    const { mariadbd } = findBinaries();
    // After kill -9 grastate.dat says seqno -1: without the position InnoDB recovered, the node
    // would ask for a full SST. This is what galera_recovery does under systemd.
    const position = savedSeqno(node) === -1 ? await this.recoverPosition(node, mariadbd) : undefined;
    this.spawnNode(node, mariadbd, false, position ? [`--wsrep-start-position=${position}`] : []);
    await this.waitNodeSynced(node, this.state.filter((n) => n.pid !== undefined).length);
    const seconds = secondsSince(t);
    const log = readFrom(node.errorLog, logOffset);
    // A full SST shows as the rsync script copying the data dir, or as a joiner without a position.
    // (Galera logs "SST received" and "Receiving IST" in both cases: the rsync script runs in
    // bypass mode for an IST, and the cert index is preloaded from the donor's gcache after an SST.)
    const fullSst = /rsync SST completed on joiner/.test(log) || /Local state: [0-9a-f-]{36}:-1\b/.test(log);
    const transfer = fullSst
      ? 'SST'
      : /Receiving IST: \d+ writesets|rsync IST completed on joiner/.test(log)
        ? 'IST'
        : /state transfer needed: no/.test(log)
          ? 'none'
          : 'SST';
    this.options.log(`node ${nodeIndex} rejoined in ${seconds} s, state transfer: ${transfer}`);
    await this.waitSynced();
    return { ist: transfer !== 'SST', transfer, seconds };
  }

  /** Waits until every running node is Synced, ready and sees a Primary component of all running nodes. */
  async waitSynced(timeoutMs = this.options.startTimeoutMs): Promise<void> {
    const running = this.state.filter((n) => n.pid !== undefined);
    await Promise.all(running.map((node) => this.waitNodeSynced(node, running.length, timeoutMs)));
  }

  /** Stops every node (SIGTERM, SIGKILL after 20 s) and removes the temp folder. Safe to call twice. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    try {
      await Promise.all(this.state.map((node) => this.closePool(node)));
      await Promise.all(
        this.state.map(async (node) => {
          if (node.pid === undefined) return;
          node.process!.kill('SIGTERM');
          const timer = setTimeout(() => node.process?.kill('SIGKILL'), 20_000);
          await node.waitExit();
          clearTimeout(timer);
        }),
      );
    } finally {
      this.killAll();
      rmSync(this.dir, { recursive: true, force: true });
      for (const node of this.state)
        for (const p of [node.port, node.galeraPort, node.istPort, node.sstPort]) portsInUse.delete(p);
      liveClusters.delete(this);
    }
  }

  private node(nodeIndex: number): NodeState {
    if (this.stopping) throw new Error('GaleraCluster: the cluster was stopped');
    const node = this.state[nodeIndex - 1];
    if (!Number.isInteger(nodeIndex) || !node) {
      throw new Error(`GaleraCluster: no node ${nodeIndex} (node numbers are 1..${this.state.length})`);
    }
    return node;
  }

  private async closePool(node: NodeState): Promise<void> {
    const pool = node.pool;
    node.pool = undefined;
    await pool?.end().catch(() => undefined);
  }

  private config(node: NodeState, clusterName: string, provider: string): string {
    const peers = this.state.map((n) => `${n.host}:${n.galeraPort}`).join(',');
    const providerOptions = [
      `gcache.size=${this.options.gcacheSize}`,
      `base_port=${node.galeraPort}`,
      `gmcast.listen_addr=tcp://${node.host}:${node.galeraPort}`,
      `ist.recv_addr=${node.host}:${node.istPort}`,
      ...this.options.providerOptions,
    ].join('; ');
    return `# Generated by test/support/galera-cluster.ts for node ${node.index}
[mysqld]
${this.runAs ? `user=${this.runAs.user}\n` : ''}datadir=${node.dataDir}
tmpdir=${join(node.dir, 'tmp')}
socket=${node.socket}
pid-file=${node.pidFile}
log-error=${node.errorLog}
port=${node.port}
bind-address=${node.host}
skip-name-resolve
character-set-server=utf8mb4
collation-server=utf8mb4_unicode_ci

# What Galera requires
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2

# Small, so that several nodes fit beside everything else on the machine
innodb_buffer_pool_size=64M
innodb_log_file_size=16M
innodb_log_buffer_size=4M
innodb_use_native_aio=OFF
innodb_flush_log_at_trx_commit=2
key_buffer_size=4M
aria_pagecache_buffer_size=8M
max_connections=200

wsrep_on=ON
wsrep_provider=${provider}
wsrep_cluster_name=${clusterName}
wsrep_cluster_address=gcomm://${peers}
wsrep_node_name=node${node.index}
wsrep_node_address=${node.host}
wsrep_node_incoming_address=${node.host}:${node.port}
wsrep_sst_method=rsync
wsrep_sst_receive_address=${node.host}:${node.sstPort}
wsrep_provider_options="${providerOptions}"

[client]
socket=${node.socket}
port=${node.port}
`;
  }

  private async installDataDir(node: NodeState, installDb: string): Promise<void> {
    const args = [
      `--defaults-file=${node.configFile}`,
      `--datadir=${node.dataDir}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      ...(this.runAs ? [`--user=${this.runAs.user}`] : []),
    ];
    const result = await run(installDb, args, this.options.startTimeoutMs);
    if (result.code !== 0) {
      throw new Error(
        `GaleraCluster: ${installDb} failed for node ${node.index} (exit ${result.code})\n${result.output.slice(-4000)}\n` +
          `--- ${node.errorLog} ---\n${tail(node.errorLog, 40)}`,
      );
    }
  }

  /** `mariadbd --wsrep-recover`: the wsrep position (uuid:seqno) InnoDB recovered, or undefined. */
  private async recoverPosition(node: NodeState, mariadbd: string): Promise<string | undefined> {
    const log = join(node.dir, 'wsrep-recover.log');
    rmSync(log, { force: true });
    const t = Date.now();
    const result = await run(
      mariadbd,
      [`--defaults-file=${node.configFile}`, '--wsrep-recover', `--log-error=${log}`],
      this.options.startTimeoutMs,
    );
    const text = readFrom(log, 0);
    const position = /WSREP: Recovered position: *([0-9a-f-]{36}:-?\d+)/.exec(text)?.[1];
    if (result.code !== 0 || !position) {
      throw new Error(
        `GaleraCluster: mariadbd --wsrep-recover failed for node ${node.index} (exit ${result.code})\n${result.output}\n` +
          `--- ${log} ---\n${tail(log, 40)}`,
      );
    }
    this.options.log(`node ${node.index}: recovered wsrep position ${position} in ${secondsSince(t)} s`);
    return position;
  }

  private spawnNode(node: NodeState, mariadbd: string, bootstrap: boolean, extraArgs: string[] = []): void {
    const out = openSync(node.stdoutLog, 'a');
    try {
      const args = [`--defaults-file=${node.configFile}`, ...(bootstrap ? ['--wsrep-new-cluster'] : []), ...extraArgs];
      const child = spawn(mariadbd, args, {
        stdio: ['ignore', out, out],
        detached: true,
      });
      child.on('error', () => undefined);
      node.exited = new Promise((resolve) => child.once('exit', () => resolve()));
      node.process = child;
      child.unref();
    } finally {
      closeSync(out);
    }
    this.writePidList();
  }

  private waitNodeSynced(node: NodeState, clusterSize: number, timeoutMs = this.options.startTimeoutMs) {
    return this.waitNode(node, clusterSize, true, timeoutMs);
  }

  /** Waits for a node to see a cluster of `clusterSize`; with `synced`, also Synced, ready and Primary. */
  private async waitNode(
    node: NodeState,
    clusterSize: number,
    synced: boolean,
    timeoutMs = this.options.startTimeoutMs,
  ) {
    const want = synced ? `Synced in a cluster of ${clusterSize}` : `in a cluster of ${clusterSize}`;
    const deadline = Date.now() + timeoutMs;
    let last: string;
    for (;;) {
      if (node.pid === undefined) {
        throw new Error(
          `GaleraCluster: node ${node.index} exited (${describeExit(node.process)}) before it was ${want}\n` +
            `--- last lines of ${node.errorLog} ---\n${tail(node.errorLog, 40) || tail(node.stdoutLog, 40)}`,
        );
      }
      try {
        const s = await readStatus(node);
        last = `state=${s.wsrep_local_state_comment} ready=${s.wsrep_ready} status=${s.wsrep_cluster_status} size=${s.wsrep_cluster_size}`;
        if (
          Number(s.wsrep_cluster_size) === clusterSize &&
          (!synced ||
            (s.wsrep_local_state_comment === 'Synced' &&
              s.wsrep_ready === 'ON' &&
              s.wsrep_cluster_status === 'Primary'))
        ) {
          return;
        }
      } catch (error) {
        last = (error as Error).message;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `GaleraCluster: node ${node.index} not ${want} within ${timeoutMs / 1000} s ` +
            `(last: ${last})\n--- last lines of ${node.errorLog} ---\n${tail(node.errorLog, 40)}`,
        );
      }
      await sleep(250);
    }
  }

  private chownTree(path: string): void {
    if (!this.runAs) return;
    chownSync(path, this.runAs.uid, this.runAs.gid);
    if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) this.chownTree(join(path, entry));
  }

  private register(): void {
    liveClusters.add(this);
    if (!exitHandlerInstalled) {
      exitHandlerInstalled = true;
      process.on('exit', () => {
        for (const cluster of liveClusters) {
          cluster.killAll();
          rmSync(cluster.dir, { recursive: true, force: true });
        }
      });
    }
    this.startWatchdog();
  }

  /** SIGKILLs every node still running (synchronous: usable from an 'exit' handler). */
  private killAll(): void {
    for (const node of this.state) {
      const pid = node.pid;
      if (pid === undefined) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch (_) {
        // already gone
      }
    }
  }

  /** The running node pids, for the watchdog. */
  private writePidList(): void {
    const pids = this.state.map((n) => n.pid).filter((p) => p !== undefined);
    try {
      writeFileSync(join(this.dir, 'pids'), pids.join('\n') + '\n');
    } catch (_) {
      // the folder is being removed
    }
  }

  /**
   * A detached shell that outlives us only if we die without cleaning up (SIGKILL, OOM): it then
   * SIGKILLs the listed node pids whose command line names this folder, and removes the folder.
   * It exits by itself once the folder is gone.
   */
  private startWatchdog(): void {
    const script = `
      dir="$1"; parent="$2"
      while [ -d "$dir" ] && kill -0 "$parent" 2>/dev/null; do sleep 2; done
      [ -d "$dir" ] || exit 0
      for pid in $(cat "$dir/pids" 2>/dev/null); do
        if tr '\\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir/"; then kill -9 "$pid"; fi
      done
      sleep 1
      rm -rf "$dir"`;
    const child = spawn('/bin/sh', ['-c', script, 'galera-watchdog', this.dir, String(process.pid)], {
      stdio: 'ignore',
      detached: true,
    });
    child.on('error', () => undefined);
    child.unref();
  }
}

/** Stops every cluster this process started (for SIGINT/SIGTERM handlers in scripts). */
export async function stopAllClusters(): Promise<void> {
  await Promise.all([...liveClusters].map((c) => c.stop().catch(() => undefined)));
}

/** Makes Ctrl-C / SIGTERM stop every cluster before the process exits (130 / 143). For scripts, not jest. */
export function stopClustersOnSignals(): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      void stopAllClusters().finally(() => process.exit(code));
    });
  }
}

function findBinaries(): { mariadbd: string; installDb: string; provider: string } {
  const mariadbd = which(['mariadbd', 'mysqld'], ['/usr/sbin', '/usr/local/sbin', '/usr/libexec']);
  const installDb = which(['mariadb-install-db', 'mysql_install_db'], ['/usr/bin', '/usr/local/bin']);
  const provider = [
    '/usr/lib/galera/libgalera_smm.so',
    '/usr/lib64/galera-4/libgalera_smm.so',
    '/usr/lib/libgalera_smm.so',
  ].find((p) => existsSync(p));
  if (!mariadbd) throw new Error('GaleraCluster: mariadbd not found (install mariadb-server)');
  if (!installDb) throw new Error('GaleraCluster: mariadb-install-db not found (install mariadb-server)');
  if (!provider) throw new Error('GaleraCluster: libgalera_smm.so not found (apt-get install galera-4)');
  if (!which(['rsync'], ['/usr/bin'])) throw new Error('GaleraCluster: rsync not found; the rsync SST needs it');
  if (!which(['ss', 'lsof', 'sockstat'], ['/usr/bin', '/bin', '/usr/sbin', '/sbin'])) {
    throw new Error('GaleraCluster: the rsync SST script needs ss (iproute2) or lsof');
  }
  return { mariadbd, installDb, provider };
}

function which(names: string[], extraDirs: string[]): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':').filter(Boolean), ...extraDirs];
  for (const name of names) for (const dir of dirs) if (existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

function mysqlUser(): { user: string; uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('mysql:'));
  if (!line) return { user: 'root', uid: 0, gid: 0 };
  const [, , uid, gid] = line.split(':');
  return { user: 'mysql', uid: Number(uid), gid: Number(gid) };
}

/** `count` distinct ports, free on 127.0.0.1 now, from `start` upwards, skipping reserved ones. */
async function freePorts(start: number, count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let port = start; ports.length < count; port++) {
    if (port > 65535) throw new Error(`GaleraCluster: not ${count} free ports from ${start}`);
    if (RESERVED_PORTS.has(port) || portsInUse.has(port)) continue;
    if (await portFree(port)) ports.push(port);
  }
  for (const p of ports) portsInUse.add(p);
  return ports;
}

async function readStatus(node: GaleraNode): Promise<Status> {
  const conn = await createConnection({ host: node.host, port: node.port, user: 'root', connectTimeout: 3000 });
  try {
    const [rows] = await conn.query("SHOW GLOBAL STATUS LIKE 'wsrep%'");
    return Object.fromEntries(
      (rows as { Variable_name: string; Value: string }[]).map((r) => [r.Variable_name, r.Value]),
    );
  } finally {
    await conn.end().catch(() => undefined);
  }
}

function run(command: string, args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (e) => resolve({ code: -1, output: output + e.message }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

function tail(file: string, lines: number): string {
  try {
    const size = statSync(file).size;
    return readFrom(file, Math.max(0, size - 64 * 1024))
      .split('\n')
      .slice(-lines - 1)
      .join('\n');
  } catch (_) {
    return `(no ${file})`;
  }
}

function readFrom(file: string, offset: number): string {
  try {
    const fd = openSync(file, 'r');
    try {
      const length = Math.max(0, statSync(file).size - offset);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, offset);
      return buffer.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch (_) {
    return '';
  }
}

/** The seqno in a node's grastate.dat (-1 after a crash), or undefined when there is none. */
function savedSeqno(node: GaleraNode): number | undefined {
  const match = /^seqno:\s*(-?\d+)/m.exec(readFrom(join(node.dataDir, 'grastate.dat'), 0));
  return match ? Number(match[1]) : undefined;
}

function describeExit(child: ChildProcess | undefined): string {
  if (!child) return 'never started';
  return child.signalCode ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`;
}

function secondsSince(t: number): number {
  return Math.round((Date.now() - t) / 100) / 10;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
