import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Connection } from 'mysql2/promise';
import { GaleraCluster } from '../support/galera-cluster.js';

/**
 * The harness itself, and the multi-primary behaviour the service will have to live with:
 * causal reads, interleaved auto-increment, certification conflicts (errno 1213 at COMMIT),
 * node-local GET_LOCK and SELECT ... FOR UPDATE, and a node killed and rejoining by IST.
 * Figures are printed at the end (docs/galera-harness.md quotes them).
 */
const DB = 'harness';
const ROUNDS = 50;

const errno = (error: unknown): number | undefined => (error as { errno?: number }).errno;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stdout.write(`[galera] ${line}\n`);

describe('Galera cluster harness (3 nodes on loopback)', () => {
  let cluster: GaleraCluster;
  const figures: Record<string, unknown> = {};
  const connections: Connection[] = [];

  const connect = async (node: number): Promise<Connection> => {
    const conn = await cluster.connect(node, DB);
    connections.push(conn);
    return conn;
  };

  beforeAll(async () => {
    const t = Date.now();
    cluster = await GaleraCluster.start({ log });
    figures.startSeconds = (Date.now() - t) / 1000;
    await cluster.query(1, `CREATE DATABASE ${DB} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  }, 300_000);

  afterEach(async () => {
    await Promise.all(connections.splice(0).map((c) => c.end().catch(() => undefined)));
  });

  afterAll(async () => {
    await cluster?.stop();
    log(`figures: ${JSON.stringify(figures)}`);
  }, 120_000);

  it('has 3 Synced nodes in a Primary component of 3', async () => {
    for (const node of [1, 2, 3]) {
      const status = await cluster.status(node);
      expect(status).toMatchObject({
        wsrep_local_state_comment: 'Synced',
        wsrep_cluster_size: '3',
        wsrep_cluster_status: 'Primary',
        wsrep_ready: 'ON',
      });
    }
    expect(cluster.nodes.map((n) => n.index)).toEqual([1, 2, 3]);
    expect(new Set(cluster.nodes.map((n) => n.port)).size).toBe(3);
    for (const n of cluster.nodes) expect([3306, 4444, 4567, 4568]).not.toContain(n.port);
    expect(cluster.multiHostUrl('app')).toBe(
      `mysql://root@${cluster.nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}/app`,
    );
    expect(cluster.nodes[0].url('app')).toBe(`mysql://root@127.0.0.1:${cluster.nodes[0].port}/app`);
    const [settings] = await cluster.query(
      2,
      'SELECT @@binlog_format f, @@innodb_autoinc_lock_mode m, @@character_set_server c, @@collation_server k',
    );
    expect(settings).toEqual({ f: 'ROW', m: 2, c: 'utf8mb4', k: 'utf8mb4_unicode_ci' });
  });

  it('reads on node 3 a row just written on node 1 (wsrep_sync_wait=1)', async () => {
    await cluster.query(1, `CREATE TABLE ${DB}.notes (id INT PRIMARY KEY, body VARCHAR(50)) ENGINE=InnoDB`);
    const reader = await connect(3);
    await reader.query('SET SESSION wsrep_sync_wait = 1');
    for (let id = 1; id <= 20; id++) {
      await cluster.query(1, `INSERT INTO ${DB}.notes VALUES (?, ?)`, [id, `note ${id}`]);
      const [rows] = await reader.query('SELECT body FROM notes WHERE id = ?', [id]);
      expect(rows).toEqual([{ body: `note ${id}` }]);
    }
  });

  it('interleaves auto-increment ids: step 3, one offset per node (wsrep_auto_increment_control)', async () => {
    await cluster.query(1, `CREATE TABLE ${DB}.seq (id INT AUTO_INCREMENT PRIMARY KEY, node INT NOT NULL)`);
    const offsets = new Set<number>();
    for (const node of [1, 2, 3]) {
      const [vars] = await cluster.query(node, 'SELECT @@auto_increment_increment inc, @@auto_increment_offset off');
      expect(vars.inc).toBe(3);
      offsets.add(vars.off);
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) {
        const result = await cluster.query(node, `INSERT INTO ${DB}.seq (node) VALUES (?)`, [node]);
        ids.push(result.insertId);
      }
      expect(ids.slice(1).map((id, i) => id - ids[i])).toEqual([3, 3, 3, 3]);
      expect(new Set(ids.map((id) => id % 3)).size).toBe(1);
    }
    expect(offsets.size).toBe(3);
  });

  it('GET_LOCK is node-local: a lock held on node 1 does not stop node 2 taking the same name', async () => {
    const [holder, rivalSameNode, rivalOtherNode] = [await connect(1), await connect(1), await connect(2)];
    const lock = async (conn: Connection) => {
      const [rows] = await conn.query<any[]>("SELECT GET_LOCK('harness-migrations', 0) AS got");
      return rows[0].got;
    };
    expect(await lock(holder)).toBe(1);
    expect(await lock(rivalSameNode)).toBe(0); // a real lock on its own node...
    expect(await lock(rivalOtherNode)).toBe(1); // ...invisible to the other nodes
    const [[used]] = await rivalOtherNode.query<any[]>("SELECT IS_USED_LOCK('harness-migrations') AS id");
    const [[own]] = await rivalOtherNode.query<any[]>('SELECT CONNECTION_ID() AS id');
    expect(used.id).toBe(own.id);
    figures.getLockNodeLocal = true;
    await holder.query("SELECT RELEASE_LOCK('harness-migrations')");
    await rivalOtherNode.query("SELECT RELEASE_LOCK('harness-migrations')");
  });

  it('SELECT ... FOR UPDATE on node 1 does not block node 2; the later committer is aborted with 1213', async () => {
    await cluster.query(1, `CREATE TABLE ${DB}.counter (id INT PRIMARY KEY, v INT NOT NULL)`);
    await cluster.query(1, `INSERT INTO ${DB}.counter VALUES (1, 0)`);
    const [a, b] = [await connect(1), await connect(2)];
    await b.query('SET SESSION wsrep_sync_wait = 1, innodb_lock_wait_timeout = 5');
    await a.query('BEGIN');
    await a.query('SELECT v FROM counter WHERE id = 1 FOR UPDATE');
    await b.query('BEGIN');
    const t = Date.now();
    const [rows] = await b.query('SELECT v FROM counter WHERE id = 1 FOR UPDATE');
    figures.forUpdateOnOtherNodeMs = Date.now() - t;
    expect(rows).toEqual([{ v: 0 }]); // not blocked (a lock wait on its own node would take 5 s, then 1205)
    expect(Date.now() - t).toBeLessThan(2000);

    await a.query('UPDATE counter SET v = v + 1 WHERE id = 1');
    await a.query('COMMIT');
    // Node 1's write set reaches node 2, where it aborts b's transaction (brute-force abort): b
    // learns it at its next statement, whatever it is.
    let failedWith: number | undefined;
    let failedAt = '';
    for (const [step, sql] of [
      ['UPDATE', 'UPDATE counter SET v = v + 1 WHERE id = 1'],
      ['COMMIT', 'COMMIT'],
    ]) {
      try {
        await b.query(sql);
      } catch (error) {
        failedWith = errno(error);
        failedAt = step;
        break;
      }
    }
    figures.forUpdateLoserFailedAt = failedAt;
    expect(failedWith).toBe(1213);
    await b.query('ROLLBACK');
    const [[final]] = await b.query<any[]>('SELECT v FROM counter WHERE id = 1');
    expect(final.v).toBe(1);
  });

  /** One transaction that increments the hot row, as far as it gets: which step failed, and how. */
  type Outcome = { step: 'UPDATE' | 'COMMIT' | 'done'; errno?: number };
  const tallyOf = (rounds: Outcome[][]) => {
    const tally = { oneAbortedAtCommit: 0, oneAbortedBeforeCommit: 0, bothCommitted: 0, other: 0 };
    for (const outcome of rounds) {
      const failures = outcome.filter((o) => o.step !== 'done');
      if (failures.length === 0) tally.bothCommitted++;
      else if (failures.length > 1 || failures[0].errno !== 1213) tally.other++;
      else if (failures[0].step === 'COMMIT') tally.oneAbortedAtCommit++;
      else tally.oneAbortedBeforeCommit++;
    }
    return tally;
  };
  /**
   * Galera does not enforce "first committer wins" in every interleaving (MDEV-29044; galera#618):
   * now and then both of two conflicting transactions commit and one's write is lost. The rounds
   * count it (`lost`), the tests bound it and keep the figure; the service's cross-row rules
   * (docs/cluster.md) name what it means for them.
   */
  let reader: Connection;
  const hotValue = async (): Promise<number> => {
    const [[row]] = await reader.query<any[]>('SELECT v FROM hot WHERE id = 1');
    return row.v;
  };
  const hotRowOnEveryNode = async (): Promise<number[]> => {
    const values: number[] = [];
    for (const node of [1, 2, 3]) {
      const conn = await connect(node);
      await conn.query('SET SESSION wsrep_sync_wait = 1');
      const [[row]] = await conn.query<any[]>('SELECT v FROM hot WHERE id = 1');
      values.push(row.v);
    }
    return values;
  };

  describe(`two conflicting UPDATEs of one row through two nodes (${ROUNDS} rounds)`, () => {
    let a: Connection;
    let b: Connection;
    let committed = 0;
    let lost = 0;
    /** Runs one round and counts the commits whose increment is missing afterwards. */
    const round = async (run: () => Promise<Outcome[]>): Promise<Outcome[]> => {
      const before = await hotValue();
      const outcome = await run();
      const done = outcome.filter((o) => o.step === 'done').length;
      committed += done;
      lost += done - ((await hotValue()) - before);
      return outcome;
    };

    beforeAll(async () => {
      await cluster.query(1, `CREATE TABLE ${DB}.hot (id INT PRIMARY KEY, v INT NOT NULL)`);
      await cluster.query(1, `INSERT INTO ${DB}.hot VALUES (1, 0)`);
    });
    beforeEach(async () => {
      [a, b, reader] = [await connect(1), await connect(2), await connect(3)];
      await reader.query('SET SESSION wsrep_sync_wait = 1');
    });

    const attempt = async (conn: Connection, sql: string, step: Outcome['step']): Promise<Outcome | undefined> => {
      try {
        await conn.query(sql);
        return undefined;
      } catch (error) {
        await conn.query('ROLLBACK').catch(() => undefined);
        return { step, errno: errno(error) };
      }
    };

    it('both updated before either commits: certification aborts exactly one, with 1213 at COMMIT', async () => {
      const rounds: Outcome[][] = [];
      for (let n = 0; n < ROUNDS; n++) {
        const outcome = await round(async () => {
          // Each node locks the row only locally, so both UPDATEs go through...
          const updated = await Promise.all(
            [a, b].map(async (conn) => {
              await conn.query('BEGIN');
              return attempt(conn, 'UPDATE hot SET v = v + 1 WHERE id = 1', 'UPDATE');
            }),
          );
          // ...and the two write sets, based on the same row version, meet in certification.
          return Promise.all(
            [a, b].map(
              async (conn, i): Promise<Outcome> =>
                updated[i] ?? (await attempt(conn, 'COMMIT', 'COMMIT')) ?? { step: 'done' },
            ),
          );
        });
        rounds.push(outcome);
      }
      const tally = tallyOf(rounds);
      figures.lockstepConflicts = { ...tally, lostUpdates: lost };
      log(`lockstep conflicting updates, ${ROUNDS} rounds: ${JSON.stringify(tally)}, lost updates ${lost}`);
      // Nearly always one is aborted, at COMMIT; the rare round where both commit is MDEV-29044.
      expect(tally.oneAbortedBeforeCommit + tally.other).toBe(0);
      expect(tally.oneAbortedAtCommit).toBeGreaterThanOrEqual(ROUNDS * 0.9);
      expect(lost).toBeLessThanOrEqual(tally.bothCommitted);
      expect(await hotRowOnEveryNode()).toEqual(Array(3).fill(committed - lost));
    });

    it('free-running (BEGIN, UPDATE, COMMIT side by side): most rounds conflict; every node ends on the same value', async () => {
      const rounds: Outcome[][] = [];
      for (let n = 0; n < ROUNDS; n++) {
        const outcome = await round(() =>
          Promise.all(
            [a, b].map(
              async (conn): Promise<Outcome> =>
                (await attempt(conn, 'BEGIN', 'UPDATE')) ??
                (await attempt(conn, 'UPDATE hot SET v = v + 1 WHERE id = 1', 'UPDATE')) ??
                (await attempt(conn, 'COMMIT', 'COMMIT')) ?? { step: 'done' },
            ),
          ),
        );
        rounds.push(outcome);
      }
      const tally = tallyOf(rounds);
      figures.freeRunningConflicts = { ...tally, lostUpdatesSoFar: lost };
      log(`free-running conflicting updates, ${ROUNDS} rounds: ${JSON.stringify(tally)}, lost updates so far ${lost}`);
      expect(tally.other).toBe(0);
      // Rounds where both committed were mostly serialised (one's write set applied before the other's UPDATE).
      expect(lost).toBeLessThanOrEqual(ROUNDS * 0.1);
      expect(await hotRowOnEveryNode()).toEqual(Array(3).fill(committed - lost));
    });
  });

  it('survives kill -9 of node 2 while node 1 writes, and node 2 rejoins by IST', async () => {
    await cluster.query(1, `CREATE TABLE ${DB}.events (id INT AUTO_INCREMENT PRIMARY KEY, at DATETIME(3) NOT NULL)`);
    const writer = await connect(1);
    let writing = true;
    let written = 0;
    let maxLatencyMs = 0;
    const writeErrors: string[] = [];
    const writes = (async () => {
      while (writing) {
        const t = Date.now();
        try {
          await writer.query('INSERT INTO events (at) VALUES (NOW(3))');
          written++;
        } catch (error) {
          writeErrors.push(String((error as Error).message));
        }
        maxLatencyMs = Math.max(maxLatencyMs, Date.now() - t);
        await sleep(20);
      }
    })();

    try {
      await sleep(1000);
      const killedAt = Date.now();
      await cluster.kill(2);
      figures.killDetectedSeconds = (Date.now() - killedAt) / 1000;
      expect(cluster.nodes[1].pid).toBeUndefined();
      for (const node of [1, 3]) expect((await cluster.status(node)).wsrep_cluster_size).toBe('2');
      const beforeDowntime = written;
      await sleep(10_000);
      const duringDowntime = written - beforeDowntime;
      expect(duringDowntime).toBeGreaterThan(0); // node 1 kept accepting writes
      figures.writesWhileNodeDown = duringDowntime;

      const rejoin = await cluster.restart(2);
      figures.restart = rejoin;
      expect(rejoin).toMatchObject({ ist: true, transfer: 'IST' });
      expect((await cluster.status(2)).wsrep_local_state_comment).toBe('Synced');
    } finally {
      writing = false;
      await writes;
    }
    figures.writerMaxLatencyMs = maxLatencyMs;
    expect(writeErrors).toEqual([]);

    await cluster.waitSynced();
    const counts: number[] = [];
    for (const node of [1, 2, 3]) {
      expect((await cluster.status(node)).wsrep_cluster_size).toBe('3');
      const conn = await connect(node);
      await conn.query('SET SESSION wsrep_sync_wait = 1');
      const [[row]] = await conn.query<any[]>('SELECT COUNT(*) AS n FROM events');
      counts.push(Number(row.n));
    }
    expect(counts).toEqual([written, written, written]);
  }, 240_000);

  it('stop() ends every node and removes the temp folder', async () => {
    const pids = cluster.nodes.map((n) => n.pid);
    expect(pids.every((pid) => typeof pid === 'number')).toBe(true);
    await cluster.stop();
    expect(existsSync(cluster.dir)).toBe(false);
    expect(cluster.nodes.map((n) => n.pid)).toEqual([undefined, undefined, undefined]);
    const running = () => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(running()).not.toContain(`--defaults-file=${cluster.dir}`);
    // The watchdog notices the folder is gone within 2 s and exits too.
    for (let i = 0; i < 20 && running().includes(cluster.dir); i++) await sleep(250);
    expect(running()).not.toContain(cluster.dir);
  }, 120_000);
});

describe('Galera cluster harness failures', () => {
  it('reports a node that does not come up with the tail of its error log, and cleans up', async () => {
    let error: Error | undefined;
    try {
      await GaleraCluster.start({
        nodes: 1,
        startTimeoutMs: 60_000,
        providerOptions: ['no.such.option=1'],
      });
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(/node 1 exited .* before it was Synced/);
    expect(error?.message).toMatch(/last lines of .*error\.log/);
    expect(error?.message).toMatch(/no\.such\.option/);
    const dir = /(\/\S*galera-\w+)\/node1\/error\.log/.exec(error!.message)?.[1];
    expect(dir).toBeDefined();
    expect(existsSync(dir!)).toBe(false);
  }, 180_000);
});
