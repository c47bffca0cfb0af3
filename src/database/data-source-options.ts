import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../common/config/app-config.js';
import { queryFormat } from '../common/persistence/sql-text.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';
import { mysqlDriver } from './mysql-pool.js';

/** SQL functions the queries use on SQLite: `lower_unicode` is JavaScript's full lower-case mapping (contains.ts). */
function registerSqliteFunctions(db: {
  function(name: string, options: { deterministic: boolean }, fn: (value: unknown) => unknown): void;
}): void {
  db.function('lower_unicode', { deterministic: true }, (value) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
}

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
    return {
      ...common,
      type: 'better-sqlite3',
      database: db.url,
      enableWAL: db.url !== ':memory:',
      timeout: 5000,
      prepareDatabase: registerSqliteFunctions,
    };
  }
  return {
    ...common,
    type: 'mysql',
    // Host, port and credentials of the first node; mysqlDriver() builds the pool of every node.
    host: db.hosts[0].host,
    port: db.hosts[0].port,
    username: db.user,
    password: db.password,
    database: db.name,
    driver: mysqlDriver(db.hosts),
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: false,
    dateStrings: false,
    poolSize: 10,
    connectTimeout: 3000,
    // trace: false spares mysql2 an Error.captureStackTrace per query (4 % of a request's CPU).
    extra: { enableKeepAlive: true, trace: false, maxPreparedStatements: 256, queryFormat },
  };
}
