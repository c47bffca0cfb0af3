import type { ThrottlerStorage } from '@nestjs/throttler';
import { inProcessCounters, MemoryThrottlerStorage } from './memory-throttler.storage.js';

describe('MemoryThrottlerStorage', () => {
  const storage = new MemoryThrottlerStorage();
  afterAll(() => storage.close());

  it('counts hits per key in a fixed window and blocks past the limit', () => {
    const t0 = 1_000_000;
    expect(storage.count('a', 60_000, 2, t0)).toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    expect(storage.count('a', 60_000, 2, t0 + 1_000).totalHits).toBe(2);
    expect(storage.count('b', 60_000, 2, t0 + 1_000).totalHits).toBe(1);
    expect(storage.count('a', 60_000, 2, t0 + 30_500)).toEqual({
      totalHits: 3,
      timeToExpire: 30,
      isBlocked: true,
      timeToBlockExpire: 30,
    });
  });

  it('hands over the hits of a live window once, and none of an ended one', () => {
    const t0 = 9_000_000;
    storage.count('d', 1_000, 5, t0);
    storage.count('d', 1_000, 5, t0, 2);
    expect(storage.take('d', t0 + 10)).toBe(3);
    expect(storage.take('d', t0 + 10)).toBe(0);
    storage.count('e', 1_000, 5, t0);
    expect(storage.take('e', t0 + 1_000)).toBe(0);
  });

  it('starts a new window when the old one has ended', () => {
    const t0 = 5_000_000;
    storage.count('c', 1_000, 1, t0);
    expect(storage.count('c', 1_000, 1, t0 + 999).isBlocked).toBe(true);
    expect(storage.count('c', 1_000, 1, t0 + 1_000)).toMatchObject({ totalHits: 1, isBlocked: false });
  });
});

describe('inProcessCounters', () => {
  it('gives the storage that counts in this process, and nothing for one whose counts arrive later', () => {
    const memory = new MemoryThrottlerStorage();
    const later: ThrottlerStorage = { increment: () => memory.increment('k', 1000, 1) };
    expect(inProcessCounters(memory)).toBe(memory);
    expect(inProcessCounters(later)).toBeUndefined();
    memory.close();
  });
});
