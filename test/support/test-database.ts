import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { mysqlBaseUrl, testMysqlUrl } from './requirements.js';

export { mysqlBaseUrl } from './requirements.js';

/**
 * A MySQL server to use even when the suite runs on SQLite (tests of MySQL-only behaviour). There is
 * no default: such tests are left out when none is configured (./servers.cjs) and do not run
 * without TEST_MYSQL_URL or a mysql DATABASE_URL.
 */
export const anyMysqlUrl = (): string => {
  const url = testMysqlUrl();
  if (!url) throw new Error('no MySQL server configured: set TEST_MYSQL_URL (see test/support/servers.cjs)');
  return url;
};

/**
 * A fresh, empty database for one test app: a new schema beside DATABASE_URL's on MySQL
 * (named `<db>_<random>`, so CI can drop them all), or a new SQLite file.
 */
export async function freshDatabaseUrl(
  kind: 'suite' | 'mysql' = 'suite',
): Promise<{ env: Record<string, string | undefined>; drop: () => Promise<void> }> {
  const base = kind === 'mysql' ? anyMysqlUrl() : mysqlBaseUrl();
  if (!base) {
    const dir = mkdtempSync(join(tmpdir(), 'cs-e2e-'));
    return { env: { DATABASE_URL: undefined, DATA_DIR: dir }, drop: async () => undefined };
  }
  const url = new URL(base);
  const name = `${url.pathname.replace(/^\//, '') || 'test'}_${randomBytes(4).toString('hex')}`;
  const admin = await createConnection({ uri: new URL('/', url).toString() });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: mkdtempSync(join(tmpdir(), 'cs-e2e-')) },
    drop: async () => {
      const conn = await createConnection({ uri: new URL('/', url).toString() });
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    },
  };
}
