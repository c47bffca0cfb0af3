import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../../common/persistence/columns.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';

@Entity('permissions')
export class Permission extends Timestamped {
  @IdColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @Column({ type: 'varchar', length: 255, default: 'api' })
  guard_name: string;
}
