import { Column, Entity } from 'typeorm';
import { StringColumn, TextColumn, TimestampColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';

@Entity('customers')
export class Customer extends TenantOwnedEntity {
  @StringColumn(255, { nullable: true })
  external_id: string | null;

  @StringColumn(255, { nullable: true })
  first_name: string | null;

  @StringColumn(255, { nullable: true })
  last_name: string | null;

  @SortKeyColumn('last_name')
  last_name_key: string | null;

  @StringColumn(255, { nullable: true })
  email: string | null;

  @StringColumn(255, { nullable: true })
  phone: string | null;

  @TextColumn({ nullable: true })
  attributes: string | null;

  @Column({ type: 'boolean', default: true })
  is_active: boolean;

  /** When the customer followed an unsubscribe link (read-only: DELETE /customers/{id}/unsubscribe clears it). */
  @TimestampColumn()
  unsubscribed_at: Date | null;
}
