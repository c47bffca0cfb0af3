import { Column, Entity } from 'typeorm';
import { TimestampColumn } from '../../../common/database/columns.js';
import { TenantOwnedEntity } from '../../../common/resources/tenant-owned.entity.js';

/** `model_type` of users in the polymorphic role, permission, token and activity tables. */
export const USER_MODEL_TYPE = 'user';

@Entity('users')
export class User extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 255 })
  name: string;

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
}
