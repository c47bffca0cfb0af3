import { randomBytes } from 'node:crypto';
import { RedisThrottlerStorage } from '../src/common/throttling/redis-throttler.storage.js';
import { login } from './support/auth.js';
import { describeWithRedis, testRedisUrl } from './support/requirements.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('rate limiting', () => {
  describe('default limiter (60 per minute)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: undefined } });
    });
    afterAll(() => t.close());

    it('counts down by one per call across routes and answers the 61st with 429', async () => {
      expect(t.config.rateLimitPerMinute).toBe(60);
      for (let call = 1; call <= 60; call++) {
        const path = call % 3 === 0 ? '/api/tables' : call % 3 === 1 ? '/api/db-test' : '/api/user';
        const res = await t.http.get(path);
        expect(res.status).not.toBe(429);
        expect(res.headers['x-ratelimit-limit']).toBe('60');
        expect(res.headers['x-ratelimit-remaining']).toBe(String(60 - call));
      }
      const refused = await t.http.get('/api/db-test');
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ message: 'Too Many Attempts.' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.headers['cache-control']).toBe('no-cache, private');
    });
  });

  describe('per user, per IP when anonymous', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ config: { rateLimitPerMinute: 3, authAttemptsPerMinute: 100 } });
    });
    afterAll(() => t.close());

    it('gives a signed-in user a budget of their own', async () => {
      const token = await login(t); // one anonymous call
      await t.http.get('/api/db-test').expect(200);
      await t.http.get('/api/db-test').expect(200);
      await t.http.get('/api/db-test').expect(429);
      const mine = await t.http.get('/api/user').set('Authorization', token).expect(200);
      expect(mine.headers['x-ratelimit-remaining']).toBe('2');
    });
  });

  describe('login: the login limiter', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ env: { AUTH_RATE_LIMIT_PER_MINUTE: undefined } });
    });
    afterAll(() => t.close());

    it('allows 5 attempts per minute per (IP, e-mail)', async () => {
      expect(t.config.authAttemptsPerMinute).toBe(5);
      const attempt = (email: string) =>
        t.http.post('/api/login').send({ email, password: 'wrong-password', device_name: 'd' });
      for (let i = 0; i < 5; i++) expect((await attempt('victim@example.com')).status).toBe(422);
      const refused = await attempt('victim@example.com');
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ message: 'Too Many Attempts.' });
      expect(refused.headers['retry-after']).toBeDefined();
      expect((await attempt('someone-else@example.com')).status).toBe(422);
    });
  });

  describeWithRedis('rate limiting with REDIS_URL', () => {
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
      const shared = { redisUrl: testRedisUrl(), rateLimitPerMinute: 4 };
      a = await createTestApp({ config: shared });
      b = await createTestApp({ sharedWith: a, config: shared });
    });
    afterAll(async () => {
      await b.app.close();
      await a.close();
    });

    it('shares one budget between two instances', async () => {
      expect((await a.http.get('/api/db-test')).headers['x-ratelimit-remaining']).toBe('3');
      expect((await b.http.get('/api/db-test')).headers['x-ratelimit-remaining']).toBe('2');
      expect((await a.http.get('/api/db-test')).headers['x-ratelimit-remaining']).toBe('1');
      expect((await b.http.get('/api/db-test')).headers['x-ratelimit-remaining']).toBe('0');
      expect((await a.http.get('/api/db-test')).status).toBe(429);
      expect((await b.http.get('/api/db-test')).status).toBe(429);
    });

    // CI saw a login limiter let a 6th attempt through: the first attempts arrived while the app's
    // Redis connection was still opening, were counted in memory, and Redis only saw the rest.
    it('counts the hits made before Redis was ready once it is', async () => {
      const storage = new RedisThrottlerStorage(testRedisUrl()!, `test:${randomBytes(6).toString('hex')}:`);
      try {
        const early = [1, 2, 3].map(() => storage.increment('k', 60_000, 5));
        expect((await Promise.all(early)).map((r) => r.totalHits)).toEqual([1, 2, 3]);
        for (let waited = 0; storage.status !== 'up' && waited < 5_000; waited += 20)
          await new Promise((r) => setTimeout(r, 20));
        expect(storage.status).toBe('up');
        expect((await storage.increment('k', 60_000, 5)).totalHits).toBe(4);
        expect((await storage.increment('k', 60_000, 5)).totalHits).toBe(5);
        expect(await storage.increment('k', 60_000, 5)).toMatchObject({
          totalHits: 6,
          isBlocked: true,
        });
      } finally {
        await storage.close();
      }
    });
  });
});
