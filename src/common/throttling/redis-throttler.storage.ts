import type { ThrottlerStorage } from '@nestjs/throttler';
import { Redis } from 'ioredis';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

// One round trip, atomic across instances: count the hit, start the window on the first hit.
const INCREMENT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { hits, ttl }
`;

/**
 * Fixed-window counters in Redis, shared by every instance of the service. Written here
 * because the published Redis storages do not yet declare support for NestJS 12; the
 * contract is @nestjs/throttler's ThrottlerStorage interface.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.redis.defineCommand('throttleIncrement', { numberOfKeys: 1, lua: INCREMENT_SCRIPT });
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const run = (this.redis as unknown as { throttleIncrement(k: string, ttl: number): Promise<[number, number]> })
      .throttleIncrement;
    const [totalHits, remainingMs] = await run.call(this.redis, this.prefix + key, ttl);
    const timeToExpire = Math.max(1, Math.ceil(remainingMs / 1000));
    const isBlocked = totalHits > limit;
    return { totalHits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
