import { Injectable } from '@nestjs/common';
import { InjectThrottlerOptions, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

export type RateLimitCounters = 'in-process' | 'shared' | 'degraded';

/** Where the rate-limit counters are kept right now (reported by /api/health). */
@Injectable()
export class RateLimitStatus {
  constructor(@InjectThrottlerOptions() private readonly options: ThrottlerModuleOptions) {}

  counters(): RateLimitCounters {
    const storage = Array.isArray(this.options) ? undefined : this.options.storage;
    if (!(storage instanceof RedisThrottlerStorage)) return 'in-process';
    return storage.status === 'up' ? 'shared' : 'degraded';
  }
}
