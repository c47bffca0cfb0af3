import { Injectable, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail, type ThrottlerRequest } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=60;w=60`
 * names each limit that applies (quota, window in seconds) and `RateLimit: "default";r=59;t=42` tells
 * what is left of it and in how many seconds it resets. A route under two limiters lists both.
 */
export function addDraftRateLimit(
  reply: FastifyReply,
  policy: string,
  limit: number,
  windowSeconds: number,
  remaining: number,
  resetSeconds: number,
): void {
  const append = (name: string, item: string) => {
    const existing = reply.getHeader(name);
    reply.header(name, existing ? `${String(existing)}, ${item}` : item);
  };
  append('ratelimit-policy', `"${policy}";q=${limit};w=${windowSeconds}`);
  append('ratelimit', `"${policy}";r=${Math.max(0, remaining)};t=${Math.max(0, Math.ceil(resetSeconds))}`);
}

/**
 * The global rate limiter (API-CONVENTIONS §9): one budget per user across every route,
 * per IP when anonymous, with the limit headers on every answer, 429s included. It runs after
 * AuthenticationGuard, so the caller is already known (the token is verified once per request).
 */
@Injectable()
export class ApiThrottlerGuard extends ThrottlerGuard {
  protected async getTracker(req: FastifyRequest): Promise<string> {
    return req.user ? `user:${req.user.id}` : `ip:${req.ip}`;
  }

  protected generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  /** Beside the x-ratelimit-* headers the base class sets, the draft's RateLimit fields. */
  protected async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const allowed = await super.handleRequest(props);
    const res = props.context.switchToHttp().getResponse<FastifyReply>();
    const name = props.throttler.name ?? 'default';
    const suffix = name === 'default' ? '' : `-${name}`;
    const remaining = res.getHeader(`${this.headerPrefix}-Remaining${suffix}`);
    const reset = res.getHeader(`${this.headerPrefix}-Reset${suffix}`);
    if (remaining !== undefined) {
      addDraftRateLimit(res, name, props.limit, Math.ceil(props.ttl / 1000), Number(remaining), Number(reset ?? 0));
    }
    return allowed;
  }

  protected async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const res = context.switchToHttp().getResponse<FastifyReply>();
    res.header('x-ratelimit-limit', String(detail.limit));
    res.header('x-ratelimit-remaining', '0');
    res.header('retry-after', String(Math.max(1, detail.timeToBlockExpire)));
    const name = detail.key.slice(0, detail.key.indexOf(':')) || 'default';
    addDraftRateLimit(res, name, detail.limit, Math.ceil(detail.ttl / 1000), 0, Math.max(1, detail.timeToBlockExpire));
    return super.throwThrottlingException(context, detail);
  }
}
