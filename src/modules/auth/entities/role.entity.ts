import { Column, Entity, JoinTable, ManyToMany, type Relation } from 'typeorm';
import { IdColumn, Timestamped } from '../../../common/persistence/columns.js';
import { Permission } from './permission.entity.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';

@Entity('roles')
export class Role extends Timestamped {
  @IdColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @Column({ type: 'varchar', length: 255, default: 'api' })
  guard_name: string;

  @ManyToMany(() => Permission)
  @JoinTable({
    name: 'role_has_permissions',
    joinColumn: { name: 'role_id', referencedColumnName: 'id' },
    inverseJoinColumn: { name: 'permission_id', referencedColumnName: 'id' },
  })
  permissions: Relation<Permission[]>;
}
