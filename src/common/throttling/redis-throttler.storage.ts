import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Redis } from 'ioredis';
import { MemoryThrottlerStorage } from './memory-throttler.storage.js';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

// One round trip, atomic across instances: count the hits (ARGV[2]), start the window with the first.
const INCREMENT_SCRIPT = `
local added = tonumber(ARGV[2])
local hits = redis.call('INCRBY', KEYS[1], added)
if hits == added then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { hits, ttl }
`;

/** A Redis that answers slower than this is treated as down for that request. */
const COMMAND_TIMEOUT_MS = 250;

export type SharedCounterStatus = 'up' | 'degraded';

/**
 * Fixed-window counters in Redis, shared by every instance of the service. Written here because the
 * published Redis storages do not declare support for NestJS 11/12; the contract is @nestjs/throttler's
 * ThrottlerStorage interface.
 *
 * One Redis outage is not an outage of the service: while Redis is unreachable (or slower than
 * COMMAND_TIMEOUT_MS) each instance counts in its own memory (the same algorithm), commands never
 * queue up waiting for Redis, one warning is logged when Redis goes and one when it returns, and
 * shared counting resumes by itself once ioredis has reconnected.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly redis: Redis;
  private readonly fallback = new MemoryThrottlerStorage();
  private readonly logger = new Logger('RateLimit');
  private shared = true;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 2_000,
      // Keep reconnecting, at most every 2 s.
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    this.redis.defineCommand('throttleIncrement', { numberOfKeys: 1, lua: INCREMENT_SCRIPT });
    // Connection errors are reported as one transition below, not one log line per attempt.
    this.redis.on('error', () => undefined);
    this.redis.on('ready', () => this.setShared(true));
    this.redis.on('close', () => this.setShared(false));
  }

  get status(): SharedCounterStatus {
    return this.shared && this.redis.status === 'ready' ? 'up' : 'degraded';
  }

  /** Whether the connection to Redis is up (ready for commands) right now. */
  get connection(): 'up' | 'down' {
    return this.redis.status === 'ready' ? 'up' : 'down';
  }

  /**
   * Hits counted in memory while Redis was unavailable (before its connection was ready, or during an
   * outage or a slow command) are added to the shared counter with the next hit, so a caller never
   * gets more than the limit by having its hits split between the two counters.
   */
  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    if (this.redis.status !== 'ready') return this.fallback.count(key, ttl, limit);
    const hits = 1 + this.fallback.take(key);
    try {
      const run = (
        this.redis as unknown as { throttleIncrement(k: string, ttl: number, hits: number): Promise<[number, number]> }
      ).throttleIncrement;
      const [totalHits, remainingMs] = await run.call(this.redis, this.prefix + key, ttl, hits);
      const timeToExpire = Math.max(1, Math.ceil(remainingMs / 1000));
      const isBlocked = totalHits > limit;
      return { totalHits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
    } catch {
      this.setShared(false);
      return this.fallback.count(key, ttl, limit, Date.now(), hits);
    }
  }

  /** A key's hits in its current window, without counting one: the shared count and any not yet added to it. */
  async peek(key: string): Promise<number> {
    const pending = this.fallback.peek(key);
    if (this.redis.status !== 'ready') return pending;
    try {
      return Number((await this.redis.get(this.prefix + key)) ?? 0) + pending;
    } catch {
      return pending;
    }
  }

  async close(): Promise<void> {
    this.fallback.close();
    this.redis.removeAllListeners('close');
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private setShared(shared: boolean): void {
    if (shared === this.shared) return;
    this.shared = shared;
    if (shared) this.logger.warn('Redis is reachable again: rate-limit counters are shared by every instance again.');
    else this.logger.warn('Redis is unreachable: each instance counts rate limits on its own until it returns.');
  }
}
