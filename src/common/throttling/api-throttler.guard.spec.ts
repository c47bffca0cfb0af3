import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  SkipThrottle,
  Throttle,
  ThrottlerException,
  type ThrottlerModuleOptions,
  type ThrottlerOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { addDraftRateLimit, ApiThrottlerGuard } from './api-throttler.guard.js';
import { MemoryThrottlerStorage } from './memory-throttler.storage.js';

class Routes {
  plain(): void {}
  @SkipThrottle()
  skipped(): void {}
  @Throttle({ default: { limit: 2, ttl: 60_000 } })
  strict(): void {}
  @Throttle({ default: { limit: () => 5, ttl: 60_000 } })
  computed(): void {}
}

function replyMock() {
  const headers: Record<string, unknown> = {};
  const reply = {
    header: (name: string, value: unknown) => (headers[name.toLowerCase()] = value),
    getHeader: (name: string) => headers[name.toLowerCase()],
  };
  return { reply, headers };
}

function contextFor(handler: keyof Routes, user = 7) {
  const { reply, headers } = replyMock();
  const request = { user: { id: user }, ip: '10.0.0.1', headers: {} };
  const context = {
    getHandler: () => Routes.prototype[handler],
    getClass: () => Routes,
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => reply }),
  } as unknown as ExecutionContext;
  return { context, headers };
}

describe('ApiThrottlerGuard', () => {
  const storage = new MemoryThrottlerStorage();
  const options: ThrottlerModuleOptions = { throttlers: [{ name: 'default', ttl: 60_000, limit: 3 }], storage };
  const guard = new ApiThrottlerGuard(options, storage, new Reflector());
  beforeAll(() => guard.onModuleInit());
  afterAll(() => storage.close());

  it('counts each request against the caller and sets both header sets, without a promise while counting in process', () => {
    const { context, headers } = contextFor('plain', 1);
    expect(guard.canActivate(context)).toBe(true);
    expect(headers).toMatchObject({
      'x-ratelimit-limit': 3,
      'x-ratelimit-remaining': 2,
      'ratelimit-policy': '"default";q=3;w=60',
      ratelimit: '"default";r=2;t=60',
    });
  });

  it('honours @SkipThrottle and @Throttle on the route, read once per route', () => {
    const skipped = contextFor('skipped', 2);
    guard.canActivate(skipped.context);
    expect(skipped.headers['x-ratelimit-limit']).toBeUndefined();

    for (let i = 0; i < 2; i++) guard.canActivate(contextFor('strict', 3).context);
    const third = contextFor('strict', 3);
    expect(() => guard.canActivate(third.context)).toThrow(ThrottlerException);
    expect(third.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'retry-after': '60' });
  });

  it('refuses a limit computed per request instead of applying another', () => {
    expect(() => guard.canActivate(contextFor('computed', 4).context)).toThrow(
      'The "limit" of the "default" throttler must be a number',
    );
  });

  it('refuses settings it does not apply rather than ignoring them', () => {
    for (const extra of [{ ignoreUserAgents: [/bot/] }, { setHeaders: false }]) {
      const other = new ApiThrottlerGuard(
        { throttlers: [{ name: 'default', ttl: 60_000, limit: 3, ...extra }], storage },
        storage,
        new Reflector(),
      );
      other.onModuleInit();
      expect(() => other.canActivate(contextFor('plain', 5).context)).toThrow('throttler');
    }
  });
});

describe('addDraftRateLimit', () => {
  it('lists every policy: RateLimit-Policy in the order reported, RateLimit nearest exhaustion first', () => {
    const { reply, headers } = replyMock();
    const report = (policy: string, limit: number, windowSeconds: number, remaining: number, resetSeconds: number) =>
      addDraftRateLimit(reply as never, { policy, limit, windowSeconds, remaining, resetSeconds });
    report('default', 60, 60, 59, 42);
    expect(headers).toMatchObject({ 'ratelimit-policy': '"default";q=60;w=60', ratelimit: '"default";r=59;t=42' });
    report('auth', 5, 60, 4, 60);
    expect(headers).toMatchObject({
      'ratelimit-policy': '"default";q=60;w=60, "auth";q=5;w=60',
      ratelimit: '"auth";r=4;t=60, "default";r=59;t=42',
    });
    // Of two with as many requests left, the one that stays spent longer comes first.
    report('daily', 10_000, 86_400, 4, 3600.2);
    expect(headers).toMatchObject({
      'ratelimit-policy': '"default";q=60;w=60, "auth";q=5;w=60, "daily";q=10000;w=86400',
      ratelimit: '"daily";r=4;t=3601, "auth";r=4;t=60, "default";r=59;t=42',
    });
  });

  it('lists each limiter of a route that applies two', () => {
    const storage = new MemoryThrottlerStorage();
    const throttlers: ThrottlerOptions[] = [
      { name: 'default', ttl: 60_000, limit: 3 },
      { name: 'auth', ttl: 60_000, limit: 5 },
    ];
    const guard = new ApiThrottlerGuard({ throttlers, storage }, storage, new Reflector());
    guard.onModuleInit();
    const { context, headers } = contextFor('plain', 11);
    expect(guard.canActivate(context)).toBe(true);
    expect(headers).toMatchObject({
      'x-ratelimit-remaining': 2,
      'x-ratelimit-remaining-auth': 4,
      'ratelimit-policy': '"default";q=3;w=60, "auth";q=5;w=60',
      ratelimit: '"default";r=2;t=60, "auth";r=4;t=60',
    });
    storage.close();
  });
});

describe('ApiThrottlerGuard with counters that answer later', () => {
  /** A storage whose counts arrive through a promise, as Redis's do. */
  class LaterStorage implements ThrottlerStorage {
    readonly counters = new MemoryThrottlerStorage();
    readonly keys: string[] = [];
    increment(key: string, ttl: number, limit: number) {
      this.keys.push(key);
      return Promise.resolve(this.counters.count(key, ttl, limit));
    }
  }

  const guardOn = (storage: ThrottlerStorage, getTracker?: ThrottlerOptions['getTracker']) => {
    const throttlers: ThrottlerOptions[] = [{ name: 'default', ttl: 60_000, limit: 2, getTracker }];
    const guard = new ApiThrottlerGuard({ throttlers, storage }, storage, new Reflector());
    guard.onModuleInit();
    return guard;
  };

  it('counts through the promise and sets the same headers; the spent budget is a rejected 429', async () => {
    const storage = new LaterStorage();
    const guard = guardOn(storage);
    const first = contextFor('plain', 8);
    const answer = guard.canActivate(first.context);
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).resolves.toBe(true);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit': 2, 'x-ratelimit-remaining': 1 });
    await guard.canActivate(contextFor('plain', 8).context);
    const third = contextFor('plain', 8);
    await expect(guard.canActivate(third.context)).rejects.toBeInstanceOf(ThrottlerException);
    expect(third.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'retry-after': '60' });
    expect(storage.keys).toEqual(['default:user:8', 'default:user:8', 'default:user:8']);
    storage.counters.close();
  });

  it("waits for a route's tracker that answers with a promise, even with counters in process", async () => {
    const storage = new MemoryThrottlerStorage();
    const guard = guardOn(storage, async () => 'tenant:42');
    const { context, headers } = contextFor('plain', 9);
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(headers['x-ratelimit-remaining']).toBe(1);
    expect(storage.peek('default:tenant:42')).toBe(1);
    storage.close();
  });
});
