import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { wholeSecondNow } from '../../common/persistence/columns.js';
import { PasswordHasher } from '../../common/auth/password-hasher.js';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { toDate } from '../../common/http/serialize.js';
import { ValidationFailed } from '../../common/http/api-exception.js';
import { Database } from '../../common/persistence/database.js';
import { Tables } from '../../common/persistence/tables.js';
import { MailService } from '../mail/mail.service.js';
import { AccessTokenService } from './access-token.service.js';
import type { ForgotPasswordDto, ResetPasswordDto } from './dto/password-reset.dto.js';
import { User } from './entities/user.entity.js';
import { hashToken, tokenMatches } from './token-hash.js';

/** A reset link works this long after it was requested (API-CONVENTIONS §8). */
export const RESET_TOKEN_TTL_MINUTES = 60;

const unknownUser = () => ValidationFailed.field('email', "We can't find a user with that email address.");
const invalidToken = () => ValidationFailed.field('email', 'This password reset token is invalid.');

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Forgot / reset password: a random single-use token, stored hashed, mailed as a link. */
@Injectable()
export class PasswordResetService {
  constructor(
    private readonly tables: Tables,
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly hasher: PasswordHasher,
    private readonly tokens: AccessTokenService,
    private readonly mail: MailService,
  ) {}

  async forgotPassword(dto: ForgotPasswordDto): Promise<null> {
    const user = await this.findUser(dto.email);
    const token = randomBytes(32).toString('hex');
    // Mail first: when the transport fails (502) nothing is stored and an earlier link keeps working.
    await this.mail.send({ to: user.email, ...this.resetMail(token, user.email) });
    // One pending link per e-mail: the new one replaces the old.
    await this.db.transaction(async (sql) => {
      await sql.run('DELETE FROM password_reset_tokens WHERE email = ?', [user.email]);
      await sql.run('INSERT INTO password_reset_tokens (email, token, created_at) VALUES (?, ?, ?)', [
        user.email,
        hashToken(token),
        wholeSecondNow(),
      ]);
    });
    return null;
  }

  async resetPassword(dto: ResetPasswordDto, requestId: string): Promise<null> {
    const user = await this.findUser(dto.email);
    const [reset] = await this.db.query<{ token: string; created_at: Date | string | null }>(
      'SELECT token, created_at FROM password_reset_tokens WHERE email = ?',
      [user.email],
    );
    if (!reset || !tokenMatches(dto.token, reset.token) || this.isExpired(toDate(reset.created_at))) {
      throw invalidToken();
    }
    const password = await this.hasher.hash(dto.password);
    await this.tables.writeAcrossTenants({ requestId }, async (tx, bookkeeping) => {
      // Conditional on the token, so that of two concurrent resets with one link only one succeeds.
      const used = await bookkeeping.run('DELETE FROM password_reset_tokens WHERE email = ? AND token = ?', [
        user.email,
        reset.token,
      ]);
      if (!used.affected) throw invalidToken();
      // In the log without the secret (it is never logged): which user, when, and that it was a reset by e-mail link.
      await tx
        .acrossTenants(User, (row) => row.tenant_id)
        .update(user, { password }, { description: 'password reset' });
      await this.tokens.revokeAllOfUser(bookkeeping, user.id);
    });
    return null;
  }

  private async findUser(email: string): Promise<User> {
    const [user] = await this.tables.readAcrossTenants(User).findWhere({ email });
    if (!user) throw unknownUser();
    return user;
  }

  private isExpired(createdAt: Date | null): boolean {
    return !createdAt || Date.now() - createdAt.getTime() > RESET_TOKEN_TTL_MINUTES * 60_000;
  }

  private resetMail(token: string, email: string): { subject: string; text: string; html: string } {
    const link = `${this.config.appUrl}/reset-password?token=${token}&email=${encodeURIComponent(email)}`;
    const intro = 'You are receiving this email because we received a password reset request for your account.';
    const expiry = `This password reset link will expire in ${RESET_TOKEN_TTL_MINUTES} minutes.`;
    const outro = 'If you did not request a password reset, no further action is required.';
    return {
      subject: 'Reset Password Notification',
      text: `${intro}\n\nReset your password: ${link}\n\n${expiry}\n\n${outro}\n`,
      html:
        `<p>${intro}</p><p><a href="${escapeHtml(link)}">Reset Password</a></p>` + `<p>${expiry}</p><p>${outro}</p>`,
    };
  }
}
