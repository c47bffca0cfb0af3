import { Column, DeleteDateColumn, Entity } from 'typeorm';
import { StringColumn, TextColumn } from '../../../common/database/columns.js';
import { TenantOwnedEntity } from '../../../common/resources/tenant-owned.entity.js';

/** Soft-deleted: a deleted rule vanishes from every read (TypeORM adds `deleted_at IS NULL`). */
@Entity('validation_rules')
export class ValidationRule extends TenantOwnedEntity {
  @StringColumn()
  name: string;

  @TextColumn({ nullable: true })
  description: string | null;

  @TextColumn()
  rule_definition: string;

  @Column({ type: 'boolean', default: true })
  is_active: boolean;

  @DeleteDateColumn({ type: 'datetime', nullable: true })
  deleted_at: Date | null;
}
