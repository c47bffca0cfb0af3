import { Column, Entity } from 'typeorm';
import { ForeignIdColumn, StringColumn, TextColumn, TimestampColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';

export const ERASURE_STATUSES = ['queued', 'running', 'completed'] as const;
export type ErasureStatus = (typeof ERASURE_STATUSES)[number];

const count = () => Column({ type: 'bigint', unsigned: true, default: 0 });

/**
 * An erasure request (migration 1765000000000): the customer is deleted and suppressed by the
 * request itself; this job then scrubs the traces the service keeps, in batches, under a lease.
 */
@Entity('customer_erasures')
export class CustomerErasure extends TenantOwnedEntity {
  @ForeignIdColumn()
  customer_id: number;

  /** The ids whose traces are scrubbed, as a JSON array: the customer and every customer merged into it. */
  @TextColumn()
  subject_ids: string;

  @StringColumn(16)
  status: ErasureStatus;

  /** The request's id: the job's own writes are logged under it. */
  @StringColumn(36)
  batch_uuid: string;

  @ForeignIdColumn({ nullable: true })
  requested_by: number | null;

  @count()
  activity_entries: number;

  @count()
  events: number;

  @count()
  webhook_attempts: number;

  @count()
  kept_answers: number;

  /** Customers created while the erasure ran that carried its e-mail address or external id: erased too. */
  @count()
  late_arrivals: number;

  /** Tracked events of the customers (customer_events), deleted. */
  @count()
  customer_events_deleted: number;

  /** The customers' rows in campaign runs (membership, recipient rows, last records delivered), deleted. */
  @count()
  campaign_rows_deleted: number;

  @TimestampColumn()
  completed_at: Date | null;
}
