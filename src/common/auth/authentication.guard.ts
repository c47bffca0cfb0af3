import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { RouteMetadataCache } from '../http/route-metadata.js';
import { IS_PUBLIC } from './public.decorator.js';

/**
 * Identifies the caller of a protected route from the bearer token (passport-jwt: signature and
 * expiry, then the token's row), once per request. It never refuses: the rate limiter that runs
 * next counts the request against the caller (or the address), and AccessGuard answers 401 after it,
 * so that every answer carries the rate-limit headers.
 */
@Injectable()
export class AuthenticationGuard extends AuthGuard('jwt') {
  private readonly isPublic: RouteMetadataCache<boolean>;

  constructor(reflector: Reflector) {
    super();
    this.isPublic = new RouteMetadataCache(
      (handler, controller) => reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller]) === true,
    );
  }

  /** Synchronous on a public route; passport's own promise otherwise (no extra hop: Nest awaits each guard's result). */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (this.isPublic.of(context)) return true;
    return super.canActivate(context) as Promise<boolean>;
  }

  /** No caller is not an error here; a failure to check (the database is down) is. */
  handleRequest<TUser>(error: unknown, user: TUser | false): TUser | undefined {
    if (error) throw error;
    return user || undefined;
  }
}
