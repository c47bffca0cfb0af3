import fc from 'fast-check';
import { nextAttemptAt, type RetrySchedule } from './retry-schedule.js';

const schedule: RetrySchedule = { name: 'test', delays: [5, 60, 600] };
const now = Date.UTC(2026, 10, 28, 12, 0, 0);

describe('nextAttemptAt', () => {
  it("waits the schedule's delay after each failed attempt, and ends once the schedule is spent", () => {
    const noJitter = () => 0;
    expect(nextAttemptAt(schedule, 1, now, {}, noJitter)).toBe(now + 5_000);
    expect(nextAttemptAt(schedule, 2, now, {}, noJitter)).toBe(now + 60_000);
    expect(nextAttemptAt(schedule, 3, now, {}, noJitter)).toBe(now + 600_000);
    expect(nextAttemptAt(schedule, 4, now, {}, noJitter)).toBeUndefined();
  });

  it('adds at most 10 % of the delay as jitter', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const at = nextAttemptAt(schedule, attempt, now, {}, () => r)!;
          const delay = schedule.delays[attempt - 1] * 1000;
          return at >= now + delay && at <= now + delay * 1.1;
        },
      ),
    );
  });

  it('honours Retry-After on a 429 or 503, in seconds or as an HTTP date, at most a day', () => {
    expect(nextAttemptAt(schedule, 1, now, { statusCode: 429, retryAfter: '120' })).toBe(now + 120_000);
    expect(nextAttemptAt(schedule, 1, now, { statusCode: 503, retryAfter: new Date(now + 30_000).toUTCString() })).toBe(
      now + 30_000,
    );
    expect(nextAttemptAt(schedule, 1, now, { statusCode: 429, retryAfter: '999999999' })).toBe(now + 24 * 3600_000);
  });

  it('ignores Retry-After on other statuses, and one it cannot read', () => {
    const noJitter = () => 0;
    expect(nextAttemptAt(schedule, 1, now, { statusCode: 500, retryAfter: '120' }, noJitter)).toBe(now + 5_000);
    expect(nextAttemptAt(schedule, 1, now, { statusCode: 429, retryAfter: 'soon' }, noJitter)).toBe(now + 5_000);
    expect(nextAttemptAt(schedule, 1, now, { statusCode: 429, retryAfter: '-5' }, noJitter)).toBe(now + 5_000);
  });

  it('still ends a spent schedule when the peer asks for a retry', () => {
    expect(nextAttemptAt(schedule, 4, now, { statusCode: 429, retryAfter: '1' })).toBeUndefined();
  });
});
