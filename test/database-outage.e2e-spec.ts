import { createConnection } from 'mysql2/promise';
import { login } from './support/auth.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { anyMysqlUrl } from './support/test-database.js';

// Runs against MySQL/MariaDB in both suite runs: an embedded SQLite file cannot become unreachable.
const PASSWORD = 'S3cret-outage-pw';
const USER = 'cs_outage_test';

describe('database outage and recovery', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let token: string;

  beforeAll(async () => {
    const server = new URL(anyMysqlUrl());
    const admin = await createConnection({ uri: new URL('/', server).toString() });
    await admin.query(`CREATE USER IF NOT EXISTS '${USER}'@'%' IDENTIFIED BY '${PASSWORD}'`);
    await admin.query(`CREATE USER IF NOT EXISTS '${USER}'@'localhost' IDENTIFIED BY '${PASSWORD}'`);
    await admin.query(`GRANT ALL PRIVILEGES ON *.* TO '${USER}'@'%'`);
    await admin.query(`GRANT ALL PRIVILEGES ON *.* TO '${USER}'@'localhost'`);
    await admin.end();

    proxy = new TcpProxy(server.hostname, Number(server.port || 3306));
    await proxy.start();
    const fresh = await createTestApp({ database: 'mysql' });
    const dbUrl = new URL(fresh.config.database.url);
    await fresh.app.close(); // the database is migrated and seeded; reopen it through the proxy
    dbUrl.hostname = '127.0.0.1';
    dbUrl.port = String(proxy.port);
    dbUrl.username = USER;
    dbUrl.password = PASSWORD;
    t = await createTestApp({ sharedWith: fresh, env: { DATABASE_URL: dbUrl.toString() } });
    t.close = async () => {
      await t.app.close();
      await fresh.close();
    };
    token = await login(t);
  });

  afterAll(async () => {
    await proxy.restore();
    await t.close();
    await proxy.cut();
  });

  it('answers normally while the database is reachable', async () => {
    await t.http.get('/api/db/test').expect(200);
    await t.http.get('/api/user').set('Authorization', token).expect(200);
  });

  it('answers /api/db/test with its 500 body, without the password, while unreachable', async () => {
    await proxy.cut();
    const res = await t.http.get('/api/db/test');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      code: 500,
      message: expect.any(String),
      data: { connection: 'mysql', database: t.config.database.name, error: expect.any(String) },
    });
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    expect(res.headers['cache-control']).toBe('no-cache, private');
  });

  it('answers 503 with retry-after elsewhere while unreachable', async () => {
    for (const req of [
      t.http.get('/api/db-test'),
      t.http.get('/api/user').set('Authorization', token),
      t.http.get('/api/tables'),
    ]) {
      const res = await req;
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ message: expect.stringMatching(/database/i) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.headers['cache-control']).toBe('no-cache, private');
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|SELECT/);
    }
  });

  it('recovers without a restart when the database returns', async () => {
    await proxy.restore();
    await t.http.get('/api/db/test').expect(200);
    await t.http.get('/api/db-test').expect(200);
    await t.http.get('/api/user').set('Authorization', token).expect(200);
  });
});
