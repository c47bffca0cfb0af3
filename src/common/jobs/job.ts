import type { Sql } from '../persistence/database.js';
import type { RetrySchedule } from './retry-schedule.js';

/** A job as its handler gets it: claimed by this instance, leased until `leaseExpiresAt`. */
export interface Job<P = unknown> {
  id: number;
  queue: string;
  /** What the job's concurrency and rate are counted by within its queue (`webhook:12`); '' for none. */
  lane: string;
  tenantId: number | null;
  /** The row the job works on (an import, an erasure, a delivery), when it has one. */
  subjectId: number | null;
  payload: P;
  /** Claims of this job so far, this one included. */
  attempts: number;
  /** When it was due. */
  runAt: number;
  leaseOwner: string;
  leaseExpiresAt: number;
}

/** Why an attempt did not succeed, as the retry schedule reads it. */
export interface JobFailure {
  error: string;
  /** The peer's HTTP status, when there was one (a 429 or 503 may say when to come back). */
  statusCode?: number;
  /** The peer's Retry-After header, as sent. */
  retryAfter?: string;
}

/**
 * What became of one run of a job:
 * - `done`: nothing is left to do (the string says how it ended, for the log and the caller of runOnce);
 * - `retry`: it failed for now: again on the queue's retry schedule, or `failed` once that is spent;
 * - `failed`: it failed for good;
 * - `again`: not finished, nothing wrong: run it again at `at` without spending an attempt (a long
 *   job's next slice, a wait for something else to finish);
 * - `released`: given back unfinished (the instance is stopping, or the lease was lost): another
 *   claim resumes it at once.
 *
 * `record` is what the queue's `settle` writes of the run (a webhook attempt: its answer).
 */
export type JobOutcome =
  | { status: 'done'; note?: string; record?: unknown }
  | { status: 'retry'; failure: JobFailure; record?: unknown }
  | { status: 'failed'; error: string; record?: unknown }
  | { status: 'again'; at: number; note?: string }
  | { status: 'released'; note?: string };

/** A run's outcome as the queue's `settle` records it, with what the schedule made of a retry. */
export interface Settled<P = unknown> {
  job: Job<P>;
  outcome: JobOutcome;
  /** When the job runs again (a retry or `again`); undefined when it ended. */
  nextRunAt?: number;
  /** The outcome a `retry` came to: `retry` while the schedule lasts, then `failed`. */
  final: 'done' | 'retry' | 'failed' | 'again' | 'released';
}

/** How many jobs of one lane may be in flight at once across every instance, and how often one may start. */
export interface LaneLimits {
  concurrency: number;
  /** Starts per second across instances; undefined: as fast as the concurrency allows. */
  ratePerSecond?: number;
}

/** A queue's fixed settings. */
export interface QueueSettings {
  /** kebab-case, stable: stored in every job row and in the metrics. */
  name: string;
  /** Whether this instance claims the queue's jobs (every instance does; tests switch one off to drive it by hand). */
  enabled: boolean;
  /** Jobs of the queue one instance runs at once. */
  concurrency: number;
  /** How long a claim holds without a renewal (the runner renews every third of it while the job runs). */
  leaseMs: number;
  /** How often an idle instance looks for due jobs of the queue. */
  pollMs: number;
  retry: RetrySchedule;
  /** The oldest due job may wait this long before the service reports itself degraded (docs/operations.md). */
  maxWaitSeconds: number;
  /** A recurring job: one is always queued, due this often after the last one ended. */
  everyMs?: number;
  /** A job that fails for good leaves a `failed_jobs` row with its error (imports, erasures). */
  keepFailures?: boolean;
}

/** What a running job may ask of the runner. */
export interface JobContext {
  /** The instance is stopping, or the lease was lost: end at the next safe point and answer `released`. */
  shouldStop(): boolean;
  /**
   * Inside a step's transaction: the lease is still this instance's (renewed), or the step must roll
   * back (throws LeaseLost). Every write a job makes commits with a fence.
   */
  fence(sql: Sql): Promise<void>;
}

/** A queue: its settings and how its jobs run. Declared once per queue and listed in src/background-work.ts. */
export interface JobHandler<P = unknown> {
  readonly settings: QueueSettings;
  run(job: Job<P>, context: JobContext): Promise<JobOutcome>;
  /**
   * Records what became of runs of this queue's jobs, in the transaction that ends or reschedules
   * them (batched: a few hundred at once), and only for jobs whose lease was still this instance's.
   */
  settle?(sql: Sql, settled: readonly Settled<P>[]): Promise<void>;
  /** After `settle` has committed (health changes of a peer, say), outside any transaction. */
  afterSettle?(settled: readonly Settled<P>[]): Promise<void>;
  /** The limits of lanes about to be claimed from; without it a queue's lanes have none but its concurrency. */
  laneLimits?(lanes: readonly string[]): Promise<Map<string, LaneLimits>>;
}

/** A step found its job's lease gone (another instance took it over): it rolls back and the job ends here. */
export class LeaseLost extends Error {
  constructor(job: Pick<Job, 'id' | 'queue'>) {
    super(`${job.queue} job ${job.id}: the lease went to another instance`);
  }
}

/** A new job. */
export interface NewJob<P = unknown> {
  queue: string;
  lane?: string;
  tenantId?: number | null;
  subjectId?: number | null;
  payload?: P;
  /** At most one job of a queue holds a key: enqueuing another with it changes nothing (see `replace`). */
  uniqueKey?: string;
  /** Due at (epoch ms); default now. */
  runAt?: number;
  /** Attempts already spent (a delivery retried by hand continues its schedule). */
  attempts?: number;
}
