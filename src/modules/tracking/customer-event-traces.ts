import { quote } from '../../common/persistence/table-gateway.js';
import type { CustomerTraces } from '../customer/customer-traces.js';
import { CustomerEvent } from './entities/customer-event.entity.js';
import { countDeleted } from './event-names.js';

const inList = (column: string, ids: readonly number[]) => ({
  sql: `${column} IN (${ids.map(() => '?').join(', ')})`,
  params: [...ids],
});

/**
 * A customer's tracked events in its lifecycle (docs/customer-lifecycle.md): an erasure deletes
 * them, a batch per transaction in the order of the customer index; a merge moves the sources'
 * events to the survivor in the merge's transaction (one UPDATE: events are Unrecorded, nobody
 * follows their changes).
 */
export const CUSTOMER_EVENT_TRACES: CustomerTraces = {
  erasureCount: 'customer_events_deleted',

  async erase(tx, customerIds, limit) {
    if (customerIds.length === 0) return 0;
    const events = tx.table(CustomerEvent);
    const e = quote(events.spec.table);
    const rows = await events.findBatch([inList(`${e}.customer_id`, customerIds)], {
      limit,
      orderBy: ['customer_id', 'occurred_at', 'id'],
      lock: true,
    });
    if (rows.length === 0) return 0;
    await events.removeMany(rows);
    await countDeleted(tx, rows);
    return rows.length;
  },

  async move(tx, sourceIds, survivorId) {
    if (sourceIds.length === 0) return;
    const events = tx.table(CustomerEvent);
    await events.updateMatching([inList(`${quote(events.spec.table)}.customer_id`, sourceIds)], {
      customer_id: survivorId,
    });
  },
};
