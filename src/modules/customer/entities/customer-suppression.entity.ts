import { Entity } from 'typeorm';
import { ForeignIdColumn, StringColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { InternalColumn } from '../../../common/persistence/version-counter.js';

export const SUPPRESSION_KINDS = ['email', 'external_id'] as const;
export type SuppressionKind = (typeof SUPPRESSION_KINDS)[number];

/**
 * An erased customer's e-mail address or external id, kept as a keyed hash only (migration
 * 1765000000000): a customer write carrying it is refused until the entry is lifted.
 */
@Entity('customer_suppressions')
export class CustomerSuppression extends TenantOwnedEntity {
  @StringColumn(16)
  kind: SuppressionKind;

  /** HMAC-SHA-256 (hex) of the tenant, kind and value under SUPPRESSION_KEY: never answered, never logged. */
  @InternalColumn({ type: 'varchar', length: 64 })
  value_hash: string;

  @ForeignIdColumn({ nullable: true })
  created_by: number | null;
}
