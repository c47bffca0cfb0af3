/** A queue's retries: seconds before each, by name (a log line and the docs say which one a queue uses). */
export interface RetrySchedule {
  name: string;
  /** Seconds before the first retry, the second, ...; once spent, the job has failed. */
  delays: readonly number[];
}

/** Standard Webhooks' suggestion, stretched past a day (WEBHOOK_RETRY_SCHEDULE overrides it). */
export const WEBHOOK_RETRIES: RetrySchedule = {
  name: 'webhook',
  delays: [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600],
};

/** The service's own jobs (an import, an erasure, a sweep): what breaks them is usually the database, back soon. */
export const SERVICE_RETRIES: RetrySchedule = { name: 'service', delays: [1, 5, 30, 120, 600, 1800] };

/** The longest wait a peer's Retry-After may ask for. */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/** Random share of a delay added to it, so that jobs that failed together do not come back together. */
const JITTER = 0.1;

/**
 * When to try again after the `attempts`-th attempt failed, or undefined when the schedule is spent:
 * the schedule's delay with up to 10 % jitter, or what a 429 or 503 asks for in Retry-After (seconds
 * or an HTTP date), at most a day.
 */
export function nextAttemptAt(
  schedule: RetrySchedule,
  attempts: number,
  now: number,
  answer: { statusCode?: number; retryAfter?: string } = {},
  random: () => number = Math.random,
): number | undefined {
  if (attempts > schedule.delays.length) return undefined;
  const asked =
    answer.statusCode === 429 || answer.statusCode === 503 ? retryAfterMs(answer.retryAfter, now) : undefined;
  if (asked !== undefined) return now + asked;
  return now + Math.round(schedule.delays[attempts - 1] * 1000 * (1 + random() * JITTER));
}

function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = /^\s*(\d{1,9})\s*$/.exec(header);
  const ms = seconds ? Number(seconds[1]) * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}
