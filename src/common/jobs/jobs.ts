import { Injectable } from '@nestjs/common';
import { Database, type Sql, type SqlValue } from '../persistence/database.js';
import { slices } from '../persistence/rows-insert.js';
import type { NewJob } from './job.js';

/** The unique key of a recurring queue's one job. */
export const RECURRING = 'recurring';

/** run_at of the jobs of a held lane: never due until the lane is let go. */
export const HELD = Number.MAX_SAFE_INTEGER;

const JOB_COLUMNS = [
  'queue',
  'lane',
  'tenant_id',
  'subject_id',
  'payload',
  'unique_key',
  'attempts',
  'run_at',
  'created_at',
  'updated_at',
];

/** What is waiting in one lane of a queue (GET /metrics reports it). */
export interface LaneBacklog {
  queue: string;
  lane: string;
  /** Jobs due and not in flight. */
  pending: number;
  /** How long the oldest of them has been due, in seconds (null when none is). */
  oldestPendingSeconds: number | null;
  /** The queue's bound on that wait (JobRunner adds it). */
  maxWaitSeconds?: number;
}

/**
 * The jobs table's writes other than the runner's own: what a module queues, cancels or holds, in
 * its write's transaction (`sql`: the bookkeeping SQL of Tables.writeWithBookkeeping) so that a job
 * exists exactly when the write that asked for it committed. The runner (JobRunner) claims them.
 */
@Injectable()
export class Jobs {
  /** Called after a commit that queued jobs: the runner looks now rather than at its next poll. */
  private wake: (queue: string) => void = () => undefined;

  constructor(private readonly db: Database) {}

  /** The runner of this instance (set once by it). */
  onQueued(wake: (queue: string) => void): void {
    this.wake = wake;
  }

  /** Jobs queued by another transaction on this instance have committed: run them soon. */
  nudge(queue: string): void {
    this.wake(queue);
  }

  /**
   * Queues jobs in `sql`'s transaction (or on their own). A job whose queue already holds its
   * `uniqueKey` is not queued again; with `replace`, that job is made due at the new one's time
   * with its attempts (a delivery retried by hand).
   */
  async enqueue(sql: Sql | undefined, jobs: readonly NewJob[], options: { replace?: boolean } = {}): Promise<void> {
    if (jobs.length === 0) return;
    const on = sql ?? this.db;
    const now = Date.now();
    const rows = jobs.map((job): SqlValue[] => [
      job.queue,
      job.lane ?? '',
      job.tenantId ?? null,
      job.subjectId ?? null,
      job.payload === undefined ? null : JSON.stringify(job.payload),
      job.uniqueKey ?? null,
      job.attempts ?? 0,
      job.runAt ?? now,
      now,
      now,
    ]);
    const keyed = jobs.some((job) => job.uniqueKey !== undefined);
    for (const slice of slices(rows, 1000)) {
      if (!keyed) {
        await on.insertRows('jobs', JOB_COLUMNS, slice);
        continue;
      }
      const values = slice.map(() => `(${JOB_COLUMNS.map(() => '?').join(', ')})`).join(', ');
      const onDuplicate =
        on.dialect === 'mysql'
          ? options.replace
            ? 'ON DUPLICATE KEY UPDATE run_at = VALUES(run_at), attempts = VALUES(attempts), updated_at = VALUES(updated_at)'
            : 'ON DUPLICATE KEY UPDATE id = id'
          : options.replace
            ? 'ON CONFLICT (queue, unique_key) DO UPDATE SET run_at = excluded.run_at, attempts = excluded.attempts, updated_at = excluded.updated_at'
            : 'ON CONFLICT (queue, unique_key) DO NOTHING';
      await on.run(`INSERT INTO jobs (${JOB_COLUMNS.join(', ')}) VALUES ${values} ${onDuplicate}`, slice.flat());
    }
    if (!sql) for (const queue of new Set(jobs.map((job) => job.queue))) this.wake(queue);
  }

  /**
   * Replaces a job's payload in `sql`'s transaction: a queue's `settle` keeps only what is left of a
   * job that goes on (a batch retried with the records still pending).
   */
  async setPayload(sql: Sql, id: number, payload: unknown): Promise<void> {
    await sql.run('UPDATE jobs SET payload = ? WHERE id = ?', [JSON.stringify(payload), id]);
  }

