import type { TenantReads } from '../../../common/persistence/tables.js';
import { CustomerMerge } from '../entities/customer-merge.entity.js';

/**
 * The ids a customer's history is recorded under (the activity log's subject_id, the change feed's
 * resource_id): its own, and those of every customer merged into it, and into those, and so on.
 */
export async function historyIds(reads: TenantReads, customerId: number): Promise<number[]> {
  const ids = [customerId];
  for (let survivors = [customerId]; survivors.length;) {
    const merges = await reads.table(CustomerMerge).findIn('survivor_id', survivors);
    survivors = merges.map((merge) => merge.source_id);
    ids.push(...survivors);
  }
  return ids;
}
