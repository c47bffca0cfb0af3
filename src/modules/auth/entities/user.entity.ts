import { Column, Entity } from 'typeorm';
import { TimestampColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';
import { VersionCounterColumn } from '../../../common/persistence/version-counter.js';

@Entity('users')
export class User extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 255 })
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @Column({ type: 'varchar', length: 255 })
  email: string;

  @TimestampColumn()
  email_verified_at: Date | null;

  @Column({ type: 'varchar', length: 255, select: false })
  password: string;

  @Column({ type: 'varchar', length: 100, nullable: true, select: false })
  remember_token: string | null;

  @Column({ type: 'boolean', default: true })
  is_active: boolean;

  /** Grows with every change of the user's roles or permissions (UserAccessReader caches by it). */
  @VersionCounterColumn()
  access_version: number;
}
