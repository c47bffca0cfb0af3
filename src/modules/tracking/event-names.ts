import { quote } from '../../common/persistence/table-gateway.js';
import type { TenantReads, TenantTx } from '../../common/persistence/tables.js';
import { CustomerEvent, CustomerEventName } from './entities/customer-event.entity.js';

/**
 * The tenant's dictionary of event names (customer_event_names): events carry a name's id, and
 * each name keeps the count of its kept events and the newest one's timestamp, moved by every
 * write that stores or deletes events, in that write.
 */

/** The ids of `names` (compared exactly), the ones the tenant never used added. */
export async function nameIds(tx: TenantTx, names: readonly string[]): Promise<Map<string, number>> {
  const unique = [...new Set(names)];
  if (unique.length === 0) return new Map();
  const outcomes = await tx.table(CustomerEventName).insertNew(
    unique.map((name) => ({ name })),
    { key: 'name', attempt: tx.attempt },
  );
  // No cap on names: each is created or found.
  return new Map(unique.map((name, i) => [name, (outcomes[i] as { id: number }).id]));
}

/** The ids of `names` the tenant has (a name it never used has none); no write. */
export async function knownNameIds(reads: TenantReads, names: readonly string[]): Promise<Map<string, number>> {
  const holders = await reads.table(CustomerEventName).keyHolders('name', [...new Set(names)]);
  return new Map([...holders].map(([name, holder]) => [name, holder.id]));
}

/** Events stored by this write: each name's count grows, its newest timestamp moves up. */
export async function countStored(tx: TenantTx, events: readonly Pick<CustomerEvent, 'name_id' | 'occurred_at'>[]) {
  const byName = new Map<number, { n: number; newest: number }>();
  for (const { name_id, occurred_at } of events) {
    const entry = byName.get(name_id) ?? { n: 0, newest: occurred_at };
    entry.n++;
    entry.newest = Math.max(entry.newest, occurred_at);
    byName.set(name_id, entry);
  }
  await tx
    .table(CustomerEventName)
    .tally([...byName].map(([id, { n, newest }]) => ({ id, add: { count: n }, atLeast: { last_seen_at: newest } })));
}

/**
 * Events deleted by this write (an erasure, retention): each name's count falls, and its newest
 * timestamp is read again from the events it keeps (null when none), with the name's row locked so
 * that no write of the same name moves it meanwhile.
 */
export async function countDeleted(tx: TenantTx, events: readonly Pick<CustomerEvent, 'name_id'>[]): Promise<void> {
  const deleted = new Map<number, number>();
  for (const { name_id } of events) deleted.set(name_id, (deleted.get(name_id) ?? 0) + 1);
  if (deleted.size === 0) return;
  const names = tx.table(CustomerEventName);
  const locked = await names.findMany(
    [...deleted.keys()].sort((a, b) => a - b),
    { lock: true },
  );
  const updates = [];
  for (const row of locked) {
    updates.push({
      existing: row,
      values: {
        count: Math.max(0, row.count - (deleted.get(row.id) ?? 0)),
        last_seen_at: await newestOf(tx, row.id),
      },
    });
  }
  await names.updateMany(updates);
}

/** The newest timestamp of the tenant's kept events of a name: one probe of the name's index. */
async function newestOf(reads: TenantReads, nameId: number): Promise<number | null> {
  const events = reads.table(CustomerEvent);
  const e = quote(events.spec.table);
  const scope = events.scope(e);
  const [row] = await reads.select<{ newest: number | string | null }>(
    `SELECT MAX(${e}.occurred_at) AS newest FROM ${e} WHERE ${scope.sql} AND ${e}.name_id = ?`,
    [...scope.params, nameId],
  );
  return row?.newest === null || row?.newest === undefined ? null : Number(row.newest);
}
