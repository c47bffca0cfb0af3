import { Column, DeleteDateColumn, Entity } from 'typeorm';
import { StringColumn, TextColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';

/** Soft-deleted: a deleted rule vanishes from every read (the tenant-scoped table adds `deleted_at IS NULL`). */
@Entity('validation_rules')
export class ValidationRule extends TenantOwnedEntity {
  @StringColumn()
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @TextColumn({ nullable: true })
  description: string | null;

  @TextColumn()
  rule_definition: string;

  @Column({ type: 'boolean', default: true })
  is_active: boolean;

  @DeleteDateColumn({ type: 'datetime', nullable: true })
  deleted_at: Date | null;
}
