import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../../common/database/columns.js';

@Entity('permissions')
export class Permission extends Timestamped {
  @IdColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'varchar', length: 255, default: 'api' })
  guard_name: string;
}
