import { Entity } from 'typeorm';
import { ForeignIdColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';

/**
 * A customer merged into another (migration 1765000000000): the source's id is unique, so a record
 * is merged once at most; an erasure of the survivor reaches the traces of its sources through it.
 */
@Entity('customer_merges')
export class CustomerMerge extends TenantOwnedEntity {
  @ForeignIdColumn()
  survivor_id: number;

  @ForeignIdColumn()
  source_id: number;
}
