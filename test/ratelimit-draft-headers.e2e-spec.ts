import { login } from './support/auth.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** The IETF draft's RateLimit-Policy and RateLimit fields, beside x-ratelimit-*. */
describe('RateLimit-Policy and RateLimit headers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 3, authAttemptsPerMinute: 2 } });
  });
  afterAll(() => t.close());

  const parse = (field: string): ({ name: string } & Record<string, number | string>)[] =>
    field.split(/,\s*/).map((item) => {
      const [name, ...params] = item.split(';');
      return { name, ...Object.fromEntries(params.map((p) => p.split('=')).map(([k, v]) => [k, Number(v)])) };
    });

  it('carries the policy and what is left of it on every answer, the 429 included', async () => {
    const first = await t.http.get('/api/db-test').expect(200);
    expect(first.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
    expect(parse(first.headers.ratelimit)).toEqual([{ name: '"default"', r: 2, t: expect.any(Number) }]);
    expect(parse(first.headers.ratelimit)[0].t).toBeGreaterThan(0);
    expect(parse(first.headers.ratelimit)[0].t).toBeLessThanOrEqual(60);
    expect(first.headers['x-ratelimit-remaining']).toBe('2');

    const notFound = await t.http.get('/api/marketing-programs/abc').expect(401);
    expect(parse(notFound.headers.ratelimit)[0]).toMatchObject({ r: 1 });
    await t.http.get('/api/db-test').expect(200);
    const refused = await t.http.get('/api/db-test').expect(429);
    expect(refused.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
    expect(parse(refused.headers.ratelimit)[0]).toMatchObject({ name: '"default"', r: 0 });
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['x-ratelimit-reset']).toBe(String(parse(refused.headers.ratelimit)[0].t));
  });

  it('lists both limits on the login route', async () => {
    const other = await createTestApp({ config: { rateLimitPerMinute: 100, authAttemptsPerMinute: 2 } });
    try {
      const res = await other.http
        .post('/api/login')
        .send({ email: 'nobody@example.com', password: 'wrong-password', device_name: 'd' });
      expect(res.headers['ratelimit-policy']).toMatch(/"auth";q=2;w=60/);
      expect(parse(res.headers.ratelimit).map((item) => item.name)).toContain('"auth"');
    } finally {
      await other.close();
    }
  });

  /** A login attempt on an app of its own, with the given limits, after `before` other calls. */
  async function loginAttempt(limits: { rateLimitPerMinute: number; authAttemptsPerMinute: number }, before = 0) {
    const other = await createTestApp({ config: limits });
    try {
      for (let i = 0; i < before; i++) await other.http.get('/api/db-test').expect(200);
      return await other.http
        .post('/api/login')
        .send({ email: 'nobody@example.com', password: 'wrong-password', device_name: 'd' })
        .expect(422);
    } finally {
      await other.close();
    }
  }

  it('on the login route lists every policy that applied, each as its x-ratelimit-* fields give it', async () => {
    const res = await loginAttempt({ rateLimitPerMinute: 100, authAttemptsPerMinute: 5 });
    expect(res.headers['ratelimit-policy']).toBe('"default";q=100;w=60, "auth";q=5;w=60');
    expect(parse(res.headers.ratelimit)).toEqual([
      { name: '"auth"', r: 4, t: Number(res.headers['x-ratelimit-reset-auth']) },
      { name: '"default"', r: 99, t: Number(res.headers['x-ratelimit-reset']) },
    ]);
    expect(res.headers['x-ratelimit-remaining-auth']).toBe('4');
    expect(res.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('lists the policy nearest exhaustion first, whichever it is', async () => {
    const res = await loginAttempt({ rateLimitPerMinute: 3, authAttemptsPerMinute: 5 }, 2);
    expect(res.headers['ratelimit-policy']).toBe('"default";q=3;w=60, "auth";q=5;w=60');
    expect(parse(res.headers.ratelimit)).toEqual([
      { name: '"default"', r: 0, t: Number(res.headers['x-ratelimit-reset']) },
      { name: '"auth"', r: 4, t: Number(res.headers['x-ratelimit-reset-auth']) },
    ]);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
  });

  it("on the login limiter's 429, each x-ratelimit-* family still tells its own budget, as RateLimit does", async () => {
    const other = await createTestApp({ config: { rateLimitPerMinute: 100, authAttemptsPerMinute: 2 } });
    try {
      const attempt = () =>
        other.http
          .post('/api/login')
          .send({ email: 'nobody@example.com', password: 'wrong-password', device_name: 'd' });
      await attempt().expect(422);
      await attempt().expect(422);
      const refused = await attempt().expect(429);
      expect(refused.headers).toMatchObject({
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '97',
        'x-ratelimit-limit-auth': '2',
        'x-ratelimit-remaining-auth': '0',
      });
      expect(parse(refused.headers.ratelimit)).toEqual([
        { name: '"auth"', r: 0, t: Number(refused.headers['x-ratelimit-reset-auth']) },
        { name: '"default"', r: 97, t: Number(refused.headers['x-ratelimit-reset']) },
      ]);
      expect(refused.headers['retry-after']).toBe(refused.headers['x-ratelimit-reset-auth']);
    } finally {
      await other.close();
    }
  });

  it('the signed-in caller sees their own budget', async () => {
    const fresh = await createTestApp({ config: { rateLimitPerMinute: 10, authAttemptsPerMinute: 10 } });
    try {
      const token = await login(fresh);
      const res = await fresh.http.get('/api/user').set('Authorization', token).expect(200);
      expect(res.headers['ratelimit-policy']).toBe('"default";q=10;w=60');
      expect(parse(res.headers.ratelimit)[0]).toMatchObject({ r: 9 });
    } finally {
      await fresh.close();
    }
  });
});
