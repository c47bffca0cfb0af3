import { Injectable, Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { InjectThrottlerStorage, type ThrottlerStorage } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { systemAuth, type AuthContext } from '../auth/auth-context.js';
import { ApiException } from '../http/api-exception.js';
import { Tables } from '../persistence/tables.js';
import { addDraftRateLimit } from '../throttling/api-throttler.guard.js';
import { inProcessCounters } from '../throttling/memory-throttler.storage.js';
import { dayEnd, thresholdsCrossed, usageDay, USAGE_THRESHOLD_EVENT } from './usage-thresholds.js';

const DAY_SECONDS = 86_400;

/** Both storages of ThrottlingModule (memory, Redis with its memory fallback) can read a count without adding to it. */
type CountingStorage = ThrottlerStorage & { peek(key: string): Promise<number> | number };

/**
 * The daily API quota of a tenant's plan (`limits.api_calls_per_day`): every authenticated call of
 * the tenant counts one, in the rate limiter's storage (Redis shared by every instance when
 * REDIS_URL is set, with its outage fallback), under a key of the UTC day, so it resets at 00:00
 * UTC. Calls are counted without a limit too, for the usage answer.
 */
@Injectable()
export class DailyQuota {
  private readonly logger = new Logger('DailyQuota');

  constructor(
    @InjectThrottlerStorage() private readonly storage: CountingStorage,
    private readonly tables: Tables,
  ) {}

  private readonly counters = inProcessCounters(this.storage);

  /** The UTC day the last call fell in, and when it ends: computed again only when a day ends. */
  private day = { key: '', endsAt: 0 };

  /** The tenant's calls today, without counting one. */
  async used(tenantId: number, now = new Date()): Promise<number> {
    return this.storage.peek(`daily:${tenantId}:${this.dayOf(now.getTime()).key}`);
  }

  /**
   * Counts the call; over the limit, 429 with `retry-after` to the reset. Reports the limit in the
   * RateLimit fields. Without a promise while the counters are in this process.
   */
  take(auth: AuthContext, reply: FastifyReply, now = Date.now()): void | Promise<void> {
    const limit = auth.tenant?.limits.api_calls_per_day ?? null;
    const day = this.dayOf(now);
    const ttl = Math.max(1000, day.endsAt - now);
    const key = `daily:${auth.tenantId}:${day.key}`;
    const max = limit ?? Number.MAX_SAFE_INTEGER;
    if (this.counters) return this.settle(auth, reply, limit, ttl, this.counters.count(key, ttl, max).totalHits);
    return this.storage
      .increment(key, ttl, max, ttl, 'daily')
      .then((record) => this.settle(auth, reply, limit, ttl, record.totalHits));
  }

  private settle(auth: AuthContext, reply: FastifyReply, limit: number | null, ttl: number, calls: number): void {
    if (limit === null) return;
    const resetSeconds = Math.ceil(ttl / 1000);
    const remaining = Math.max(0, limit - calls);
    addDraftRateLimit(reply, { policy: 'daily', limit, windowSeconds: DAY_SECONDS, remaining, resetSeconds });
    const crossed = thresholdsCrossed(calls - 1, calls, limit);
    if (crossed.length) this.announce(auth.tenantId, calls, limit, crossed);
    if (calls > limit) {
      throw new ApiException(
        429,
        {
          message: `The daily API quota of ${limit.toLocaleString('en-US')} calls is used up; it resets at 00:00 UTC.`,
        },
        { 'retry-after': String(resetSeconds) },
      );
    }
  }

  private dayOf(now: number): { key: string; endsAt: number } {
    if (now >= this.day.endsAt) {
      const date = new Date(now);
      this.day = { key: usageDay(date), endsAt: dayEnd(date).getTime() };
    }
    return this.day;
  }

  /** `tenant.usage_threshold` for the call that reached 80 % or 100 % (counters are exact: one call does). */
  private announce(tenantId: number, count: number, limit: number, crossed: number[]): void {
    this.tables
      .write(systemAuth(tenantId, `usage-${usageDay()}`), async (tx) => {
        for (const percentage of crossed) {
          tx.announce({
            type: USAGE_THRESHOLD_EVENT,
            resource: 'tenant',
            resourceId: tenantId,
            data: { resource: 'api_calls', count, limit, percentage },
          });
        }
      })
      .catch((error: unknown) => this.logger.warn(`usage threshold of tenant ${tenantId}: ${String(error)}`));
  }
}

/**
 * Counts every authenticated call against its tenant's daily quota: after TenantGuard, which names
 * the tenant, and before AccessGuard and BodyErrorGuard, so that a call they refuse counts too.
 */
@Injectable()
export class QuotaGuard implements CanActivate {
  constructor(private readonly quota: DailyQuota) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!request.auth || request.routeOptions.config.notCounted) return true;
    const taken = this.quota.take(request.auth, context.switchToHttp().getResponse<FastifyReply>());
    return taken ? taken.then(() => true) : true;
  }
}
