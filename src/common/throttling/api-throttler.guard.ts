import { Injectable, type ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import {
  ThrottlerGuard,
  type ThrottlerGenerateKeyFunction,
  type ThrottlerGetTrackerFunction,
  type ThrottlerLimitDetail,
  type ThrottlerOptions,
  type ThrottlerRequest,
} from '@nestjs/throttler';
import {
  THROTTLER_BLOCK_DURATION,
  THROTTLER_KEY_GENERATOR,
  THROTTLER_LIMIT,
  THROTTLER_SKIP,
  THROTTLER_TRACKER,
  THROTTLER_TTL,
} from '@nestjs/throttler/dist/throttler.constants.js';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** One limit as it stands for a request: its quota and window, what is left, and when it resets (seconds). */
export interface LimitState {
  policy: string;
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

const reported = new WeakMap<FastifyReply, LimitState[]>();

/**
 * The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` names every
 * limit that applies (`"default";q=60;w=60, "daily";q=10000;w=86400`: quota, window in seconds);
 * `RateLimit` tells what is left of the one closest to its limit (`"default";r=59;t=42`: remaining,
 * seconds to its reset). Each limiter reports its limit here; the fields are rewritten each time.
 */
export function addDraftRateLimit(reply: FastifyReply, state: LimitState): void {
  const earlier = reported.get(reply);
  if (!earlier) {
    reported.set(reply, [state]);
    reply.header('ratelimit-policy', policyItem(state));
    reply.header('ratelimit', remainingItem(state));
    return;
  }
  earlier.push(state);
  reply.header('ratelimit-policy', earlier.map(policyItem).join(', '));
  reply.header(
    'ratelimit',
    remainingItem(earlier.reduce((a, b) => (b.remaining / b.limit < a.remaining / a.limit ? b : a))),
  );
}

const policyItem = (state: LimitState) => `"${state.policy}";q=${state.limit};w=${state.windowSeconds}`;

const remainingItem = (state: LimitState) =>
  `"${state.policy}";r=${Math.max(0, state.remaining)};t=${Math.max(0, Math.ceil(state.resetSeconds))}`;

/** A throttler as it applies to one route: its decorators' overrides merged with the module's settings. */
interface RoutePlan {
  throttler: ThrottlerOptions;
  skipped: boolean;
  limit: number;
  ttl: number;
  blockDuration: number;
  getTracker: ThrottlerGetTrackerFunction;
  generateKey: ThrottlerGenerateKeyFunction;
}

/**
 * The global rate limiter (API-CONVENTIONS §9): one budget per user across every route,
 * per IP when anonymous, with the limit headers on every answer, 429s included. It runs after
 * AuthenticationGuard, so the caller is already known (the token is verified once per request).
 *
 * The base class reads each throttler's route metadata (skip, limit, ttl, block duration, tracker,
 * key) on every request; here it is read once per route and kept (docs/performance.md). Limits are
 * numbers: a limit computed per request, which @nestjs/throttler also allows, is refused at the
 * route's first request, as are `ignoreUserAgents` and `setHeaders: false`, which it does not apply.
 */
@Injectable()
export class ApiThrottlerGuard extends ThrottlerGuard {
  private readonly plans = new WeakMap<object, RoutePlan[]>();

  async canActivate(context: ExecutionContext): Promise<boolean> {
    for (const plan of this.plansFor(context)) {
      const skipIf = plan.throttler.skipIf ?? this.commonOptions.skipIf;
      if (plan.skipped || skipIf?.(context)) continue;
      await this.handleRequest(Object.assign({ context }, plan));
    }
    return true;
  }

  protected async getTracker(req: FastifyRequest): Promise<string> {
    return req.user ? `user:${req.user.id}` : `ip:${req.ip}`;
  }

  protected generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  /** Counts the hit and sets the x-ratelimit-* headers and the draft's RateLimit fields; throws 429 when spent. */
  protected async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, blockDuration } = props;
    const name = throttler.name ?? 'default';
    const suffix = name === 'default' ? '' : `-${name}`;
    const http = context.switchToHttp();
    const res = http.getResponse<FastifyReply>();
    const tracker = await props.getTracker(http.getRequest<FastifyRequest>(), context);
    const key = props.generateKey(context, tracker, name);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    if (record.isBlocked) {
      res.header(`Retry-After${suffix}`, record.timeToBlockExpire);
      await this.throwThrottlingException(context, { limit, ttl, key, tracker, ...record });
    }
    const remaining = Math.max(0, limit - record.totalHits);
    res.header(`${this.headerPrefix}-Limit${suffix}`, limit);
    res.header(`${this.headerPrefix}-Remaining${suffix}`, remaining);
    res.header(`${this.headerPrefix}-Reset${suffix}`, record.timeToExpire);
    addDraftRateLimit(res, {
      policy: name,
      limit,
      windowSeconds: Math.ceil(ttl / 1000),
      remaining,
      resetSeconds: record.timeToExpire,
    });
    return true;
  }

  protected async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const res = context.switchToHttp().getResponse<FastifyReply>();
    res.header('x-ratelimit-limit', String(detail.limit));
    res.header('x-ratelimit-remaining', '0');
    res.header('retry-after', String(Math.max(1, detail.timeToBlockExpire)));
    const name = detail.key.slice(0, detail.key.indexOf(':')) || 'default';
    addDraftRateLimit(res, {
      policy: name,
      limit: detail.limit,
      windowSeconds: Math.ceil(detail.ttl / 1000),
      remaining: 0,
      resetSeconds: Math.max(1, detail.timeToBlockExpire),
    });
    return super.throwThrottlingException(context, detail);
  }

  private plansFor(context: ExecutionContext): RoutePlan[] {
    const handler = context.getHandler();
    let plans = this.plans.get(handler);
    if (!plans) {
      const targets = [handler, context.getClass()];
      plans = this.throttlers.map((throttler) => this.planOf(throttler, targets));
      this.plans.set(handler, plans);
    }
    return plans;
  }

  private planOf(throttler: ThrottlerOptions, targets: Parameters<Reflector['getAllAndOverride']>[1]): RoutePlan {
    const name = throttler.name ?? 'default';
    const route = <T>(key: string) => this.reflector.getAllAndOverride<T | undefined>(key + name, targets);
    const ttl = numberSetting(route(THROTTLER_TTL) ?? throttler.ttl, 'ttl', name);
    if ((throttler.ignoreUserAgents ?? this.commonOptions.ignoreUserAgents) !== undefined) {
      throw new Error(`The "${name}" throttler sets ignoreUserAgents, which this guard does not apply.`);
    }
    if ((throttler.setHeaders ?? this.commonOptions.setHeaders) === false) {
      throw new Error(`The "${name}" throttler turns the rate-limit headers off; API-CONVENTIONS §9 requires them.`);
    }
    return {
      throttler,
      skipped: route<boolean>(THROTTLER_SKIP) === true,
      limit: numberSetting(route(THROTTLER_LIMIT) ?? throttler.limit, 'limit', name),
      ttl,
      blockDuration: numberSetting(
        route(THROTTLER_BLOCK_DURATION) ?? throttler.blockDuration ?? ttl,
        'blockDuration',
        name,
      ),
      getTracker:
        route<ThrottlerGetTrackerFunction>(THROTTLER_TRACKER) ?? throttler.getTracker ?? this.commonOptions.getTracker!,
      generateKey:
        route<ThrottlerGenerateKeyFunction>(THROTTLER_KEY_GENERATOR) ??
        throttler.generateKey ??
        this.commonOptions.generateKey!,
    };
  }
}

function numberSetting(value: unknown, option: string, throttler: string): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new Error(`The "${option}" of the "${throttler}" throttler must be a number (got ${typeof value}).`);
  }
  return value;
}
