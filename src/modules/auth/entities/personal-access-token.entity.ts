import { Column, Entity } from 'typeorm';
import { ForeignIdColumn, IdColumn, Timestamped, TimestampColumn } from '../../../common/persistence/columns.js';

/** One row per login (device). The JWT's `jti` names the row; the row keeps only a hash of the JWT. */
@Entity('personal_access_tokens')
export class PersonalAccessToken extends Timestamped {
  @IdColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  tokenable_type: string;

  @ForeignIdColumn()
  tokenable_id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'varchar', length: 64 })
  token: string;

  @Column({ type: 'text', nullable: true })
  abilities: string | null;

  @TimestampColumn()
  last_used_at: Date | null;

  @TimestampColumn()
  expires_at: Date | null;
}
