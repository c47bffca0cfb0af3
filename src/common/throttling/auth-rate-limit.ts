import { applyDecorators, SetMetadata, type ExecutionContext } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { RouteMetadataCache } from '../http/route-metadata.js';

const AUTH_RATE_LIMITED = 'auth_rate_limited';

/** The stricter limiter of §9 for login and password reset: 5 per minute per (IP, e-mail). */
export const AUTH_THROTTLER = 'auth';

/** OpenAPI marker read by the document post-processor: the operation's answers carry the auth limiter's headers. */
export const AUTH_RATE_LIMITED_EXTENSION = 'x-auth-rate-limited';

export const AuthRateLimited = () =>
  applyDecorators(SetMetadata(AUTH_RATE_LIMITED, true), ApiExtension(AUTH_RATE_LIMITED_EXTENSION, true));

const authRateLimited = new RouteMetadataCache((handler) => Reflect.getMetadata(AUTH_RATE_LIMITED, handler) === true);

export const isAuthRateLimited = (context: ExecutionContext): boolean => authRateLimited.of(context);

export function authAttemptTracker(req: Record<string, unknown>): string {
  const email = (req.body as { email?: unknown } | undefined)?.email;
  const normalized = typeof email === 'string' ? email.trim().toLowerCase() : '';
  return `ip:${String(req.ip)}|email:${normalized}`;
}
