import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { IS_PUBLIC } from './public.decorator.js';

/**
 * Identifies the caller of a protected route from the bearer token (passport-jwt: signature and
 * expiry, then the token's row), once per request. It never refuses: the rate limiter that runs
 * next counts the request against the caller (or the address), and AccessGuard answers 401 after it,
 * so that every answer carries the rate-limit headers.
 */
@Injectable()
export class AuthenticationGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    return (await super.canActivate(context)) as boolean;
  }

  /** No caller is not an error here; a failure to check (the database is down) is. */
  handleRequest<TUser>(error: unknown, user: TUser | false): TUser | undefined {
    if (error) throw error;
    return user || undefined;
  }
}
