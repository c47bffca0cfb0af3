import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * Behind a load balancer the client's address is in X-Forwarded-For: TRUST_PROXY says whose
 * header to believe. The requests of these tests come from 127.0.0.1, the "load balancer".
 */
describe('TRUST_PROXY', () => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((t) => t.close())));

  async function app(trustProxy: string | undefined): Promise<TestApp> {
    const t = await createTestApp({ env: { TRUST_PROXY: trustProxy }, config: { rateLimitPerMinute: 2 } });
    apps.push(t);
    return t;
  }

  const call = (t: TestApp, forwardedFor: string) => t.http.get('/api/db-test').set('X-Forwarded-For', forwardedFor);

  it.each([
    ['the load balancer by address', '127.0.0.1'],
    ['one hop', '1'],
    ['loopback (the default)', undefined],
  ])('trusting %s: each forwarded client has a budget of its own', async (_name, setting) => {
    const t = await app(setting);
    expect((await call(t, '203.0.113.1')).status).toBe(200);
    expect((await call(t, '203.0.113.1')).status).toBe(200);
    expect((await call(t, '203.0.113.1')).status).toBe(429);
    expect((await call(t, '203.0.113.2')).status).toBe(200);
  });

  it.each([
    ['no proxy', 'false'],
    ['another address than the peer', '10.9.8.7'],
  ])('trusting %s: the header is ignored, the peer is the client', async (_name, setting) => {
    const t = await app(setting);
    expect((await call(t, '203.0.113.1')).status).toBe(200);
    expect((await call(t, '203.0.113.2')).status).toBe(200);
    expect((await call(t, '203.0.113.3')).status).toBe(429);
  });

  it('keys the login limiter on the forwarded client and the e-mail', async () => {
    const t = await createTestApp({ env: { TRUST_PROXY: '127.0.0.1' }, config: { authAttemptsPerMinute: 1 } });
    apps.push(t);
    const attempt = (forwardedFor: string) =>
      t.http
        .post('/api/login')
        .set('X-Forwarded-For', forwardedFor)
        .send({ email: 'victim@example.com', password: 'wrong-password', device_name: 'd' });
    expect((await attempt('198.51.100.1')).status).toBe(422);
    expect((await attempt('198.51.100.1')).status).toBe(429);
    expect((await attempt('198.51.100.2')).status).toBe(422);
  });
});
