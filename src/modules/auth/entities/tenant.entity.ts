import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../../common/persistence/columns.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';

@Entity('tenants')
export class Tenant extends Timestamped {
  @IdColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  description: string | null;

  @Column({ type: 'boolean', default: true })
  is_active: boolean;
}
