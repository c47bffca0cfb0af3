import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../../common/persistence/columns.js';

/** At most one pending reset per e-mail; `token` is the SHA-256 (hex) of the token mailed to the user. */
@Entity('password_reset_tokens')
export class PasswordResetToken {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  email: string;

  @Column({ type: 'varchar', length: 255 })
  token: string;

  @TimestampColumn()
  created_at: Date | null;
}
