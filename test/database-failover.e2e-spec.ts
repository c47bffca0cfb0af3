import { login } from './support/auth.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * DATABASE_URL with several hosts (a multi-primary cluster): the instance uses the first that
 * answers, moves to another when its node dies, and returns when it comes back. Two TCP proxies in
 * front of one MariaDB stand for two nodes; cutting a proxy is the node dying.
 */
describe('database failover between hosts', () => {
  let t: TestApp;
  let token: string;
  const nodes: TcpProxy[] = [];
  let connections = [0, 0];
  /** Bytes each "node" received from the instance. */
  let traffic = [0, 0];

  beforeAll(async () => {
    const fresh = await createTestApp();
    const url = new URL(fresh.config.database.url);
    await fresh.app.close();
    for (const index of [0, 1]) {
      const proxy = new TcpProxy(url.hostname, Number(url.port || 3306));
      await proxy.start();
      nodes.push(proxy);
      watch(proxy, index);
    }
    const multiHost = `mysql://${url.username}${url.password ? `:${url.password}` : ''}@127.0.0.1:${nodes[0].port},127.0.0.1:${nodes[1].port}${url.pathname}`;
    t = await createTestApp({
      sharedWith: fresh,
      env: { DATABASE_URL: multiHost },
      config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 },
    });
    t.close = async () => {
      await t.app.close();
      await fresh.close();
    };
    token = await login(t);
  });
  afterAll(async () => {
    for (const node of nodes) await node.restore();
    await t.close();
    for (const node of nodes) await node.cut();
  });

  /** Counts the connections a proxy (a "node") accepts and what they carry; a restored proxy is a new server. */
  function watch(proxy: TcpProxy, index: number): void {
    const server = (proxy as unknown as { server: import('node:net').Server }).server;
    server.on('connection', (socket: import('node:net').Socket) => {
      connections[index]++;
      socket.on('data', (chunk: Buffer) => (traffic[index] += chunk.length));
    });
  }

  const read = () => t.http.get('/api/user').set('Authorization', token);

  it('uses the first host while it answers', async () => {
    connections = [0, 0];
    for (let i = 0; i < 5; i++) await read().expect(200);
    expect(connections[1]).toBe(0);
  });

  it('moves to the next host when the first dies: at most the requests in flight fail, with 503', async () => {
    await nodes[0].cut();
    traffic = [0, 0];
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await read()).status);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses.slice(-10)).toEqual(Array.from({ length: 10 }, () => 200));
    // Served by the second node: new connections, or those the writer check keeps open to it.
    expect(traffic[1]).toBeGreaterThan(0);
  });

  it('returns to the first host when it comes back', async () => {
    await nodes[0].restore();
    watch(nodes[0], 0);
    connections = [0, 0];
    await new Promise((r) => setTimeout(r, 1_500)); // the node is tried again after a second
    for (let i = 0; i < 40; i++) await read().expect(200);
    expect(connections[0]).toBeGreaterThan(0);
  });
});
