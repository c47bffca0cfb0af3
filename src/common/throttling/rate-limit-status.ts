import { Injectable } from '@nestjs/common';
import { InjectThrottlerOptions, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

export type RateLimitCounters = 'in-process' | 'shared' | 'degraded';
export type RedisState = 'up' | 'down' | 'not_configured';

/** Where the rate-limit counters are kept right now, and the state of Redis (reported by /api/health). */
@Injectable()
export class RateLimitStatus {
  constructor(@InjectThrottlerOptions() private readonly options: ThrottlerModuleOptions) {}

  counters(): RateLimitCounters {
    const storage = this.redisStorage();
    if (!storage) return 'in-process';
    return storage.status === 'up' ? 'shared' : 'degraded';
  }

  /** Redis, the one dependency besides the database: `not_configured` without REDIS_URL. */
  redis(): RedisState {
    return this.redisStorage()?.connection ?? 'not_configured';
  }

  private redisStorage(): RedisThrottlerStorage | undefined {
    const storage = Array.isArray(this.options) ? undefined : this.options.storage;
    return storage instanceof RedisThrottlerStorage ? storage : undefined;
  }
}
