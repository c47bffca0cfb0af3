import type { Type } from '@nestjs/common';
import type { TenantOwnedEntity } from '../../common/persistence/tenant-owned.entity.js';
import { quote } from '../../common/persistence/table-gateway.js';
import type { TenantTx } from '../../common/persistence/tables.js';
import type { CustomerTraces } from '../customer/customer-traces.js';
import { CampaignDeliveryState, CampaignRunMember, CampaignRunRecipient } from './entities/campaign-run.entity.js';

/** The run tables that name a customer, in the order an erasure empties them. */
const RUN_ROWS: Type<TenantOwnedEntity & { customer_id: number }>[] = [
  CampaignRunRecipient,
  CampaignDeliveryState,
  CampaignRunMember,
];

const inList = (column: string, ids: readonly number[]) => ({
  sql: `${column} IN (${ids.map(() => '?').join(', ')})`,
  params: [...ids],
});

/**
 * A customer's rows in campaign runs, in its lifecycle (docs/campaign-runs.md#lifecycle): an erasure
 * deletes its membership, its recipient rows and the last record delivered to it (a run's counts
 * keep the number); a merge leaves what each run recorded as it was (who was sent what, then), and
 * the survivor takes over the last records delivered of the sources where it has none of its own,
 * so the next run diffs against them.
 */
export const CUSTOMER_RUN_TRACES: CustomerTraces = {
  erasureCount: 'campaign_rows_deleted',

  async erase(tx, customerIds, limit) {
    if (customerIds.length === 0) return 0;
    let deleted = 0;
    for (const entity of RUN_ROWS) {
      if (deleted >= limit) break;
      const table = tx.table(entity);
      const rows = await table.findBatch([inList(`${quote(table.spec.table)}.customer_id`, customerIds)], {
        limit: limit - deleted,
        lock: true,
      });
      await table.removeMany(rows);
      deleted += rows.length;
    }
    return deleted;
  },

  async move(tx, sourceIds, survivorId) {
    if (sourceIds.length === 0) return;
    const states = tx.table(CampaignDeliveryState);
    const s = quote(states.spec.table);
    const rows = await states.findBatch([inList(`${s}.customer_id`, [...sourceIds, survivorId])], {
      limit: 100_000,
      orderBy: ['delivered_at', 'id'],
      lock: true,
    });
    const held = new Set(
      rows.filter((row) => row.customer_id === survivorId).map((row) => row.campaign_destination_id),
    );
    const taken: CampaignDeliveryState[] = [];
    const dropped: CampaignDeliveryState[] = [];
    // Newest last: of several sources' records for one association, the survivor takes the newest.
    for (const row of [...rows].reverse()) {
      if (row.customer_id === survivorId) continue;
      if (held.has(row.campaign_destination_id)) dropped.push(row);
      else {
        held.add(row.campaign_destination_id);
        taken.push(row);
      }
    }
    await states.removeMany(dropped);
    await moveTo(tx, taken, survivorId);
  },
};

async function moveTo(tx: TenantTx, rows: readonly CampaignDeliveryState[], survivorId: number): Promise<void> {
  if (rows.length === 0) return;
  const states = tx.table(CampaignDeliveryState);
  await states.updateMatching(
    [
      inList(
        `${quote(states.spec.table)}.id`,
        rows.map((row) => row.id),
      ),
    ],
    {
      customer_id: survivorId,
    },
  );
}
