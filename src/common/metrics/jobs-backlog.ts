import type { LaneBacklog } from '../jobs/jobs.js';

export type { LaneBacklog } from '../jobs/jobs.js';

/**
 * What the background jobs owe, read when /metrics is scraped (never on a timer): JobRunner's
 * lanes (Metrics.reportJobs), every queue reported (an idle one with `pending: 0`), so that a
 * missing series means the read failed. Without a source the job gauges have no series.
 */
export interface JobsBacklogSource {
  backlog(): Promise<LaneBacklog[]>;
}

export const JOBS_BACKLOG_SOURCE = Symbol('JOBS_BACKLOG_SOURCE');
