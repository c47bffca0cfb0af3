import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { AuthUser } from '../../common/auth/auth-user.js';
import { bearerToken } from '../../common/auth/bearer-token.js';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { AccessTokenService, type AccessTokenClaims } from './access-token.service.js';

/** passport-jwt checks the signature and expiry; the token's row decides whether it is still valid. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly tokens: AccessTokenService,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: config.jwtSecret,
      algorithms: ['HS256'],
      passReqToCallback: true,
    });
  }

  async validate(req: Request, claims: AccessTokenClaims): Promise<AuthUser | null> {
    return this.tokens.authenticate(bearerToken(req) ?? '', claims);
  }
}
