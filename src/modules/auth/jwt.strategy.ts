import { createSecretKey } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
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
    // A key object built once: given the secret as text, jsonwebtoken first tries to read it as a
    // public key on every verification and builds an exception (a third of a request's CPU before).
    const key = createSecretKey(Buffer.from(config.jwtSecret, 'utf8'));
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // jsonwebtoken accepts a KeyObject; passport-jwt's types predate it.
      secretOrKey: key as unknown as string,
      algorithms: ['HS256'],
      passReqToCallback: true,
    });
  }

  async validate(req: FastifyRequest, claims: AccessTokenClaims): Promise<AuthUser | null> {
    return this.tokens.authenticate(bearerToken(req) ?? '', claims);
  }
}
