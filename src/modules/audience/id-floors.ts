import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';

/**
 * Where a tenant's customers created at or after `since` start: the lowest such id (`floor`; one
 * past the newest id when there is none yet), how many there are, and the tenant's newest id then.
 */
export interface IdRange {
  since: string;
  floor: number;
  candidates: number;
  maxId: number;
}

const CACHED_TENANTS = 1000;
const RANGES_PER_TENANT = 16;
/** A range is reused this long, for a `since` at most this much later than its own. */
const REUSE_MS = 10 * 60_000;
const DRIFT_MS = 24 * 3_600_000;

const sinceMs = (since: string) => Date.parse(`${since.replace(' ', 'T')}Z`);

/**
 * The id ranges of recent member scans, per tenant, so that the count, the pages and the preview
 * of an audience (and the next minutes of within_last_days) find their id floor without reading
 * the (tenant_id, created_at, id) range again (~70 ms for 333k customers).
 *
 * A floor found for `since` stays a valid floor for every later `since`: customers get ever larger
 * ids and their created_at never changes, so no customer created at or after a later `since` can
 * have a smaller id. A reused floor is only less tight (the scan reads up to a day's customers
 * more). The candidate count and newest id only steer the plan of counts. Entries expire after
 * ten minutes, which bounds what a created_at changed behind the application's back could do.
 */
@Injectable()
export class IdFloors {
  private readonly ranges = new LRUCache<number, { range: IdRange; at: number }[]>({ max: CACHED_TENANTS });

  /** A range of this tenant whose floor holds for `since`, if a recent one is known. */
  find(tenantId: number, since: string): IdRange | undefined {
    const now = Date.now();
    const wanted = sinceMs(since);
    let best: IdRange | undefined;
    for (const { range, at } of this.ranges.get(tenantId) ?? []) {
      const own = sinceMs(range.since);
      if (now - at > REUSE_MS || own > wanted || wanted - own > DRIFT_MS) continue;
      if (!best || own > sinceMs(best.since)) best = range;
    }
    return best;
  }

  remember(tenantId: number, range: IdRange): void {
    const now = Date.now();
    const kept = (this.ranges.get(tenantId) ?? []).filter((entry) => now - entry.at <= REUSE_MS);
    kept.push({ range, at: now });
    this.ranges.set(tenantId, kept.slice(-RANGES_PER_TENANT));
  }
}
