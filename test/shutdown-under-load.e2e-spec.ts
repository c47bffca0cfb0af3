import { request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gracefulShutdown } from '../src/common/lifecycle/graceful-shutdown.js';
import { ADMIN } from './support/auth.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** API-CONVENTIONS §1 under load: every accepted request finishes normally; new connections are refused. */
describe('graceful shutdown under load', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { authAttemptsPerMinute: 1_000, rateLimitPerMinute: 1_000 } });
    await t.app.listen(0, '127.0.0.1');
  });
  afterAll(() => t.close().catch(() => undefined));

  it('answers all 50 requests in flight at SIGTERM and exits 0', async () => {
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const body = JSON.stringify({ ...ADMIN, device_name: 'shutdown' });
    // Requests the server has read: only those are "in flight"; a connection it has not yet
    // accepted when the signal comes is a new connection, and is refused.
    let received = 0;
    t.app.getHttpServer().on('request', () => received++);
    // Logins wait for bcrypt in a pool of 4 threads: 50 of them are all in flight for a while.
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    const inFlight = Array.from(
      { length: 50 },
      () =>
        new Promise<number>((resolve) => {
          const req = httpRequest(
            {
              port,
              host: '127.0.0.1',
              method: 'POST',
              path: '/api/login',
              agent,
              headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          req.on('error', () => resolve(-1));
          req.end(body);
        }),
    );

    for (let waited = 0; received < 50 && waited < 5_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    expect(received).toBe(50);

    const exitCodes: number[] = [];
    const started = Date.now();
    const stopped = gracefulShutdown(t.app, { exit: (code) => exitCodes.push(code) })('SIGTERM');
    await new Promise((r) => setTimeout(r, 20));
    const refused = await new Promise<string>((resolve) => {
      const probe = httpRequest({ port, host: '127.0.0.1', path: '/api/health', agent: false }, () =>
        resolve('answered'),
      );
      probe.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      probe.end();
    });
    const statuses = await Promise.all(inFlight);
    await stopped;
    agent.destroy();

    expect(refused).toBe('ECONNREFUSED');
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(exitCodes).toEqual([0]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
