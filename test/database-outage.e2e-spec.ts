import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { login } from './support/auth.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { anyMysqlUrl } from './support/test-database.js';

/**
 * Runs against MySQL/MariaDB in both suite runs (an embedded SQLite file cannot become unreachable),
 * so it needs TEST_MYSQL_URL (or a mysql DATABASE_URL). It confines itself to a database of its own
 * and a user of its own that may use that database alone; both are dropped afterwards.
 */
const SUFFIX = randomBytes(4).toString('hex');
const PASSWORD = `S3cret-outage-${randomBytes(8).toString('hex')}`;
const USER = `cs_outage_${SUFFIX}`;
const HOSTS = ['%', 'localhost'];

/** Runs statements as the configured (administrative) MySQL user. */
async function asAdmin(statements: string[]): Promise<void> {
  const admin = await createConnection({ uri: new URL('/', anyMysqlUrl()).toString() });
  try {
    for (const sql of statements) await admin.query(sql);
  } finally {
    await admin.end();
  }
}

describe('database outage and recovery', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let fresh: TestApp | undefined;
  let token: string;

  beforeAll(async () => {
    const server = new URL(anyMysqlUrl());
    proxy = new TcpProxy(server.hostname, Number(server.port || 3306));
    await proxy.start();
    // A fresh database (`<db>_<random>`), migrated and seeded as the configured user.
    const own = await createTestApp({ database: 'mysql' });
    fresh = own;
    const database = own.config.database.name;
    const dbUrl = new URL(own.config.database.url);
    await own.app.close(); // reopen it through the proxy, as a user granted on this database only
    await asAdmin(
      HOSTS.flatMap((host) => [
        `CREATE USER '${USER}'@'${host}' IDENTIFIED BY '${PASSWORD}'`,
        // `_` is a wildcard in a database-level grant: escape it, so the grant names this database alone.
        `GRANT ALL PRIVILEGES ON \`${database.replace(/_/g, '\\_')}\`.* TO '${USER}'@'${host}'`,
      ]),
    );
    dbUrl.hostname = '127.0.0.1';
    dbUrl.port = String(proxy.port);
    dbUrl.username = USER;
    dbUrl.password = PASSWORD;
    t = await createTestApp({ sharedWith: own, env: { DATABASE_URL: dbUrl.toString() } });
    token = await login(t);
  });

  afterAll(async () => {
    // Cleans up whatever beforeAll got as far as making, and drops the user in any case.
    try {
      await proxy?.restore();
      await t?.app.close();
      await fresh?.close(); // drops the database
      await proxy?.cut();
    } finally {
      await asAdmin(HOSTS.map((host) => `DROP USER IF EXISTS '${USER}'@'${host}'`));
    }
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
