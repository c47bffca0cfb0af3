import type { Sql, SqlValue } from '../persistence/database.js';
import type { Statement } from '../persistence/statement-batch.js';
import type { CountedResource } from './tenant-limits.js';
import { THRESHOLDS, type Threshold } from './usage-thresholds.js';

/**
 * How many rows a count under a limit is spread over (`tenant_usage_shares`). A write takes one at
 * random, so concurrent writers of one tenant rarely wait on each other, where one row per count
 * made them queue (docs/plans-and-usage.md#record-caps).
 */
export const SHARE_COUNT = 64;

/** The limit and the UTC day a share's room was granted under: it holds only while both still do. */
export interface GrantedUnder {
  limit: number;
  day: string;
}

/** How far the shares together may move a count before a write must look at the whole count again. */
export interface Allowance {
  /** Records the shares may add. */
  headroom: number;
  /** Records the shares may take away; null when going down crosses nothing that must be announced. */
  legroom: number | null;
}

/**
 * What the shares may hand out once the count is `count`: up to the limit, but never onto a
 * threshold not announced today, and never back below one not announced today (going below it and
 * up again would be a crossing the shares cannot see). The write that reaches such a mark looks at
 * the whole count and announces it.
 */
export function allowanceAt(count: number, limit: number, announcedToday: ReadonlySet<Threshold>): Allowance {
  let ceiling = limit;
  let floor: number | null = null;
  for (const percentage of THRESHOLDS) {
    if (announcedToday.has(percentage)) continue;
    const mark = Math.ceil((limit * percentage) / 100);
    if (mark > count) ceiling = Math.min(ceiling, mark - 1);
    else floor = Math.max(floor ?? mark, mark);
  }
  return { headroom: Math.max(0, ceiling - count), legroom: floor === null ? null : count - floor };
}

/**
 * The statement that moves the count of `resource` by `delta` through one share picked at random,
 * if that share was granted under `limit` today and has room for it. A write of one record sends it
 * last in its transaction, so the share is held only until the commit; when it changes nothing, the
 * write runs again and looks at the whole count (`lockAll`), granting the shares again. A batch runs
 * it before it creates, for the records it is about to create.
 */
export function shareMove(tenantId: number, resource: CountedResource, delta: number, grant: GrantedUnder): Statement {
  const up = Math.max(0, delta);
  const down = Math.max(0, -delta);
  return {
    sql: `UPDATE tenant_usage_shares SET delta = delta + ?, headroom = headroom - ?, legroom = legroom - ?
      WHERE tenant_id = ? AND resource = ? AND share = ? AND granted_under = ? AND granted_on = ?
        AND headroom >= ? AND (legroom IS NULL OR legroom >= ?)`,
    params: [
      delta,
      up,
      down,
      tenantId,
      resource,
      Math.floor(Math.random() * SHARE_COUNT),
      grant.limit,
      grant.day,
      up,
      down,
    ],
    mustChange: `the ${resource} share of tenant ${tenantId} had no room`,
  };
}

/**
 * Locks every share of the count (creating them the first time) and answers what they moved it by
 * since it last took them in. The caller holds the count's own row locked, which is what makes
 * creating the shares safe, and takes the moves in with `grant`.
 */
export async function lockAll(sql: Sql, tenantId: number, resource: CountedResource): Promise<number> {
  const lock = sql.dialect === 'mysql' ? ' FOR UPDATE' : '';
  const rows = await sql.query<{ share: number | string; delta: number | string }>(
    `SELECT share, delta FROM tenant_usage_shares WHERE tenant_id = ? AND resource = ?${lock}`,
    [tenantId, resource],
  );
  if (rows.length < SHARE_COUNT) {
    const present = new Set(rows.map((row) => Number(row.share)));
    const missing = Array.from({ length: SHARE_COUNT }, (_, share) => share).filter((share) => !present.has(share));
    const values: SqlValue[] = missing.flatMap((share) => [tenantId, resource, share]);
    await sql.run(
      `INSERT INTO tenant_usage_shares (tenant_id, resource, share) VALUES ${missing.map(() => '(?, ?, ?)').join(', ')}`,
      values,
    );
  }
  return rows.reduce((sum, row) => sum + Number(row.delta), 0);
}

/** After `lockAll`: the shares start again from nothing moved, with `allowance` spread over them. */
export async function grant(
  sql: Sql,
  tenantId: number,
  resource: CountedResource,
  allowance: Allowance,
  under: GrantedUnder,
): Promise<void> {
  const { headroom, legroom } = allowance;
  await sql.run(
    `UPDATE tenant_usage_shares
        SET delta = 0,
            headroom = ? + CASE WHEN share < ? THEN 1 ELSE 0 END,
            legroom = ? + CASE WHEN share < ? THEN 1 ELSE 0 END,
            granted_under = ?, granted_on = ?
      WHERE tenant_id = ? AND resource = ?`,
    [
      Math.floor(headroom / SHARE_COUNT),
      headroom % SHARE_COUNT,
      legroom === null ? null : Math.floor(legroom / SHARE_COUNT),
      legroom === null ? 0 : legroom % SHARE_COUNT,
      under.limit,
      under.day,
      tenantId,
      resource,
    ],
  );
}

/** What the shares of a tenant's counts moved them by, by resource (the usage answer adds it in). */
export const SHARE_MOVES_SQL =
  'SELECT resource, SUM(delta) AS n FROM tenant_usage_shares WHERE tenant_id = ? GROUP BY resource';
