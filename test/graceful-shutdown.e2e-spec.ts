import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gracefulShutdown } from '../src/common/lifecycle/graceful-shutdown.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('graceful shutdown', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { authAttemptsPerMinute: 100 } });
    await t.app.listen(0, '127.0.0.1');
  });
  afterAll(() => t.close().catch(() => undefined));

  it('lets an in-flight request finish, refuses new connections, and exits 0', async () => {
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'irrelevant', device_name: 'd' });

    // A request whose body is still arriving when the signal comes.
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: '/api/login',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 300);
    });
    await new Promise((r) => setTimeout(r, 100));

    const exitCodes: number[] = [];
    const stopped = gracefulShutdown(t.app, { exit: (code) => exitCodes.push(code) })('SIGTERM');

    // Once the listening socket has closed (a turn or more: connections already queued are taken in
    // first; on a loaded machine that may take longer than any fixed wait), a new connection is refused.
    const server = t.app.getHttpServer() as { listening: boolean };
    for (let waited = 0; server.listening && waited < 5_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    const refused = await new Promise<string>((resolve) => {
      const probe = httpRequest({ port, host: '127.0.0.1', path: '/api/health' }, () => resolve('answered'));
      probe.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      probe.end();
    });
    expect(refused).toBe('ECONNREFUSED');

    const answer = await inFlight;
    expect(answer.status).toBe(422);
    expect(JSON.parse(answer.body).message).toBe('The provided credentials are incorrect.');
    await stopped;
    expect(exitCodes).toEqual([0]);
  });
});
