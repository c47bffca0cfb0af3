import { Injectable, type CanActivate, type ExecutionContext, type OnModuleInit } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerException,
  type ThrottlerGenerateKeyFunction,
  type ThrottlerGetTrackerFunction,
  type ThrottlerModuleOptions,
  type ThrottlerOptions,
  type ThrottlerStorage,
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
import { inProcessCounters, type MemoryThrottlerStorage } from './memory-throttler.storage.js';

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
 * limit that applies, in the order they are counted (`"default";q=60;w=60, "daily";q=10000;w=86400`:
 * quota, window in seconds); `RateLimit` tells what is left of each, nearest exhaustion first
 * (`"daily";r=12;t=3600, "default";r=59;t=42`: remaining, seconds to its reset), so that each
 * x-ratelimit-* family has its item. Each limiter reports its limit here; the fields are rewritten each time.
 */
export function addDraftRateLimit(reply: FastifyReply, state: LimitState): void {
  const earlier = reported.get(reply);
  if (!earlier) {
    reported.set(reply, [state]);
    reply.header('ratelimit-policy', policyItem(state));
    reply.header('ratelimit', remainingItem(state));
    return;
  }
  reply.header('ratelimit-policy', `${String(reply.getHeader('ratelimit-policy'))}, ${policyItem(state)}`);
  // Kept in RateLimit's order by inserting in place (a request reports at most three limits).
  let at = earlier.push(state) - 1;
  for (; at > 0 && nearerExhaustion(state, earlier[at - 1]); at--) earlier[at] = earlier[at - 1];
  earlier[at] = state;
  let field = remainingItem(earlier[0]);
  for (let i = 1; i < earlier.length; i++) field += `, ${remainingItem(earlier[i])}`;
  reply.header('ratelimit', field);
}

/** Fewer requests left; of as many, the one that stays spent longer. */
const nearerExhaustion = (a: LimitState, b: LimitState) =>
  a.remaining < b.remaining || (a.remaining === b.remaining && a.resetSeconds > b.resetSeconds);

const policyItem = (state: LimitState) => `"${state.policy}";q=${state.limit};w=${state.windowSeconds}`;

const remainingItem = (state: LimitState) =>
  `"${state.policy}";r=${Math.max(0, state.remaining)};t=${Math.max(0, Math.ceil(state.resetSeconds))}`;

/** A throttler as it applies to one route: its decorators' overrides merged with the module's settings. */
interface RoutePlan {
  name: string;
  skipIf: ThrottlerOptions['skipIf'];
  skipped: boolean;
  limit: number;
  ttl: number;
  blockDuration: number;
  getTracker: ThrottlerGetTrackerFunction;
  generateKey: ThrottlerGenerateKeyFunction;
  /** Its answer headers' names (`x-ratelimit-limit`, or `x-ratelimit-limit-auth` for the "auth" throttler). */
  headers: { limit: string; remaining: string; reset: string; retryAfter: string };
}

type LimitRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The global rate limiter (API-CONVENTIONS §9): one budget per user across every route,
 * per IP when anonymous, with the limit headers on every answer, 429s included. It runs after
 * AuthenticationGuard, so the caller is already known (the token is verified once per request).
 *
 * It applies @nestjs/throttler's module options and route decorators (@Throttle, @SkipThrottle) to
 * the module's storage, as ThrottlerGuard does, with two differences (docs/performance.md): a route's
 * settings are read once and kept, and while the counters are in this process (no Redis) and the
 * tracker answers at once, a request is counted without a promise (the guard answers `true`
 * synchronously, as Nest lets a guard do). Limits are numbers: a limit computed per request, which
 * @nestjs/throttler also allows, is refused at the route's first request, as are `ignoreUserAgents`
 * and `setHeaders: false`, which it does not apply.
 */
@Injectable()
export class ApiThrottlerGuard implements CanActivate, OnModuleInit {
  private readonly plans = new WeakMap<object, RoutePlan[]>();
  private throttlers: ThrottlerOptions[] = [];
  /** The module's storage when it counts in this process (synchronously); undefined for Redis. */
  private counters: MemoryThrottlerStorage | undefined;
  private moduleWide: Partial<Exclude<ThrottlerModuleOptions, ThrottlerOptions[]>> = {};

  constructor(
    @InjectThrottlerOptions() private readonly options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    this.throttlers = Array.isArray(this.options) ? this.options : this.options.throttlers;
    this.moduleWide = Array.isArray(this.options) ? {} : this.options;
    this.counters = inProcessCounters(this.storage);
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const plans = this.plansFor(context);
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    for (let i = 0; i < plans.length; i++) {
      const plan = plans[i];
      if (!applies(plan, context)) continue;
      const tracker = plan.getTracker(request, context);
      if (!this.counters || typeof tracker !== 'string') return this.countFrom(context, plans, i, tracker);
      const key = plan.generateKey(context, tracker, plan.name);
      this.settle(context, plan, this.counters.count(key, plan.ttl, plan.limit));
    }
    return true;
  }

