import type { Database, Sql, SqlValue } from '../persistence/database.js';
import type { Job, LaneLimits } from './job.js';

/** What one lane's claim took: the ids, when each may start (a rate spaces them), and when the lane may start its next. */
export interface Claim {
  queue: string;
  ids: number[];
  startAt: number[];
  expires: number;
  /** The lane held jobs back for its rate: when the next may start. */
  nextStartAt?: number;
}

interface LaneClaim {
  queue: string;
  lane: string;
  max: number;
  owner: string;
  expires: number;
  /** Jobs this instance is running (a stalled run's lease may have run out): never claimed again here. */
  skip: readonly number[];
}

/** A rate lets a lane start up to a second's worth of jobs ahead, each at its own instant. */
const RATE_WINDOW_MS = 1_000;

/** Up to `max` due jobs of a lane without limits: one UPDATE that only a job still due can match. */
export async function claimDue(db: Database, claim: LaneClaim): Promise<Claim> {
  const ids = await dueIds(db, claim, claim.max);
  const won = await lease(db, claim, ids);
  return { queue: claim.queue, ids: won, startAt: won.map(() => 0), expires: claim.expires };
}

/**
 * Up to `max` due jobs of a lane with limits, in one short transaction that holds the lane's row: its
 * jobs in flight (on every instance) are counted under that lock, so its concurrency holds
 * exactly, and its rate is kept in the row as the instant its next job may start.
 */
export async function claimInLane(db: Database, claim: LaneClaim & { limits: LaneLimits }): Promise<Claim> {
  return db.transaction(async (sql) => {
    const now = Date.now();
    const nextStart = await lockLane(sql, claim.queue, claim.lane);
    const [flying] = await sql.query<{ n: number | string }>(
      'SELECT COUNT(*) AS n FROM jobs WHERE queue = ? AND lane = ? AND lease_expires_at >= ?',
      [claim.queue, claim.lane, now],
    );
    let room = Math.min(claim.max, claim.limits.concurrency - Number(flying.n));
    const rate = claim.limits.ratePerSecond;
    const interval = rate ? 1000 / rate : 0;
    const start = Math.max(now, nextStart);
    if (rate) room = Math.min(room, Math.max(0, Math.floor((now + RATE_WINDOW_MS - start) / interval)));
    if (room <= 0) {
      const held = rate && start > now ? start - RATE_WINDOW_MS + interval : undefined;
      return { queue: claim.queue, ids: [], startAt: [], expires: claim.expires, nextStartAt: held };
    }
    const ids = await lease(sql, claim, await dueIds(sql, claim, room));
    const startAt = ids.map((_, i) => (rate ? Math.round(start + i * interval) : 0));
    if (rate && ids.length) {
      await sql.run('UPDATE job_lanes SET next_start_at = ? WHERE queue = ? AND lane = ?', [
        Math.round(start + ids.length * interval),
        claim.queue,
        claim.lane,
      ]);
    }
    return { queue: claim.queue, ids, startAt, expires: claim.expires };
  });
}

/** The claimed jobs, read back by this instance's lease, each with when it may start. */
export async function readClaimed(
  db: Database,
  claims: readonly Claim[],
  owner: string,
): Promise<{ job: Job; startAt: number }[]> {
  const startOf = new Map<number, number>();
  for (const claim of claims) claim.ids.forEach((id, i) => startOf.set(id, claim.startAt[i]));
  const ids = [...startOf.keys()];
  const rows = await db.query<JobRow>(
    `SELECT id, queue, lane, tenant_id, subject_id, payload, attempts, run_at, lease_owner, lease_expires_at
       FROM jobs WHERE id IN (${ids.map(() => '?').join(', ')}) AND lease_owner = ?`,
    [...ids, owner],
  );
  return rows.map((row) => ({ job: jobOf(row), startAt: startOf.get(Number(row.id)) ?? 0 }));
}

interface JobRow {
  id: number | string;
  queue: string;
  lane: string;
  tenant_id: number | string | null;
  subject_id: number | string | null;
  payload: string | null;
  attempts: number | string;
  run_at: number | string;
  lease_owner: string;
  lease_expires_at: number | string;
}

function jobOf(row: JobRow): Job {
  return {
    id: Number(row.id),
    queue: row.queue,
    lane: row.lane,
    tenantId: row.tenant_id === null ? null : Number(row.tenant_id),
    subjectId: row.subject_id === null ? null : Number(row.subject_id),
    payload: row.payload === null ? undefined : JSON.parse(row.payload),
    attempts: Number(row.attempts),
    runAt: Number(row.run_at),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: Number(row.lease_expires_at),
  };
}

async function dueIds(sql: Pick<Sql, 'query'>, claim: LaneClaim, max: number): Promise<number[]> {
  const rows = await sql.query<{ id: number | string }>(
    `SELECT id FROM jobs WHERE queue = ? AND lane = ? AND run_at <= ? ORDER BY run_at, id LIMIT ${max + claim.skip.length}`,
    [claim.queue, claim.lane, Date.now()],
  );
  const skip = new Set(claim.skip);
  return rows
    .map((row) => Number(row.id))
    .filter((id) => !skip.has(id))
    .slice(0, max);
}

/**
 * Leases jobs that are still due: the lease's end becomes their `run_at` (a job is due exactly when
 * nobody holds it), and the claim counts as an attempt. Answers the ids this instance won.
 */
async function lease(sql: Pick<Sql, 'run' | 'query'>, claim: LaneClaim, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const now = Date.now();
  const marks = ids.map(() => '?').join(', ');
  const params: SqlValue[] = [claim.owner, claim.expires, claim.expires, now, ...ids, now];
  const { affected } = await sql.run(
    `UPDATE jobs SET lease_owner = ?, lease_expires_at = ?, run_at = ?, attempts = attempts + 1, updated_at = ?
      WHERE id IN (${marks}) AND run_at <= ?`,
    params,
  );
  if (affected === ids.length) return [...ids];
  const won = await sql.query<{ id: number | string }>(
    `SELECT id FROM jobs WHERE id IN (${marks}) AND lease_owner = ? AND lease_expires_at = ?`,
    [...ids, claim.owner, claim.expires],
  );
  return won.map((row) => Number(row.id));
}

/** Locks the lane's row for the transaction (made the first time), answering when its next job may start. */
async function lockLane(sql: Sql, queue: string, lane: string): Promise<number> {
  const read = () =>
    sql.query<{ next_start_at: number | string }>(
      `SELECT next_start_at FROM job_lanes WHERE queue = ? AND lane = ?${sql.dialect === 'mysql' ? ' FOR UPDATE' : ''}`,
      [queue, lane],
    );
  let [row] = await read();
  if (!row) {
    await sql.run(
      sql.dialect === 'mysql'
        ? 'INSERT INTO job_lanes (queue, lane, next_start_at) VALUES (?, ?, 0) ON DUPLICATE KEY UPDATE queue = queue'
        : 'INSERT INTO job_lanes (queue, lane, next_start_at) VALUES (?, ?, 0) ON CONFLICT DO NOTHING',
      [queue, lane],
    );
    [row] = await read();
  }
  return Number(row.next_start_at);
}
