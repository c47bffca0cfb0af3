import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { UserAccessReader } from '../admin/user-access.reader.js';
import { AccessTokenService } from './access-token.service.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { JwtStrategy } from './jwt.strategy.js';

@Module({
  imports: [PassportModule],
  controllers: [AuthController],
  providers: [JwtStrategy, AccessTokenService, AuthService, UserAccessReader],
  exports: [AccessTokenService, UserAccessReader],
})
export class AuthModule {}
