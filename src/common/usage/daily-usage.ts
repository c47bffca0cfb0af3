import type { FieldErrors } from '../http/api-exception.js';
import { wholeSecondNow } from '../persistence/columns.js';
import type { Sql } from '../persistence/database.js';
import { usageDay } from './usage-thresholds.js';

/** What a tenant uses per UTC day and its plan caps per day (`tenant_daily_usage`), by the name the usage answer gives it. */
export const DAILY_RESOURCES = ['tracked_events'] as const;
export type DailyResource = (typeof DAILY_RESOURCES)[number];

/** The refusal of an item beyond a daily limit: the day's allowance is used up until 00:00 UTC. */
export const dailyCapMessage = (resource: DailyResource, limit: number) =>
  `The plan allows ${limit.toLocaleString('en-US')} ${resource.replace(/_/g, ' ')} a day; the count starts again at 00:00 UTC.`;

/**
 * A tenant's daily counts (`tenant_daily_usage`: one row per tenant, resource and UTC day). A write
 * moves the day's row in its own transaction, so the count is exact and a rolled-back write leaves
 * it as it was. Without a limit the move is one upsert; under one, the write takes what the limit
 * leaves (take): one conditional UPDATE when the row has room, otherwise it locks the row and takes
 * the rest of the day's allowance. The row stays locked until the write commits, so a tenant's
 * writers under a daily limit take turns from that statement on.
 */
export class DailyUsage {
  constructor(readonly resource: DailyResource) {}

  /** What the tenant used on `day` (as `sql` sees it). */
  async used(sql: Pick<Sql, 'query'>, tenantId: number, day = usageDay()): Promise<number> {
    const [row] = await sql.query<{ used: number | string }>(
      'SELECT used FROM tenant_daily_usage WHERE tenant_id = ? AND resource = ? AND day = ?',
      [tenantId, this.resource, day],
    );
    return Number(row?.used ?? 0);
  }

  /** Counts `n` more on `day` (no limit to keep). */
  async add(sql: Sql, tenantId: number, n: number, day = usageDay()): Promise<void> {
    if (n > 0) await this.upsert(sql, tenantId, n, day);
  }

  /** Adds `n` to the day's row, making it the first time. */
  private async upsert(sql: Sql, tenantId: number, n: number, day: string): Promise<void> {
    const now = wholeSecondNow();
    const conflict =
      sql.dialect === 'mysql'
        ? 'ON DUPLICATE KEY UPDATE used = used + VALUES(used), updated_at = VALUES(updated_at)'
        : 'ON CONFLICT (tenant_id, resource, day) DO UPDATE SET used = used + excluded.used, updated_at = excluded.updated_at';
    await sql.run(
      `INSERT INTO tenant_daily_usage (tenant_id, resource, day, used, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) ${conflict}`,
      [tenantId, this.resource, day, n, now, now],
    );
  }

  /**
   * Takes up to `wanted` under `limit` on `day`: answers how many it took (all of them when the
   * day's row has room; otherwise what is left), and the refusal of the rest.
   */
  async take(
    sql: Sql,
    tenantId: number,
    wanted: number,
    limit: number,
    day = usageDay(),
  ): Promise<{ max: number; refusal: FieldErrors }> {
    const refusal = { limit: [dailyCapMessage(this.resource, limit)] };
    if (wanted <= 0) return { max: 0, refusal };
    const now = wholeSecondNow();
    const { affected } = await sql.run(
      `UPDATE tenant_daily_usage SET used = used + ?, updated_at = ?
        WHERE tenant_id = ? AND resource = ? AND day = ? AND used + ? <= ?`,
      [wanted, now, tenantId, this.resource, day, wanted, limit],
    );
    if (affected === 1) return { max: wanted, refusal };
    await this.upsert(sql, tenantId, 0, day);
    const lock = sql.dialect === 'mysql' ? ' FOR UPDATE' : '';
    const [row] = await sql.query<{ used: number | string }>(
      `SELECT used FROM tenant_daily_usage WHERE tenant_id = ? AND resource = ? AND day = ?${lock}`,
      [tenantId, this.resource, day],
    );
    const max = Math.max(0, Math.min(wanted, limit - Number(row?.used ?? 0)));
    if (max > 0) {
      await sql.run(
        'UPDATE tenant_daily_usage SET used = used + ?, updated_at = ? WHERE tenant_id = ? AND resource = ? AND day = ?',
        [max, now, tenantId, this.resource, day],
      );
    }
    return { max, refusal };
  }

  /** Drops the rows of days before `day` (kept no longer than the usage answer needs them). */
  async forgetBefore(sql: Sql, day: string): Promise<number> {
    const { affected } = await sql.run('DELETE FROM tenant_daily_usage WHERE resource = ? AND day < ?', [
      this.resource,
      day,
    ]);
    return affected;
  }
}

/** Customer events `POST /api/track` stored per UTC day (the plan's `tracked_events_per_day`). */
export const TRACKED_EVENTS = new DailyUsage('tracked_events');
