import { Column, Entity } from 'typeorm';
import { ForeignIdColumn, StringColumn, TextColumn } from '../../../common/persistence/columns.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { Unrecorded } from '../../../common/persistence/unrecorded.js';
import { ConcurrentBulkInserts } from '../../../common/persistence/concurrent-inserts.js';

/** An instant as epoch milliseconds (a bigint column): one value on both databases, compared as a number. */
const EpochMsColumn = (options: { nullable?: boolean } = {}) => Column({ type: 'bigint', ...options });

/**
 * What a customer did (`POST /api/track`), migration 1765650000000. Unrecorded: an event is a fact
 * about a customer, not a record of the API, so it is neither in the activity log nor in the
 * change feed. `created_at` is when it was received. Many requests insert a thousand at once: as
 * INSERT statements, which take their ids side by side (ConcurrentBulkInserts).
 */
@Entity('customer_events')
@Unrecorded()
@ConcurrentBulkInserts()
export class CustomerEvent extends TenantOwnedEntity {
  @ForeignIdColumn()
  customer_id: number;

  /** The event's name, as an id of customer_event_names. */
  @ForeignIdColumn()
  name_id: number;

  /** The client's key: stored once per tenant (compared exactly). */
  @StringColumn(255)
  message_id: string;

  /** When it happened (the API's `timestamp`). */
  @EpochMsColumn()
  occurred_at: number;

  /** JSON object text, or null. */
  @TextColumn({ nullable: true })
  properties: string | null;
}

/**
 * The tenant's event names (one row per name, compared exactly), with how many events of the name
 * are kept and the newest one's timestamp: kept by every write of events, so that the pickers'
 * list is a read of this small table.
 */
@Entity('customer_event_names')
@Unrecorded()
export class CustomerEventName extends TenantOwnedEntity {
  @StringColumn(255)
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @Column({ type: 'bigint', default: 0 })
  count: number;

  /** The newest kept event's timestamp (epoch ms); null when none is kept. */
  @EpochMsColumn({ nullable: true })
  last_seen_at: number | null;
}
