import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';

/** How long a claim lasts without renewal: a holder that died frees the lock after this. */
const LEASE_MS = 30_000;
const POLL_MS = 250;
/** An instance waiting longer than this for another's migrations gives up (and exits 1). */
const WAIT_MS = 180_000;

/**
 * Any number of instances may start together on one database: migrations and seeding run in one
 * of them at a time, under this lock. It is a lease row claimed by a committed UPDATE, which holds
 * on a MariaDB Galera cluster too, where GET_LOCK(), LOCK TABLES and FOR UPDATE act on one node
 * only: of two claims committed on two nodes, certification aborts one (deadlock error 1213) or
 * the second matches no row. The holder renews its lease while it works and clears it at the end.
 */
export async function withStartupLock<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  await ensureLockRow(dataSource);
  const owner = randomUUID();
  const deadline = Date.now() + WAIT_MS;
  while (!(await claim(dataSource, owner))) {
    if (Date.now() > deadline) throw new Error('Another instance has held the start-up lock for too long.');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const renewal = setInterval(() => {
    void write(dataSource, 'UPDATE startup_lock SET expires_at = ? WHERE id = 1 AND owner = ?', [
      Date.now() + LEASE_MS,
      owner,
    ]).catch(() => undefined);
  }, LEASE_MS / 3);
  try {
    return await work();
  } finally {
    clearInterval(renewal);
    await write(dataSource, 'UPDATE startup_lock SET owner = NULL, expires_at = 0 WHERE id = 1 AND owner = ?', [
      owner,
    ]).catch(() => undefined);
  }
}

/** The lock lives outside the migrations: it must exist before they run. */
async function ensureLockRow(dataSource: DataSource): Promise<void> {
  await dataSource.query(
    'CREATE TABLE IF NOT EXISTS startup_lock (id INT NOT NULL PRIMARY KEY, owner VARCHAR(64) NULL, expires_at BIGINT NOT NULL)',
  );
  try {
    await dataSource.query('INSERT INTO startup_lock (id, owner, expires_at) VALUES (1, NULL, 0)');
  } catch {
    // Another instance inserted it first: the row is all we need.
  }
}

async function claim(dataSource: DataSource, owner: string): Promise<boolean> {
  const now = Date.now();
  // Looked at first, written only when it seems free: a write waits while the holder is inside a
  // migration's transaction (on SQLite, synchronously, up to the busy timeout), a read does not.
  const [row] = (await dataSource.query('SELECT owner, expires_at FROM startup_lock WHERE id = 1')) as {
    owner: string | null;
    expires_at: number | string;
  }[];
  if (row && row.owner !== null && Number(row.expires_at) >= now) return false;
  try {
    const affected = await write(
      dataSource,
      'UPDATE startup_lock SET owner = ?, expires_at = ? WHERE id = 1 AND (owner IS NULL OR expires_at < ?)',
      [owner, now + LEASE_MS, now],
    );
    return affected === 1;
  } catch {
    // A claim that lost a certification conflict (Galera) or a lock wait is simply not ours.
    return false;
  }
}

async function write(dataSource: DataSource, sql: string, params: unknown[]): Promise<number> {
  const runner = dataSource.createQueryRunner();
  try {
    const result = await runner.query(sql, params, true);
    return Number(result.affected ?? 0);
  } finally {
    await runner.release();
  }
}
