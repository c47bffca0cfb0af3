import type { TenantTx } from '../../common/persistence/tables.js';
import { Campaign } from './entities/campaign.entity.js';

/**
 * `campaigns.selection_version`: incremented in the transaction of every write that changes whom a
 * campaign selects or how it assigns them (its treatment groups here; its audience links and the
 * rules of its audiences in the audience module). Assignment lookups keep a campaign's definition
 * under it (audience/campaign-definitions.ts).
 */
export const SELECTION_VERSION_COLUMN = 'selection_version';

/** Makes every kept definition of these campaigns stale. */
export async function campaignsChanged(tx: TenantTx, campaignIds: readonly number[]): Promise<void> {
  const campaigns = tx.table(Campaign);
  for (const id of new Set(campaignIds)) await campaigns.claim(id, SELECTION_VERSION_COLUMN);
}
