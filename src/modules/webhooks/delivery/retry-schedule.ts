/** Seconds before each retry of a failed delivery (Standard Webhooks' suggestion, stretched past a day). */
export const DEFAULT_RETRY_SCHEDULE = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600];

/** The longest wait a receiver's Retry-After may ask for. */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/**
 * When to try a delivery again after its `attempts`-th attempt failed, or undefined when the schedule
 * is spent: the schedule's delay with up to 10 % jitter, or what a 429 or 503 asks for in Retry-After
 * (seconds or an HTTP date), at most a day.
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attempts: number,
  now: number,
  answer: { status?: number; retryAfter?: string } = {},
  random: () => number = Math.random,
): number | undefined {
  if (attempts > schedule.length) return undefined;
  const asked = answer.status === 429 || answer.status === 503 ? retryAfterMs(answer.retryAfter, now) : undefined;
  if (asked !== undefined) return now + asked;
  return now + Math.round(schedule[attempts - 1] * 1000 * (1 + random() * 0.1));
}

function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = /^\s*(\d{1,9})\s*$/.exec(header);
  const ms = seconds ? Number(seconds[1]) * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}
