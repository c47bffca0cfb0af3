import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory.js';
import { loadConfig } from '../src/common/config/app-config.js';
import { ALL_PERMISSIONS, ROLE_PERMISSIONS } from '../src/common/auth/permissions.js';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import { freshDatabaseUrl } from './support/test-database.js';

/** Any number of instances start together on an empty database: one migrates and seeds at a time. */
describe('instances starting together', () => {
  const INSTANCES = 3;
  let apps: NestFastifyApplication[] = [];
  let drop: () => Promise<void>;

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await drop();
  });

  it(`starts ${INSTANCES} instances at once on an empty database, with one set of migrations and seeds`, async () => {
    const db = await freshDatabaseUrl();
    drop = db.drop;
    const config = loadConfig({ ...process.env, ...db.env });
    const started = await Promise.allSettled(Array.from({ length: INSTANCES }, () => createApp(config)));
    apps = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started'))).toEqual(
      Array.from({ length: INSTANCES }, () => 'started'),
    );

    const ds = apps[0].get(DataSource);
    const count = async (sql: string) => Number(((await ds.query(sql)) as { n: number | string }[])[0].n);
    expect(await count('SELECT COUNT(*) AS n FROM migrations')).toBe(MIGRATIONS.length);
    expect(await count('SELECT COUNT(*) AS n FROM users')).toBe(1);
    expect(await count('SELECT COUNT(*) AS n FROM tenants')).toBe(1);
    expect(await count('SELECT COUNT(*) AS n FROM permissions')).toBe(ALL_PERMISSIONS.length);
    expect(await count('SELECT COUNT(*) AS n FROM roles')).toBe(Object.keys(ROLE_PERMISSIONS).length);
    expect(await count("SELECT COUNT(*) AS n FROM table_metadata WHERE table_name = 'customers'")).toBe(1);
    // The lock is free again: a fourth instance starts at once.
    apps.push(await createApp(config));
  });
});
