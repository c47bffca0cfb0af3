import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown } from '@nestjs/common';
import { Metrics, type JobAttemptOutcome } from '../metrics/metrics.js';
import { isDatabaseUnavailable } from '../persistence/database-errors.js';
import { Database, type Sql } from '../persistence/database.js';
import { claimDue, claimInLane, readClaimed, type Claim } from './job-claims.js';
import { LeaseLost, type Job, type JobContext, type JobHandler, type JobOutcome, type Settled } from './job.js';
import { Jobs, RECURRING, type LaneBacklog } from './jobs.js';
import { nextAttemptAt } from './retry-schedule.js';
import { settleJobs } from './job-settlement.js';

/** The queues of the application, listed once (src/background-work.ts). */
export const JOB_HANDLERS = Symbol('JOB_HANDLERS');

/** Due lanes one claim round looks at, oldest first. */
const DUE_LANES_PER_ROUND = 200;
/** Ended runs are settled together, once this many wait or after SETTLE_DELAY_MS. */
const SETTLE_BATCH = 200;
const SETTLE_DELAY_MS = 2;
/** A nudge claims after this long, so that the jobs a burst of writes queued are claimed together. */
const NUDGE_DELAY_MS = 5;
/** A stopping instance waits this long for its jobs to reach a safe point, then gives back what still runs. */
export const STOP_GRACE_MS = 4_000;

/** What waits in one queue. */
export interface QueueBacklog {
  /** Jobs due that no instance holds. */
  pending: number;
  /** How long the oldest of them has been due, in seconds (null when none is). */
  oldest_pending_seconds: number | null;
}

/** A job this instance is running. */
interface Running {
  job: Job;
  handler: JobHandler;
  /** The lease went elsewhere (a renewal or a fence found it gone): the run's outcome is not ours to record. */
  lost: boolean;
  ended: Promise<JobOutcome | undefined>;
}

/**
 * The background-work runner of this instance, one for every queue (docs/architecture.md#background-work):
 *
 * - **Claims** due jobs of the queues this instance runs, under a lease: an UPDATE that moves the
 *   job's `run_at` to the lease's end, so a job is due exactly when nobody holds it (a crashed
 *   instance's jobs come due when their lease runs out). A lane with limits (a webhook endpoint, a
 *   destination) is claimed in a short transaction that locks its `job_lanes` row and counts its
 *   jobs in flight across instances, so its concurrency and rate hold cluster-wide; on Galera every
 *   instance writes through the one agreed node (FailoverPool), where that lock holds.
 * - **Runs** each job with a context whose `fence` checks and renews the lease in the job's own
 *   transactions; the runner renews every lease a third of the way through it while the job runs.
 * - **Settles** what the runs came to in batches: the queue's own record (`settle`) and the job's
 *   end, retry (the queue's named schedule, with jitter, or the peer's Retry-After) or next run, in
 *   one transaction that touches only the jobs still leased to this instance.
 * - **Stops** on SIGTERM: claims nothing more, tells running jobs to stop at their next safe point,
 *   and gives back whatever has not ended within STOP_GRACE_MS: another instance resumes it at once.
 *
 * The event numbering is not a job: see EventSequencer for why.
 */
