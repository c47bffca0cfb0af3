import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { UserAccessReader } from './user-access.reader.js';
import { MailModule } from '../mail/mail.module.js';
import { AccessTokenService } from './access-token.service.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { JwtStrategy } from './jwt.strategy.js';
import { PasswordResetService } from './password-reset.service.js';
import { UserTokensController } from './user-tokens.controller.js';
import { UserTokensService } from './user-tokens.service.js';

@Module({
  imports: [PassportModule, MailModule],
  controllers: [AuthController, UserTokensController],
  providers: [JwtStrategy, AccessTokenService, AuthService, PasswordResetService, UserAccessReader, UserTokensService],
  exports: [AccessTokenService, UserAccessReader],
})
export class AuthModule {}
