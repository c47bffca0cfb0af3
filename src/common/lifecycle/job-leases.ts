import { wholeSecondNow } from '../persistence/columns.js';
import type { Sql, SqlValue } from '../persistence/database.js';

/** A table of background jobs leased, never locked (`status`, `lease_owner`, `lease_expires_at`). */
export interface LeasedTable {
  table: string;
  leaseMs: number;
  /** More to set when a job is claimed (an import's `started_at`), with its values. */
  onClaim?: { set: string; params: () => SqlValue[] };
}

/**
 * Claims the oldest job of `jobs` that is queued, or running on a lease that has run out: an UPDATE
 * committed at once, which only one instance can win. Answers its id.
 */
export async function claimOldestJob(sql: Sql, jobs: LeasedTable, owner: string): Promise<number | undefined> {
  const now = Date.now();
  const claimable = `status IN ('queued', 'running') AND (lease_expires_at IS NULL OR lease_expires_at < ?)`;
  const candidates = await sql.query<{ id: number | string }>(
    `SELECT id FROM ${jobs.table} WHERE ${claimable} ORDER BY id LIMIT 5`,
    [now],
  );
  for (const { id } of candidates) {
    const { affected } = await sql.run(
      `UPDATE ${jobs.table} SET lease_owner = ?, lease_expires_at = ?, status = 'running', updated_at = ?${
        jobs.onClaim ? `, ${jobs.onClaim.set}` : ''
      } WHERE id = ? AND ${claimable}`,
      [owner, now + jobs.leaseMs, wholeSecondNow(), ...(jobs.onClaim?.params() ?? []), Number(id), now],
    );
    if (affected === 1) return Number(id);
  }
  return undefined;
}

/** Gives a job back (graceful stop): another instance resumes it at once. */
export async function releaseJob(sql: Sql, jobs: LeasedTable, jobId: number, owner: string): Promise<void> {
  await sql.run(
    `UPDATE ${jobs.table} SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?`,
    [jobId, owner],
  );
}
