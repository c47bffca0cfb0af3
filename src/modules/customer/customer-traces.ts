import type { TenantTx } from '../../common/persistence/tables.js';

/**
 * What another module keeps per customer, that the customer's lifecycle must reach: an erasure
 * deletes it, a merge moves the sources' to the survivor. Modules above this one declare theirs in
 * the composition root (CUSTOMER_TRACES, src/app.module.ts), so that this module names none of them.
 */
export interface CustomerTraces {
  /** The erasure job's count of what it deleted (a column of customer_erasures). */
  readonly erasureCount: 'customer_events_deleted' | 'campaign_rows_deleted';
  /**
   * Deletes at most `limit` rows of the customers' traces in `tx` (one batch of the erasure job, a
   * short transaction); answers how many it deleted: fewer than `limit` when none are left.
   */
  erase(tx: TenantTx, customerIds: readonly number[], limit: number): Promise<number>;
  /** In the merge's transaction: what the sources had is the survivor's from now on. */
  move(tx: TenantTx, sourceIds: readonly number[], survivorId: number): Promise<void>;
}

/** The CustomerTraces of the modules above this one (provided by the composition root; none by default). */
export const CUSTOMER_TRACES = Symbol('CUSTOMER_TRACES');
