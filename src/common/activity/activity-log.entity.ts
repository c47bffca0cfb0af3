import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../persistence/tenant-owned.entity.js';

@Entity('activity_log')
export class ActivityLog extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 255, nullable: true })
  log_name: string | null;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  subject_type: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  event: string | null;

  @Column({ type: 'bigint', unsigned: true, nullable: true })
  subject_id: number | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  causer_type: string | null;

  @Column({ type: 'bigint', unsigned: true, nullable: true })
  causer_id: number | null;

  @Column({ type: 'text', nullable: true })
  properties: string | null;

  @Column({ type: 'varchar', length: 36, nullable: true })
  batch_uuid: string | null;
}
