import type { ThrottlerStorage } from '@nestjs/throttler';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

interface Window {
  hits: number;
  expiresAt: number;
}

/** How often windows that have ended are dropped, so memory follows the active callers only. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Fixed-window counters in this process: one number per caller and window, the same algorithm as
 * the Redis storage. @nestjs/throttler's own in-memory storage keeps one timestamp per hit and
 * filters the list on every request: at thousands of requests a minute that was 12 % of a request's
 * CPU and the memory growth under load (docs/performance.md).
 */
export class MemoryThrottlerStorage implements ThrottlerStorage {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    return this.count(key, ttl, limit);
  }

  /** The synchronous core, also used as the fallback while Redis is unreachable. */
  count(key: string, ttl: number, limit: number, now = Date.now(), hits = 1): ThrottlerStorageRecord {
    let window = this.windows.get(key);
    if (!window || window.expiresAt <= now) {
      window = { hits: 0, expiresAt: now + ttl };
      this.windows.set(key, window);
    }
    window.hits += hits;
    const timeToExpire = Math.max(1, Math.ceil((window.expiresAt - now) / 1000));
    const isBlocked = window.hits > limit;
    return { totalHits: window.hits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
  }

  /** A key's hits in its current window, without counting one (0 when it has none). */
  peek(key: string, now = Date.now()): number {
    const window = this.windows.get(key);
    return window && window.expiresAt > now ? window.hits : 0;
  }

  /** Removes a key's hits in its current window and returns them (0 when it has none). */
  take(key: string, now = Date.now()): number {
    const window = this.windows.get(key);
    if (!window) return 0;
    this.windows.delete(key);
    return window.expiresAt > now ? window.hits : 0;
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private sweep(now = Date.now()): void {
    for (const [key, window] of this.windows) if (window.expiresAt <= now) this.windows.delete(key);
  }
}

/**
 * The storage itself when it counts in this process, so a hit can be counted without a promise;
 * undefined for any other (Redis), whose counts arrive through `increment`'s promise.
 */
export function inProcessCounters(storage: ThrottlerStorage): MemoryThrottlerStorage | undefined {
  return storage instanceof MemoryThrottlerStorage ? storage : undefined;
}