@Injectable()
export class JobRunner implements BeforeApplicationShutdown {
  /** This instance, as `lease_owner`. */
  readonly owner = `${hostname().slice(0, 40)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly logger = new Logger('Jobs');
  private readonly handlers: ReadonlyMap<string, JobHandler>;
  private readonly running = new Map<number, Running>();
  private readonly inQueue = new Map<string, number>();
  /** Runs ended and waiting to be settled. */
  private ended: Settled[] = [];
  private settleTimer: NodeJS.Timeout | undefined;
  private settling: Promise<void> = Promise.resolve();
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  private nudged: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Runs by queue and what they came to (`done`, `retry`, `failed`, `again`, `released`, `lost`), for the metrics. */
  readonly outcomes = new Map<string, Map<string, number>>();

  constructor(
    private readonly db: Database,
    private readonly jobs: Jobs,
    @Inject(JOB_HANDLERS) handlers: readonly JobHandler[],
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.handlers = new Map(handlers.map((handler) => [handler.settings.name, handler]));
    jobs.onQueued(() => this.nudge());
    metrics?.reportJobs({ backlog: () => this.laneBacklog() });
  }

  /** The queue's handler (every queue is listed in src/background-work.ts). */
  handler(queue: string): JobHandler {
    const handler = this.handlers.get(queue);
    if (!handler) throw new Error(`no job queue named ${queue}`);
    return handler;
  }

  get queues(): readonly JobHandler[] {
    return [...this.handlers.values()];
  }

  /**
   * Starts claiming the jobs of the queues this instance runs: once the application has started
   * (app.factory.ts), after start-up's migrations and seeding, which on SQLite share its one connection.
   */
  start(): void {
    if (this.enabled().length && !this.stopping) this.loop ??= this.loopUntilStopped();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Claims nothing more, lets running jobs end (at most STOP_GRACE_MS) and gives back the rest; idempotent. */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.stopping = true;
    clearTimeout(this.nudged);
    this.wake?.();
    await this.loop;
    const runs = [...this.running.values()];
    const grace = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs).unref());
    if ((await Promise.race([Promise.all(runs.map((run) => run.ended)), grace])) === 'late') {
      await this.giveBack([...this.running.values()]);
    }
    await this.flush();
    clearInterval(this.heartbeat);
  }

  /**
   * What waits in each queue (its lanes added up), and whether a queue's oldest due job has waited
   * past its bound (`maxWaitSeconds`): what /api/health reports.
   */
  async backlog(): Promise<{ queues: Record<string, QueueBacklog>; late: string[] }> {
    const queues: Record<string, QueueBacklog> = {};
    for (const handler of this.queues) queues[handler.settings.name] = { pending: 0, oldest_pending_seconds: null };
    for (const lane of await this.jobs.backlog()) {
      const queue = (queues[lane.queue] ??= { pending: 0, oldest_pending_seconds: null });
      queue.pending += lane.pending;
      queue.oldest_pending_seconds = Math.max(queue.oldest_pending_seconds ?? 0, lane.oldestPendingSeconds ?? 0);
    }
    const late = this.queues
      .filter(
        (handler) => (queues[handler.settings.name].oldest_pending_seconds ?? 0) > handler.settings.maxWaitSeconds,
      )
      .map((handler) => handler.settings.name);
    return { queues, late };
  }

  /** What waits in each lane of every queue (GET /metrics): an idle queue as one empty lane, `default` naming a queue's only lane. */
  async laneBacklog(): Promise<LaneBacklog[]> {
    const bound = (queue: string) => this.handlers.get(queue)?.settings.maxWaitSeconds;
    const lanes = (await this.jobs.backlog()).map((lane) => ({
      ...lane,
      lane: lane.lane || 'default',
      maxWaitSeconds: bound(lane.queue),
    }));
    const idle = this.queues
      .filter((handler) => !lanes.some((lane) => lane.queue === handler.settings.name))
      .map((handler) => ({
        queue: handler.settings.name,
        lane: 'default',
        pending: 0,
        oldestPendingSeconds: null,
        maxWaitSeconds: handler.settings.maxWaitSeconds,
      }));
    return [...lanes, ...idle];
  }

  /** Jobs were queued, or a place freed: a claim round soon. */
  nudge(): void {
    if (this.nudged || this.stopping || !this.loop) return;
    this.nudged = setTimeout(() => {
      this.nudged = undefined;
      this.wake?.();
    }, NUDGE_DELAY_MS);
    this.nudged.unref();
  }

  /**
   * Claims one due job of `queue` and runs it to its outcome, settled (tests and scripts drive a
   * queue so on an instance that does not run it). Undefined when none was due. `stopWhen` tells
   * the job to stop as a shutdown would.
   */
  async runOnce(queue: string, options: { stopWhen?: () => boolean } = {}): Promise<JobOutcome | undefined> {
    await this.ensureRecurring([this.handler(queue)]);
    const [run] = await this.claimRound(new Map([[queue, 1]]), undefined, options.stopWhen);
    if (!run) return undefined;
    const outcome = await run.ended;
    await this.flush();
    return outcome;
  }

  /** Claims and runs the due jobs of `queue` until none is left, then waits for every outcome to be settled. */
  async work(queue: string): Promise<void> {
    await this.ensureRecurring([this.handler(queue)]);
    for (;;) {
      const handler = this.handler(queue);
      const room = handler.settings.concurrency - (this.inQueue.get(queue) ?? 0);
      const runs = room > 0 ? await this.claimRound(new Map([[queue, room]])) : [];
      if (runs.length === 0 && ![...this.running.values()].some((run) => run.job.queue === queue)) break;
      await Promise.race([...this.running.values()].map((run) => run.ended));
    }
    await this.flush();
  }

  private enabled(): JobHandler[] {
    return this.queues.filter((handler) => handler.settings.enabled);
  }

  private async loopUntilStopped(): Promise<void> {
    await this.ensureRecurring(this.enabled());
    const pollMs = Math.min(...this.enabled().map((handler) => handler.settings.pollMs));
    while (!this.stopping) {
      let claimed = 0;
      let wakeAt: number | undefined;
      try {
        const room = new Map<string, number>();
        for (const handler of this.enabled()) {
          const free = handler.settings.concurrency - (this.inQueue.get(handler.settings.name) ?? 0);
          if (free > 0) room.set(handler.settings.name, free);
        }
        const runs = room.size ? await this.claimRound(room, (at) => (wakeAt = Math.min(wakeAt ?? at, at))) : [];
        claimed = runs.length;
      } catch (error) {
        this.warn('claiming jobs', error);
      }
      if (claimed === 0 && !this.stopping) await this.idle(wakeAt === undefined ? pollMs : wakeAt - Date.now());
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, ms));
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Every recurring queue of these has its job queued (the first instance to run one queues it). */
  private async ensureRecurring(handlers: readonly JobHandler[]): Promise<void> {
    const recurring = handlers.filter((handler) => handler.settings.everyMs !== undefined);
    if (recurring.length === 0) return;
    try {
      await this.jobs.enqueue(
        undefined,
        recurring.map((handler) => ({ queue: handler.settings.name, uniqueKey: RECURRING })),
      );
    } catch (error) {
      this.warn('queuing the recurring jobs', error);
    }
  }

  /**
   * One claim round over the queues with room (at most that many jobs each): the due lanes, oldest
   * first, then each lane's due jobs; starts what it claimed and answers the runs. `later` hears
   * when a lane held back by its rate may start its next job.
   */
  private async claimRound(
    room: Map<string, number>,
    later?: (at: number) => void,
    stopWhen?: () => boolean,
  ): Promise<Running[]> {
    const now = Date.now();
    const queues = [...room.keys()];
    const lanes = await this.db.query<{ queue: string; lane: string }>(
      `SELECT queue, lane, MIN(run_at) AS due FROM jobs WHERE queue IN (${queues.map(() => '?').join(', ')}) AND run_at <= ?
        GROUP BY queue, lane ORDER BY due LIMIT ${DUE_LANES_PER_ROUND}`,
      [...queues, now],
    );
    const limits = new Map<string, Awaited<ReturnType<NonNullable<JobHandler['laneLimits']>>>>();
    for (const queue of queues) {
      const handler = this.handler(queue);
      const own = lanes.filter((row) => row.queue === queue).map((row) => row.lane);
      if (handler.laneLimits && own.length) limits.set(queue, await handler.laneLimits(own));
    }
    const claims: Claim[] = [];
    for (const { queue, lane } of lanes) {
      const free = room.get(queue)!;
      if (free <= 0) continue;
      const handler = this.handler(queue);
      const expires = Date.now() + handler.settings.leaseMs;
      const skip = [...this.running.values()].filter((run) => run.job.queue === queue).map((run) => run.job.id);
      const laneLimits = limits.get(queue)?.get(lane);
      const claim = laneLimits
        ? await claimInLane(this.db, { queue, lane, max: free, limits: laneLimits, owner: this.owner, expires, skip })
        : await claimDue(this.db, { queue, lane, max: free, owner: this.owner, expires, skip });
      room.set(queue, free - claim.ids.length);
      if (claim.ids.length) claims.push(claim);
      if (claim.nextStartAt !== undefined) later?.(claim.nextStartAt);
    }
    if (claims.length === 0) return [];
    const jobs = await readClaimed(this.db, claims, this.owner);
    return jobs.map(({ job, startAt }) => this.launch(job, startAt, stopWhen));
  }

  private launch(job: Job, startAt: number, stopWhen?: () => boolean): Running {
    const handler = this.handler(job.queue);
    const run = { job, handler, lost: false } as Running;
    this.running.set(job.id, run);
    this.inQueue.set(job.queue, (this.inQueue.get(job.queue) ?? 0) + 1);
    this.heartbeat ??= setInterval(() => void this.renew(), this.renewEveryMs());
    const context: JobContext = {
      shouldStop: () => this.stopping || run.lost || stopWhen?.() === true,
      fence: (sql) => this.fence(sql, run),
    };
    run.ended = (async () => {
      if (startAt > Date.now()) await new Promise((resolve) => setTimeout(resolve, startAt - Date.now()));
      let outcome: JobOutcome | undefined;
      try {
        outcome = await handler.run(job, context);
      } catch (error) {
        if (error instanceof LeaseLost) run.lost = true;
        else if (isDatabaseUnavailable(error)) {
          // Nothing can be recorded while the database is away: the lease runs out and the job runs again.
          this.logger.warn(`${job.queue} job ${job.id}: database unavailable, leaving the job to its lease`);
        } else {
          const message = error instanceof Error ? error.message : String(error);
          this.logger.error(`${job.queue} job ${job.id} failed: ${message}`);
          outcome = { status: 'retry', failure: { error: message } };
        }
      } finally {
        this.running.delete(job.id);
        this.inQueue.set(job.queue, this.inQueue.get(job.queue)! - 1);
        if (this.running.size === 0) {
          clearInterval(this.heartbeat);
          this.heartbeat = undefined;
        }
      }
      if (outcome && !run.lost) this.end(run, outcome);
      else this.count(job.queue, 'lost');
      this.nudge();
      return outcome;
    })();
    return run;
  }

  /** A run's outcome, with what the queue's schedule makes of it, waits to be settled. */
  private end(run: Running, outcome: JobOutcome): void {
    const { job, handler } = run;
    const now = Date.now();
    const { everyMs, retry } = handler.settings;
    const settled: Settled = { job, outcome, final: outcome.status };
    if (outcome.status === 'retry') {
      settled.nextRunAt = nextAttemptAt(retry, job.attempts, now, outcome.failure);
      if (settled.nextRunAt === undefined) settled.final = 'failed';
    } else if (outcome.status === 'again') settled.nextRunAt = outcome.at;
    else if (outcome.status === 'released') settled.nextRunAt = now;
    // A recurring job never ends: whatever became of this run, it is due again in `everyMs`.
    if (everyMs !== undefined && settled.nextRunAt === undefined) settled.nextRunAt = now + everyMs;
    this.count(job.queue, settled.final);
    this.ended.push(settled);
    if (this.ended.length >= SETTLE_BATCH) void this.flush();
    else this.settleTimer ??= setTimeout(() => void this.flush(), SETTLE_DELAY_MS);
  }

  /** Settles the runs that ended (one transaction), then tells their queues. */
  private flush(): Promise<void> {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    const batch = this.ended;
    if (batch.length === 0) return this.settling;
    this.ended = [];
    this.settling = this.settling
      .then(async () => {
        const kept = await settleJobs(this.db, batch, this.owner, (queue) => this.handler(queue));
        for (const [queue, settled] of groupBy(kept, (s) => s.job.queue)) {
          await this.handler(queue).afterSettle?.(settled);
        }
      })
      .catch((error) => this.warn('settling jobs', error));
    return this.settling;
  }

  private async fence(sql: Sql, run: Running): Promise<void> {
    const expires = Date.now() + run.handler.settings.leaseMs;
    const { affected } = await sql.run(
      'UPDATE jobs SET lease_expires_at = ?, run_at = ?, updated_at = ? WHERE id = ? AND lease_owner = ?',
      [expires, expires, Date.now(), run.job.id, this.owner],
    );
    if (affected !== 1) {
      run.lost = true;
      throw new LeaseLost(run.job);
    }
    run.job.leaseExpiresAt = expires;
  }

  private renewEveryMs(): number {
    return Math.max(50, Math.min(...this.queues.map((handler) => handler.settings.leaseMs)) / 3);
  }

  /** Renews the lease of every job running here; a job whose lease is gone is told to stop. */
  private async renew(): Promise<void> {
    for (const [queue, runs] of groupBy([...this.running.values()], (run) => run.job.queue)) {
      const expires = Date.now() + this.handler(queue).settings.leaseMs;
      const ids = runs.map((run) => run.job.id);
      const marks = ids.map(() => '?').join(', ');
      try {
        const { affected } = await this.db.run(
          `UPDATE jobs SET lease_expires_at = ?, run_at = ? WHERE lease_owner = ? AND id IN (${marks})`,
          [expires, expires, this.owner, ...ids],
        );
        if (affected === ids.length) continue;
        const ours = new Set(
          (
            await this.db.query<{ id: number | string }>(
              `SELECT id FROM jobs WHERE lease_owner = ? AND id IN (${marks})`,
              [this.owner, ...ids],
            )
          ).map((row) => Number(row.id)),
        );
        for (const run of runs) if (!ours.has(run.job.id)) run.lost = true;
      } catch (error) {
        this.warn('renewing leases', error);
      }
    }
  }

  /** Gives back jobs still running when the grace ran out: due again at once, the attempt not spent. */
  private async giveBack(runs: Running[]): Promise<void> {
    if (runs.length === 0) return;
    for (const run of runs) run.lost = true;
    const ids = runs.map((run) => run.job.id);
    try {
      await this.db.run(
        `UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, run_at = ?, attempts = attempts - 1
          WHERE lease_owner = ? AND id IN (${ids.map(() => '?').join(', ')})`,
        [Date.now(), this.owner, ...ids],
      );
    } catch (error) {
      this.warn('giving jobs back', error);
    }
  }

  private count(queue: string, outcome: JobAttemptOutcome): void {
    const counts = this.outcomes.get(queue) ?? new Map<string, number>();
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    this.outcomes.set(queue, counts);
    this.metrics?.jobAttempt(queue, outcome);
  }

  private warn(what: string, error: unknown): void {
    if (isDatabaseUnavailable(error)) return; // the next round, once the database is back
    this.logger.warn(`${what} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}
