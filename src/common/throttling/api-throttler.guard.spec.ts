import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { SkipThrottle, Throttle, ThrottlerException, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { ApiThrottlerGuard } from './api-throttler.guard.js';
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

function contextFor(handler: keyof Routes, user = 7) {
  const headers: Record<string, unknown> = {};
  const reply = {
    header: (name: string, value: unknown) => (headers[name.toLowerCase()] = value),
    getHeader: (name: string) => headers[name.toLowerCase()],
  };
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

  it('counts each request against the caller and sets both header sets', async () => {
    const { context, headers } = contextFor('plain', 1);
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(headers).toMatchObject({
      'x-ratelimit-limit': 3,
      'x-ratelimit-remaining': 2,
      'ratelimit-policy': '"default";q=3;w=60',
      ratelimit: '"default";r=2;t=60',
    });
  });

  it('honours @SkipThrottle and @Throttle on the route, read once per route', async () => {
    const skipped = contextFor('skipped', 2);
    await guard.canActivate(skipped.context);
    expect(skipped.headers['x-ratelimit-limit']).toBeUndefined();

    for (let i = 0; i < 2; i++) await guard.canActivate(contextFor('strict', 3).context);
    const third = contextFor('strict', 3);
    await expect(guard.canActivate(third.context)).rejects.toBeInstanceOf(ThrottlerException);
    expect(third.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'retry-after': '60' });
  });

  it('refuses a limit computed per request instead of applying another', async () => {
    await expect(guard.canActivate(contextFor('computed', 4).context)).rejects.toThrow(
      'The "limit" of the "default" throttler must be a number',
    );
  });

  it('refuses settings it does not apply rather than ignoring them', async () => {
    for (const extra of [{ ignoreUserAgents: [/bot/] }, { setHeaders: false }]) {
      const other = new ApiThrottlerGuard(
        { throttlers: [{ name: 'default', ttl: 60_000, limit: 3, ...extra }], storage },
        storage,
        new Reflector(),
      );
      await other.onModuleInit();
      await expect(other.canActivate(contextFor('plain', 5).context)).rejects.toThrow('throttler');
    }
  });
});
