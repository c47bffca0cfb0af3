import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../../common/persistence/columns.js';

@Entity('table_metadata')
export class TableMetadata extends Timestamped {
  @IdColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  table_name: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  display_name: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  app_type: string | null;

  @Column({ type: 'text', nullable: true })
  info: string | null;
}
