import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { UserAccessReader } from '../admin/user-access.reader.js';
import { MailModule } from '../mail/mail.module.js';
import { AccessTokenService } from './access-token.service.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { JwtStrategy } from './jwt.strategy.js';
import { PasswordResetService } from './password-reset.service.js';

@Module({
  imports: [PassportModule, MailModule],
  controllers: [AuthController],
  providers: [JwtStrategy, AccessTokenService, AuthService, PasswordResetService, UserAccessReader],
  exports: [AccessTokenService, UserAccessReader],
})
export class AuthModule {}
