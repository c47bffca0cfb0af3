import { Column, Entity } from 'typeorm';
import { ForeignIdColumn, StringColumn, TextColumn, TimestampColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { InternalColumn } from '../../../common/persistence/version-counter.js';

export const DISABLED_REASONS = ['gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

const epochMs = (options: { nullable?: boolean } = {}) =>
  InternalColumn({ type: 'bigint', nullable: options.nullable ?? true });

/** An endpoint that receives the tenant's events (migration 1764900000000). */
@Entity('webhooks')
export class Webhook extends TenantOwnedEntity {
  @StringColumn(2048)
  url: string;

  /** The event types it receives, as a JSON array (`["*"]`: every type). */
  @TextColumn()
  events: string;

  @TextColumn({ nullable: true })
  description: string | null;

  @Column({ type: 'boolean', default: true })
  is_active: boolean;

  @StringColumn(16, { nullable: true })
  disabled_reason: DisabledReason | null;

  /** `whsec_` + base64 of 32 random bytes; signs every delivery; answered once, by the create. */
  @StringColumn(64)
  secret: string;

  /** The secret before the last rotation: it still signs, beside the new one, until it expires. */
  @StringColumn(64, { nullable: true })
  previous_secret: string | null;

  @epochMs()
  previous_secret_expires_at: number | null;

  /** When its deliveries started failing without a success since (epoch ms); 5 days of it disables it. */
  @epochMs()
  failing_since: number | null;

  /** Since when it is active (epoch ms): a delivery queued before it is not sent (a re-enabled endpoint starts from new events). */
  @InternalColumn({ type: 'bigint' })
  active_since: number;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event to one endpoint, until delivered or out of retries (bookkeeping: not in the feed). */
@Entity('webhook_deliveries')
export class WebhookDelivery extends TenantOwnedEntity {
  @ForeignIdColumn()
  webhook_id: number;

  @ForeignIdColumn()
  event_id: number;

  @StringColumn(64)
  event_type: string;

  @StringColumn(16)
  status: DeliveryStatus;

  @Column({ type: 'bigint', unsigned: true, default: 0 })
  attempts: number;

  @Column({ type: 'bigint', nullable: true })
  next_attempt_at: number | null;

  /** When it was queued (epoch ms): by the fan-out, a replay or a retry. */
  @Column({ type: 'bigint' })
  queued_at: number;

  @Column({ type: 'int', nullable: true })
  last_status_code: number | null;

  @TextColumn({ nullable: true })
  last_error: string | null;

  @TimestampColumn()
  delivered_at: Date | null;
}

/** One attempt of a delivery: when, the answer's status and first KiB, or what went wrong. */
@Entity('webhook_attempts')
export class WebhookAttempt extends TenantOwnedEntity {
  @ForeignIdColumn()
  delivery_id: number;

  @Column({ type: 'bigint' })
  at: number;

  @Column({ type: 'int', nullable: true })
  status_code: number | null;

  @Column({ type: 'bigint' })
  duration_ms: number;

  @TextColumn({ nullable: true })
  error: string | null;

  @TextColumn({ nullable: true })
  response_body: string | null;
}
