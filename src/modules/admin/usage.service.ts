import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { DailyQuota } from '../../common/usage/daily-quota.js';
import { TRACKED_EVENTS } from '../../common/usage/daily-usage.js';
import { RecordCaps } from '../../common/usage/record-caps.js';
import { COUNTED_RESOURCES, UNLIMITED } from '../../common/usage/tenant-limits.js';
import { dayEnd, usageDay } from '../../common/usage/usage-thresholds.js';
import type { RecordsUsage, UsageResponse } from './dto/usage.response.js';

/** `GET /api/usage`: the tenant's plan beside what it uses, from kept counts (three reads at any size). */
@Injectable()
export class UsageService {
  constructor(
    private readonly caps: RecordCaps,
    private readonly quota: DailyQuota,
  ) {}

  async usage(auth: AuthContext): Promise<UsageResponse> {
    const now = new Date();
    const [limits, counts, used, tracked] = await Promise.all([
      auth.tenant?.limits ?? this.caps.limitsOf(auth.tenantId).then((found) => found ?? UNLIMITED),
      this.caps.counts(auth.tenantId),
      this.quota.used(auth.tenantId, now),
      this.caps.dailyUsed(TRACKED_EVENTS, auth.tenantId, usageDay(now)),
    ]);
    const records = Object.fromEntries(
      COUNTED_RESOURCES.map((resource) => [
        resource,
        { count: Math.max(0, counts.get(resource) ?? 0), limit: limits[resource] },
      ]),
    ) as unknown as RecordsUsage;
    return {
      api_calls: { used, limit: limits.api_calls_per_day, resets_at: dayEnd(now).toISOString() },
      records,
      tracked_events: { used: tracked, limit: limits.tracked_events_per_day, resets_at: dayEnd(now).toISOString() },
    };
  }
}