  /** The throttlers from `from` on, counted through the storage's promises (Redis, or a tracker that answers later). */
  private async countFrom(
    context: ExecutionContext,
    plans: RoutePlan[],
    from: number,
    firstTracker: string | Promise<string>,
  ): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    for (let i = from; i < plans.length; i++) {
      const plan = plans[i];
      if (i > from && !applies(plan, context)) continue;
      const tracker = await (i === from ? firstTracker : plan.getTracker(request, context));
      const key = plan.generateKey(context, tracker, plan.name);
      this.settle(
        context,
        plan,
        await this.storage.increment(key, plan.ttl, plan.limit, plan.blockDuration, plan.name),
      );
    }
    return true;
  }

  /** Sets the x-ratelimit-* headers and the draft's RateLimit fields of a counted hit; throws the 429 when spent. */
  private settle(context: ExecutionContext, plan: RoutePlan, record: LimitRecord): void {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    if (record.isBlocked) {
      const retryAfter = Math.max(1, record.timeToBlockExpire);
      // The spent limiter's own family (x-ratelimit-*-auth for the login limiter): each family tells one budget.
      reply.header(plan.headers.retryAfter, record.timeToBlockExpire);
      reply.header(plan.headers.limit, String(plan.limit));
      reply.header(plan.headers.remaining, '0');
      reply.header(plan.headers.reset, String(retryAfter));
      reply.header('retry-after', String(retryAfter));
      addDraftRateLimit(reply, this.stateOf(plan, 0, retryAfter));
      throw new ThrottlerException();
    }
    const remaining = Math.max(0, plan.limit - record.totalHits);
    reply.header(plan.headers.limit, plan.limit);
    reply.header(plan.headers.remaining, remaining);
    reply.header(plan.headers.reset, record.timeToExpire);
    addDraftRateLimit(reply, this.stateOf(plan, remaining, record.timeToExpire));
  }

  private stateOf(plan: RoutePlan, remaining: number, resetSeconds: number): LimitState {
    return { policy: plan.name, limit: plan.limit, windowSeconds: Math.ceil(plan.ttl / 1000), remaining, resetSeconds };
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
    if ((throttler.ignoreUserAgents ?? this.moduleWide.ignoreUserAgents) !== undefined) {
      throw new Error(`The "${name}" throttler sets ignoreUserAgents, which this guard does not apply.`);
    }
    if ((throttler.setHeaders ?? this.moduleWide.setHeaders) === false) {
      throw new Error(`The "${name}" throttler turns the rate-limit headers off; API-CONVENTIONS §9 requires them.`);
    }
    const suffix = name === 'default' ? '' : `-${name}`;
    return {
      name,
      skipIf: throttler.skipIf ?? this.moduleWide.skipIf,
      skipped: route<boolean>(THROTTLER_SKIP) === true,
      limit: numberSetting(route(THROTTLER_LIMIT) ?? throttler.limit, 'limit', name),
      ttl,
      blockDuration: numberSetting(
        route(THROTTLER_BLOCK_DURATION) ?? throttler.blockDuration ?? ttl,
        'blockDuration',
        name,
      ),
      getTracker:
        route<ThrottlerGetTrackerFunction>(THROTTLER_TRACKER) ??
        throttler.getTracker ??
        this.moduleWide.getTracker ??
        ((req) => trackerOf(req as FastifyRequest)),
      generateKey:
        route<ThrottlerGenerateKeyFunction>(THROTTLER_KEY_GENERATOR) ??
        throttler.generateKey ??
        this.moduleWide.generateKey ??
        ((_context, tracker, throttlerName) => `${throttlerName}:${tracker}`),
      headers: {
        limit: `x-ratelimit-limit${suffix}`,
        remaining: `x-ratelimit-remaining${suffix}`,
        reset: `x-ratelimit-reset${suffix}`,
        retryAfter: `retry-after${suffix}`,
      },
    };
  }
}

/** Whether a throttler counts this request (neither @SkipThrottle on the route nor its skipIf). */
function applies(plan: RoutePlan, context: ExecutionContext): boolean {
  return !plan.skipped && !plan.skipIf?.(context);
}

/** The caller a budget belongs to: the user once authenticated, else the address. */
function trackerOf(req: FastifyRequest): string {
  return req.user ? `user:${req.user.id}` : `ip:${req.ip}`;
}

function numberSetting(value: unknown, option: string, throttler: string): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new Error(`The "${option}" of the "${throttler}" throttler must be a number (got ${typeof value}).`);
  }
  return value;
}
