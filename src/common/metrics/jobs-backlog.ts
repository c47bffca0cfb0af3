/** One lane of a queue of background jobs, as GET /metrics reports it. */
export interface LaneBacklog {
  /** The queue's stable name (`customer-imports`). */
  queue: string;
  /** The lane within the queue. A label value: keep the set of lanes bounded, and free of tenant data. */
  lane: string;
  /** Jobs waiting or running. */
  pending: number;
  /** How long the oldest of them has waited, in seconds; null when there is none. */
  oldestPendingSeconds: number | null;
}

/**
 * What the background jobs owe, read when /metrics is scraped (never on a timer). Optional: without
 * a provider under JOBS_BACKLOG_SOURCE the job gauges are left out. Report every queue, with
 * `pending: 0` when it is idle, so that a missing series means the read failed.
 */
export interface JobsBacklogSource {
  backlog(): Promise<LaneBacklog[]>;
}

export const JOBS_BACKLOG_SOURCE = Symbol('JOBS_BACKLOG_SOURCE');
