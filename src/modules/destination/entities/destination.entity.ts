import { Column, Entity } from 'typeorm';
import { ForeignIdColumn, StringColumn, TextColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';
import { InternalColumn } from '../../../common/persistence/version-counter.js';

@Entity('destinations')
export class Destination extends TenantOwnedEntity {
  @StringColumn()
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @TextColumn({ nullable: true })
  description: string | null;

  @StringColumn()
  destination_type: string;

  /** As sent, every secret answered as `********` (secrets/connection-secrets.ts); the secrets are in `secrets`. */
  @TextColumn()
  connection_details: string;

  @Column({ type: 'boolean', default: true })
  is_active: boolean;

  /** The secrets of `connection_details` (StoredSecret[] as JSON), sealed by SecretBox; null when it has none. */
  @InternalColumn({ type: 'text', nullable: true })
  secrets: string | null;

  /** A webhook destination's generated `whsec_` secret, sealed; shown by the create answer and rotate-secret only. */
  @InternalColumn({ type: 'text', nullable: true })
  signing_secret: string | null;

  /** The signing secret before the last rotation, sealed: it signs beside the new one until it expires. */
  @InternalColumn({ type: 'text', nullable: true })
  previous_signing_secret: string | null;

  @InternalColumn({ type: 'bigint', nullable: true })
  previous_signing_secret_expires_at: number | null;

  // Health, answered on the destination but written by its deliveries as bookkeeping: no change of the
  // record (no activity entry, no event, updated_at stays).

  @InternalColumn({ type: 'datetime', nullable: true })
  last_success_at: Date | null;

  @InternalColumn({ type: 'datetime', nullable: true })
  last_failure_at: Date | null;

  @InternalColumn({ type: 'text', nullable: true })
  last_error: string | null;

  @InternalColumn({ type: 'int', default: 0 })
  consecutive_failures: number;
}

/** A destination configured for a campaign; it has its own key, used to remove it. */
@Entity('campaign_destinations')
export class CampaignDestination extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_id: number;

  @ForeignIdColumn()
  destination_id: number;

  @ForeignIdColumn({ nullable: true })
  treatment_group_id: number | null;

  @TextColumn()
  attribute_mapping: string;

  @Column({ type: 'boolean', default: true })
  is_active: boolean;
}