  /** Removes a queue's jobs of these subjects (an import cancelled): a run in flight finds its lease gone at its next step. */
  async cancel(sql: Sql, queue: string, subjectIds: readonly number[]): Promise<number> {
    if (subjectIds.length === 0) return 0;
    const { affected } = await sql.run(
      `DELETE FROM jobs WHERE queue = ? AND subject_id IN (${subjectIds.map(() => '?').join(', ')})`,
      [queue, ...subjectIds],
    );
    return affected;
  }

  /** Removes every job of a lane (an endpoint disabled: its deliveries failed with it). */
  async cancelLane(sql: Sql, queue: string, lane: string): Promise<number> {
    const { affected } = await sql.run('DELETE FROM jobs WHERE queue = ? AND lane = ?', [queue, lane]);
    return affected;
  }

  /** Holds a lane: its jobs are not due until `letGo` (an endpoint switched off). Those in flight finish. */
  async hold(sql: Sql, queue: string, lane: string): Promise<void> {
    await sql.run(
      'UPDATE jobs SET run_at = ? WHERE queue = ? AND lane = ? AND (lease_expires_at IS NULL OR lease_expires_at < ?)',
      [HELD, queue, lane, Date.now()],
    );
  }

  /** Lets a held lane's jobs go: due now. */
  async letGo(sql: Sql, queue: string, lane: string): Promise<void> {
    await sql.run('UPDATE jobs SET run_at = ? WHERE queue = ? AND lane = ? AND run_at = ?', [
      Date.now(),
      queue,
      lane,
      HELD,
    ]);
  }

  /** Holds a subject's waiting jobs (a run paused): not due until `letGoOfSubject`. Those in flight finish. */
  async holdSubject(sql: Sql, queue: string, subjectId: number): Promise<number> {
    const { affected } = await sql.run(
      `UPDATE jobs SET run_at = ? WHERE queue = ? AND subject_id = ? AND run_at <> ?
          AND (lease_expires_at IS NULL OR lease_expires_at < ?)`,
      [HELD, queue, subjectId, HELD, Date.now()],
    );
    return affected;
  }

  /** Lets a subject's held jobs go: due now. */
  async letGoOfSubject(sql: Sql, queue: string, subjectId: number): Promise<number> {
    const { affected } = await sql.run('UPDATE jobs SET run_at = ? WHERE queue = ? AND subject_id = ? AND run_at = ?', [
      Date.now(),
      queue,
      subjectId,
      HELD,
    ]);
    return affected;
  }

  /** Removes a subject's jobs that no instance holds (a run cancelled): those in flight finish. */
  async cancelWaiting(sql: Sql, queue: string, subjectId: number): Promise<number> {
    const { affected } = await sql.run(
      'DELETE FROM jobs WHERE queue = ? AND subject_id = ? AND (lease_expires_at IS NULL OR lease_expires_at < ?)',
      [queue, subjectId, Date.now()],
    );
    return affected;
  }

  /** How many jobs of a queue a subject still has (waiting, held or in flight). */
  async count(queue: string, subjectId: number): Promise<number> {
    const [row] = await this.db.query<{ n: number | string }>(
      'SELECT COUNT(*) AS n FROM jobs WHERE queue = ? AND subject_id = ?',
      [queue, subjectId],
    );
    return Number(row?.n ?? 0);
  }

  /**
   * Makes a recurring job due now, unless it is running (a follower of the feed after a numbering
   * pass: one that is running goes on until it has caught up).
   */
  async runNow(queue: string): Promise<void> {
    const now = Date.now();
    await this.db.run(
      `UPDATE jobs SET run_at = ? WHERE queue = ? AND unique_key = ? AND run_at > ? AND run_at < ?
          AND (lease_expires_at IS NULL OR lease_expires_at < ?)`,
      [now, queue, RECURRING, now, HELD, now],
    );
    this.wake(queue);
  }

  /** What waits in each lane: due jobs that no instance holds (one GROUP BY over the due index). */
  backlog(now = Date.now()): Promise<LaneBacklog[]> {
    return this.readBacklog(now);
  }

  private async readBacklog(now: number): Promise<LaneBacklog[]> {
    const rows = await this.db.query<{ queue: string; lane: string; n: number | string; oldest: number | string }>(
      `SELECT queue, lane, COUNT(*) AS n, MIN(run_at) AS oldest FROM jobs WHERE run_at <= ? GROUP BY queue, lane`,
      [now],
    );
    return rows.map((row) => ({
      queue: row.queue,
      lane: row.lane,
      pending: Number(row.n),
      oldestPendingSeconds: Math.max(0, Math.round((now - Number(row.oldest)) / 1000)),
    }));
  }
}
