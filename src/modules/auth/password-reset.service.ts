import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { PasswordHasher } from '../../common/auth/password-hasher.js';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { ValidationFailed } from '../../common/http/api-exception.js';
import { User } from '../admin/entities/user.entity.js';
import { MailService } from '../mail/mail.service.js';
import { AccessTokenService } from './access-token.service.js';
import type { ForgotPasswordDto, ResetPasswordDto } from './dto/password-reset.dto.js';
import { PasswordResetToken } from './entities/password-reset-token.entity.js';
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
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly hasher: PasswordHasher,
    private readonly tokens: AccessTokenService,
    private readonly mail: MailService,
  ) {}

  async forgotPassword(dto: ForgotPasswordDto): Promise<void> {
    const user = await this.dataSource.getRepository(User).findOneBy({ email: dto.email });
    if (!user) throw unknownUser();
    const token = randomBytes(32).toString('hex');
    // Mail first: when the transport fails (502) nothing is stored and an earlier link keeps working.
    await this.mail.send({ to: user.email, ...this.resetMail(token, user.email) });
    await this.dataSource
      .getRepository(PasswordResetToken)
      .upsert({ email: user.email, token: hashToken(token), created_at: new Date() }, ['email']);
  }

  async resetPassword(dto: ResetPasswordDto): Promise<void> {
    const user = await this.dataSource.getRepository(User).findOneBy({ email: dto.email });
    if (!user) throw unknownUser();
    const reset = await this.dataSource.getRepository(PasswordResetToken).findOneBy({ email: user.email });
    if (!reset || !tokenMatches(dto.token, reset.token) || this.isExpired(reset.created_at)) throw invalidToken();
    const password = await this.hasher.hash(dto.password);
    await this.dataSource.transaction(async (manager) => {
      // Conditional on the token, so that of two concurrent resets with one link only one succeeds.
      const used = await manager.delete(PasswordResetToken, { email: reset.email, token: reset.token });
      if (!used.affected) throw invalidToken();
      await manager.update(User, { id: user.id }, { password, updated_at: new Date() });
      await this.tokens.revokeAllOfUser(manager, user.id);
    });
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
