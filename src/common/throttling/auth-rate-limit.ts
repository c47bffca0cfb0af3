import { SetMetadata, type ExecutionContext } from '@nestjs/common';

const AUTH_RATE_LIMITED = 'auth_rate_limited';

/** The stricter limiter of §9 for login and password reset: 5 per minute per (IP, e-mail). */
export const AUTH_THROTTLER = 'auth';

export const AuthRateLimited = () => SetMetadata(AUTH_RATE_LIMITED, true);

export const isAuthRateLimited = (context: ExecutionContext): boolean =>
  Reflect.getMetadata(AUTH_RATE_LIMITED, context.getHandler()) === true;

export function authAttemptTracker(req: Record<string, unknown>): string {
  const email = (req.body as { email?: unknown } | undefined)?.email;
  const normalized = typeof email === 'string' ? email.trim().toLowerCase() : '';
  return `ip:${String(req.ip)}|email:${normalized}`;
}
