import fc from 'fast-check';
import { allowanceAt } from './count-shares.js';
import { THRESHOLDS, thresholdsCrossed, type Threshold } from './usage-thresholds.js';

describe('allowanceAt', () => {
  it('stops short of a threshold not announced today, and of the limit', () => {
    expect(allowanceAt(0, 10, new Set())).toEqual({ headroom: 7, legroom: null });
    expect(allowanceAt(7, 10, new Set())).toEqual({ headroom: 0, legroom: null });
    expect(allowanceAt(8, 10, new Set([80]))).toEqual({ headroom: 1, legroom: null });
    expect(allowanceAt(0, 10, new Set([80]))).toEqual({ headroom: 9, legroom: null });
    expect(allowanceAt(3, 10, new Set([80, 100]))).toEqual({ headroom: 7, legroom: null });
  });

  it('keeps the count from going back below a threshold passed on another day', () => {
    expect(allowanceAt(9, 10, new Set())).toEqual({ headroom: 0, legroom: 1 });
    expect(allowanceAt(10, 10, new Set([100]))).toEqual({ headroom: 0, legroom: 2 });
    expect(allowanceAt(10, 10, new Set([80]))).toEqual({ headroom: 0, legroom: 0 });
  });

  it('hands out nothing at or over a limit lowered below the count', () => {
    expect(allowanceAt(12, 10, new Set([80, 100]))).toEqual({ headroom: 0, legroom: null });
    expect(allowanceAt(12, 10, new Set([80]))).toEqual({ headroom: 0, legroom: 2 });
  });

  it('lets no move within the allowance cross a threshold not announced today, nor pass the limit', () => {
    const announced = fc.subarray([...THRESHOLDS]).map((list) => new Set<Threshold>(list));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 0, max: 600 }),
        announced,
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        (limit, count, announcedToday, from, to) => {
          const { headroom, legroom } = allowanceAt(count, limit, announcedToday);
          const low = legroom === null ? count - 600 : count - legroom;
          const span = count + headroom - low + 1;
          const a = low + (from % span);
          const b = low + (to % span);
          if (count <= limit) expect(count + headroom).toBeLessThanOrEqual(limit);
          else expect(headroom).toBe(0);
          expect(thresholdsCrossed(a, b, limit).filter((p) => !announcedToday.has(p))).toEqual([]);
        },
      ),
    );
  });
});
