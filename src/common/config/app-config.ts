import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export type DatabaseKind = 'mysql' | 'sqlite';

export interface DatabaseConfig {
  kind: DatabaseKind;
  /** mysql: the connection URL; sqlite: the file path (or ':memory:'). */
  url: string;
  /** Name shown by the diagnostics endpoints: the schema name, or the SQLite file name. */
  name: string;
  /** Password of the mysql URL, so that error texts can be scrubbed of it. */
  password?: string;
}

export interface AppConfig {
  port: number;
  database: DatabaseConfig;
  jwtSecret: string;
  tokenTtlMinutes: number;
  adminEmail: string;
  adminPassword?: string;
  rateLimitPerMinute: number;
  /** Login, forgot-password and reset-password attempts per minute per (IP, e-mail). */
  authAttemptsPerMinute: number;
  redisUrl?: string;
  /** Prefix of the rate-limit keys in Redis. */
  rateLimitKeyPrefix: string;
  mailUrl?: string;
  mailFrom: string;
  storageDir: string;
  appUrl: string;
  logLevel: string;
  /** Directory for the embedded database and the generated JWT secret. */
  dataDir: string;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function positiveInt(env: Env, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from 1 to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function url(env: Env, name: string, protocols: string[]): URL | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
    throw new ConfigError(`${name} must use one of ${protocols.map((p) => `${p}://`).join(', ')}`);
  }
  return parsed;
}

function email(env: Env, name: string, fallback: string): string {
  const value = env[name] || fallback;
  if (!/^[^\s@]+@[^\s@]+$/.test(value)) throw new ConfigError(`${name} must be an e-mail address`);
  return value;
}

function databaseConfig(env: Env, dataDir: string): DatabaseConfig {
  const parsed = url(env, 'DATABASE_URL', ['mysql', 'mariadb']);
  if (!parsed) {
    const file = resolve(dataDir, 'app.sqlite');
    return { kind: 'sqlite', url: file, name: 'app.sqlite' };
  }
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!name) throw new ConfigError('DATABASE_URL must name a database, as in mysql://user:pass@host:3306/db');
  return {
    kind: 'mysql',
    url: parsed.toString(),
    name,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
  };
}

/** The HS256 key: JWT_SECRET, else one generated on first start and kept beside the database. */
function jwtSecret(env: Env, dataDir: string): string {
  if (env.JWT_SECRET) {
    if (env.JWT_SECRET.length < 16) throw new ConfigError('JWT_SECRET must be at least 16 characters');
    return env.JWT_SECRET;
  }
  const file = resolve(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(48).toString('base64url');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/**
 * Reads and validates every environment variable the service uses, once, at start-up.
 * Nothing else in the code base reads process.env.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const dataDir = resolve(env.DATA_DIR || './data');
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent');
  }
  const redis = url(env, 'REDIS_URL', ['redis', 'rediss']);
  const mail = url(env, 'MAIL_URL', ['smtp', 'smtps']);
  const appUrl = url(env, 'APP_URL', ['http', 'https']);
  return {
    port: positiveInt(env, 'PORT', 3000, 65535),
    database: databaseConfig(env, dataDir),
    jwtSecret: jwtSecret(env, dataDir),
    tokenTtlMinutes: positiveInt(env, 'TOKEN_TTL_MINUTES', 1440),
    adminEmail: email(env, 'ADMIN_EMAIL', 'admin@example.com'),
    adminPassword: env.ADMIN_PASSWORD || undefined,
    rateLimitPerMinute: positiveInt(env, 'RATE_LIMIT_PER_MINUTE', 60),
    authAttemptsPerMinute: positiveInt(env, 'AUTH_RATE_LIMIT_PER_MINUTE', 5),
    redisUrl: redis?.toString(),
    rateLimitKeyPrefix: 'campaign-service:throttle:',
    mailUrl: mail?.toString(),
    mailFrom: email(env, 'MAIL_FROM', 'no-reply@example.com'),
    storageDir: resolve(env.STORAGE_DIR || './storage'),
    appUrl: (appUrl?.toString() ?? 'http://localhost:3000').replace(/\/$/, ''),
    logLevel,
    dataDir,
  };
}
