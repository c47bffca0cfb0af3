import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../common/config/app-config.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';

/** The single TypeORM configuration, shared by the application and the migration CLI. */
export function dataSourceOptions(db: DatabaseConfig): DataSourceOptions {
  const common = {
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
  } as const;
  if (db.kind === 'sqlite') {
    if (db.url !== ':memory:') mkdirSync(dirname(db.url), { recursive: true });
    return { ...common, type: 'better-sqlite3', database: db.url, enableWAL: db.url !== ':memory:', timeout: 5000 };
  }
  return {
    ...common,
    type: 'mysql',
    url: db.url,
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: false,
    dateStrings: false,
    poolSize: 10,
    connectTimeout: 3000,
    extra: { enableKeepAlive: true },
  };
}
