import { Module, type OnModuleDestroy } from '@nestjs/common';
import { InjectThrottlerOptions, ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { AUTH_THROTTLER, authAttemptTracker, isAuthRateLimited } from './auth-rate-limit.js';
import { MemoryThrottlerStorage } from './memory-throttler.storage.js';
import { RateLimitStatus } from './rate-limit-status.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Counters in process by default, in Redis when REDIS_URL is set (shared by every instance). */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        throttlers: [
          { name: 'default', ttl: RATE_LIMIT_WINDOW_MS, limit: config.rateLimitPerMinute },
          {
            name: AUTH_THROTTLER,
            ttl: RATE_LIMIT_WINDOW_MS,
            limit: config.authAttemptsPerMinute,
            getTracker: authAttemptTracker,
            skipIf: (context) => !isAuthRateLimited(context),
          },
        ],
        storage: config.redisUrl
          ? new RedisThrottlerStorage(config.redisUrl, config.rateLimitKeyPrefix)
          : new MemoryThrottlerStorage(),
      }),
    }),
  ],
  providers: [RateLimitStatus],
  exports: [ThrottlerModule, RateLimitStatus],
})
export class ThrottlingModule implements OnModuleDestroy {
  constructor(@InjectThrottlerOptions() private readonly options: ThrottlerModuleOptions) {}

  async onModuleDestroy(): Promise<void> {
    const storage = Array.isArray(this.options) ? undefined : this.options.storage;
    if (storage instanceof RedisThrottlerStorage || storage instanceof MemoryThrottlerStorage) await storage.close();
  }
}
