import { createSecretKey } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { AuthUser } from '../../common/auth/auth-user.js';
import { bearerToken } from '../../common/auth/bearer-token.js';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { AccessTokenService, type AccessTokenClaims } from './access-token.service.js';
import { tokenDigest } from './token-hash.js';

type VerifiedClaims = AccessTokenClaims & { exp: number };

/** A token known good: its claims, and its SHA-256 to compare with its row's. */
interface VerifiedToken {
  claims: VerifiedClaims;
  digest: Buffer;
}

/** Tokens whose signature is known good, kept by one process; each entry is a few hundred bytes. */
const VERIFIED_TOKENS = 10_000;

/**
 * passport-jwt checks the signature and expiry; the token's row decides whether it is still valid.
 *
 * A token whose signature passport-jwt has verified once is remembered with its claims and its
 * SHA-256 until it expires, so a client's next requests skip the signature check and the hashing
 * (decoding and verifying the JWT was a seventh of a GET's CPU: docs/performance.md). The same bytes
 * cannot verify or hash differently later, and every request still reads the token's row and
 * compares its hash, so logout and deactivation still revoke at once.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  private readonly verified = new LRUCache<string, VerifiedToken>({ max: VERIFIED_TOKENS });

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

  /** passport's request type is Express's; the request here is fastify's. */
  authenticate(req: Parameters<Strategy['authenticate']>[0], options?: unknown): void {
    const token = bearerToken(req);
    const known = token === undefined ? undefined : this.verified.get(token);
    if (!known || known.claims.exp * 1000 <= Date.now()) return super.authenticate(req, options);
    this.tokens.authenticate(token!, known.claims, known.digest).then(
      (user) => (user ? this.success(user) : this.fail(401)),
      (error: Error) => this.error(error),
    );
  }

  /** passport-jwt's callback, once it has verified the token's signature and expiry. */
  async validate(req: FastifyRequest, claims: AccessTokenClaims): Promise<AuthUser | null> {
    const token = bearerToken(req) ?? '';
    const digest = tokenDigest(token);
    const user = await this.tokens.authenticate(token, claims, digest);
    if (user && typeof (claims as Partial<VerifiedClaims>).exp === 'number') {
      this.verified.set(token, { claims: claims as VerifiedClaims, digest });
    }
    return user;
  }
}
