import { createPrivateKey, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';

export type DatabaseKind = 'mysql' | 'sqlite';

export interface DatabaseHost {
  host: string;
  port: number;
}

export interface DatabaseConfig {
  kind: DatabaseKind;
  /** mysql: the connection URL as given; sqlite: the file path (or ':memory:'). */
  url: string;
  /** Name shown by the diagnostics endpoints: the schema name, or the SQLite file name. */
  name: string;
  /** mysql: every node of the URL, in order (one, or several for a multi-primary cluster). */
  hosts: DatabaseHost[];
  user?: string;
  /** Password of the mysql URL, so that error texts can be scrubbed of it. */
  password?: string;
}

export interface AppConfig {
  port: number;
  database: DatabaseConfig;
  jwtSecret: string;
  /** SUPPRESSION_KEY: the HMAC key of the suppression list (an erased customer's e-mail address and external id). */
  suppressionKey: string;
  /** DESTINATION_SECRET_KEY: seals destinations' secrets (AES-256-GCM) and signs unsubscribe links (HMAC). */
  destinationSecretKey: string;
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
  /** Which peers' X-Forwarded-For to believe: every one (true), none (false), a number of hops, or addresses. */
  trustProxy: boolean | number | string[];
  imports: ImportConfig;
  events: EventsConfig;
  webhooks: WebhooksConfig;
  erasures: ErasureConfig;
  runs: RunsConfig;
  metrics: MetricsConfig;
  destinations: DestinationsConfig;
  tracking: TrackingConfig;
}

/**
 * GET /metrics (src/common/metrics, docs/operations.md). Off unless one of the two is set: the token
 * says whether a scrape needs `Authorization: Bearer <token>`, the port where it is served.
 */
export interface MetricsConfig {
  /** METRICS_TOKEN: the bearer token a scrape must send. */
  token?: string;
  /** METRICS_PORT: served on this port alone (not on PORT), by its own small HTTP server. */
  port?: number;
}

/** Delivery to destinations (src/modules/destination). */
export interface DestinationsConfig {
  /** FILE_RETENTION_DAYS: days a `file` destination's files are kept under STORAGE_DIR. */
  fileRetentionDays: number;
  /** DKIM_DOMAIN, DKIM_SELECTOR, DKIM_PRIVATE_KEY: e-mail is DKIM-signed when all three are set. */
  dkim?: { domain: string; selector: string; privateKey: string };
  /** Whether this instance delivers (every instance does; tests switch it off to drive one by hand). */
  worker: boolean;
  /** How long a claimed batch stays this instance's without a renewal. */
  leaseMs: number;
  /** How often an idle worker looks for due batches. */
  pollMs: number;
  /** Seconds before each retry of a batch that failed for now (not an environment variable). */
  retrySchedule: number[];
}

/** Tracked customer events (src/modules/tracking). */
export interface TrackingConfig {
  /**
   * Days a tracked event is kept, counted back from its timestamp (CUSTOMER_EVENT_RETENTION_DAYS,
   * default 395): older ones are dropped by the retention purge, and `POST /api/track` refuses them.
   */
  retentionDays: number;
  /** Events deleted per transaction by the retention purge (short, so that writers never wait long). */
  purgeBatchRows: number;
}

/** Campaign runs (src/modules/runs). Only the retention is an environment variable. */
export interface RunsConfig {
  /** Whether this instance runs campaign runs' and schedules' jobs (every instance does; tests switch it off to drive one by hand). */
  runner: boolean;
  leaseMs: number;
  pollMs: number;
  /** RUN_RETENTION_DAYS: recipient rows of older runs are deleted, the newest per association and customer kept. */
  retentionDays: number;
}

/** Erasure jobs (src/modules/customer/erasure). None of it is an environment variable. */
export interface ErasureConfig {
  /** Whether this instance runs erasure jobs (every instance does; tests switch it off to drive one by hand). */
  runner: boolean;
  /** How long a claimed job stays leased to its instance without a renewal. */
  leaseMs: number;
  /** How often an idle runner looks for a job. */
  pollMs: number;
  /** Rows scrubbed per transaction: short transactions, so that other writers wait for none of them long. */
  batchRows: number;
  /**
   * A job ends no sooner than this after its request: a write that began before the suppression
   * was committed (an import's chunk) has ended by then, and the job's last look finds what it wrote.
   */
  settleMs: number;
}

/** Webhook deliveries (src/modules/webhooks). Only the allow-list and the schedule are environment variables. */
export interface WebhooksConfig {
  /** WEBHOOK_ALLOWED_HOSTS: host names, addresses and CIDR ranges webhooks may reach although private. */
  allowedHosts: string;
  /** WEBHOOK_RETRY_SCHEDULE: seconds before each retry. */
  retrySchedule: number[];
  /** Whether this instance delivers (every instance does; tests switch it off to drive one by hand). */
  worker: boolean;
  /** How long a claimed delivery stays this instance's without an answer; then another instance tries it. */
  leaseMs: number;
  /** How often an idle worker looks for due deliveries. */
  pollMs: number;
  /** Deliveries of one endpoint in flight at once, across instances. */
  perEndpoint: number;
  /** A 2xx within this long is a delivery. */
  timeoutMs: number;
  /** An endpoint whose every attempt failed this long is disabled. */
  failingDisableMs: number;
}

/** The change feed (src/common/events). */
export interface EventsConfig {
  /** Days an event is kept (EVENT_RETENTION_DAYS); older ones are deleted, and a cursor behind them answers 410. */
  retentionDays: number;
  /**
   * Whether this instance numbers events in the background (after its writes, and once a second) and
   * runs retention: every instance does; a test that counts a request's queries switches it off (a
   * feed read still numbers what has committed first).
   */
  background: boolean;
}

/** Customer CSV import jobs (src/modules/customer/imports). Only the size limit is an environment variable. */
export interface ImportConfig {
  /** Largest upload, in bytes (IMPORT_MAX_BYTES); larger answers 413. */
  maxBytes: number;
  /** Whether this instance runs import jobs (every instance does; tests switch it off to drive one by hand). */
  runner: boolean;
  /** How long a claimed job stays leased to its instance without a renewal. */
  leaseMs: number;
  /** How often an idle runner looks for a job. */
  pollMs: number;
  /** Rows committed per transaction (with the job's progress and errors). */
  chunkRows: number;
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

const MYSQL_URL = /^(mysql|mariadb):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#@]+)\/([^?#]*)(?:\?[^#]*)?$/;
const HOST_AND_PORT = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/;

/**
 * DATABASE_URL: `mysql://user:pass@host:3306/db`, or several hosts for a multi-primary cluster,
 * `mysql://user:pass@host1:3306,host2:3306,host3:3306/db` (the instance uses the first that answers).
 * Unset: the embedded SQLite file.
 */
function databaseConfig(env: Env, dataDir: string): DatabaseConfig {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') {
    const file = resolve(dataDir, 'app.sqlite');
    return { kind: 'sqlite', url: file, name: 'app.sqlite', hosts: [] };
  }
  const match = MYSQL_URL.exec(raw);
  if (!match) {
    if (/^[a-z][\w+.-]*:\/\//i.test(raw) && !/^(mysql|mariadb):/i.test(raw)) {
      throw new ConfigError('DATABASE_URL must use one of mysql://, mariadb://');
    }
    throw new ConfigError('DATABASE_URL must look like mysql://user:pass@host:3306/db (hosts separated by commas)');
  }
  const [, , user, password, hostList, path] = match;
  const name = decodeURIComponent(path);
  if (!name) throw new ConfigError('DATABASE_URL must name a database, as in mysql://user:pass@host:3306/db');
  const hosts = hostList.split(',').map((entry) => {
    const parts = HOST_AND_PORT.exec(entry.trim());
    const port = Number(parts?.[3] ?? 3306);
    if (!parts || port < 1 || port > 65535) throw new ConfigError(`DATABASE_URL has an invalid host "${entry}"`);
    return { host: parts[1] ?? parts[2], port };
  });
  return {
    kind: 'mysql',
    url: raw,
    name,
    hosts,
    user: user ? decodeURIComponent(user) : undefined,
    password: password ? decodeURIComponent(password) : undefined,
  };
}

/**
 * A key from the environment (`name`), else one generated on first start and kept beside the
 * database in `file` (a single instance on its embedded database needs no configuration; several
 * instances must share the variable).
 */
function keptSecret(env: Env, name: string, dataDir: string, file: string): string {
  const given = env[name];
  if (given) {
    if (given.length < 16) throw new ConfigError(`${name} must be at least 16 characters`);
    return given;
  }
  const path = resolve(dataDir, file);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const secret = randomBytes(48).toString('base64url');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, secret, { mode: 0o600 });
  return secret;
}

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: `true`, `false`, a hop count, or a comma-separated list of addresses, CIDR ranges
 * and the names loopback / linklocal / uniquelocal. Default: loopback (a proxy on the same host).
 */
function trustProxy(env: Env): boolean | number | string[] {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw) return ['loopback'];
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((e) => e.trim());
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address);
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!NAMED_RANGES.includes(entry) && (!family || !validBits || extra !== undefined)) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false, a hop count, or addresses/CIDR ranges separated by commas; "${entry}" is none of these`,
      );
    }
  }
  return entries;
}

/**
 * Reads and validates every environment variable the service uses, once, at start-up.
 * Nothing else in the code base reads process.env.
 */
/** WEBHOOK_ALLOWED_HOSTS: comma-separated host names, IP addresses or CIDR ranges. */
function allowedHosts(env: Env): string {
  const raw = env.WEBHOOK_ALLOWED_HOSTS ?? '';
  for (const entry of raw.split(',').map((e) => e.trim().replace(/^\[(.*)\]$/, '$1'))) {
    if (!entry) continue;
    const [address, bits] = entry.split('/');
    const ok =
      bits !== undefined
        ? ipaddr.isValid(address) &&
          /^\d{1,3}$/.test(bits) &&
          Number(bits) <= (ipaddr.parse(address).kind() === 'ipv4' ? 32 : 128)
        : ipaddr.isValid(entry) || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(entry);
    if (!ok) throw new ConfigError(`WEBHOOK_ALLOWED_HOSTS: "${entry}" is no host name, IP address or CIDR range`);
  }
  return raw;
}

/**
 * METRICS_TOKEN and METRICS_PORT. The token goes in a header, so it is printable ASCII without spaces,
 * and long enough not to be guessed; the port is not the API's own.
 */
function metricsConfig(env: Env, apiPort: number): MetricsConfig {
  const token = env.METRICS_TOKEN || undefined;
  if (token !== undefined && !/^[\x21-\x7E]{16,}$/.test(token)) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 printable characters without spaces');
  }
  const port = env.METRICS_PORT ? positiveInt(env, 'METRICS_PORT', 0, 65535) : undefined;
  if (port === apiPort) throw new ConfigError(`METRICS_PORT must differ from PORT (${apiPort})`);
  return { token, port };
}

/** DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY (PEM; `\n` may stand for a line break): all three, or none. */
function dkim(env: Env): DestinationsConfig['dkim'] {
  const names = ['DKIM_DOMAIN', 'DKIM_SELECTOR', 'DKIM_PRIVATE_KEY'] as const;
  const given = names.filter((name) => env[name]);
  if (given.length === 0) return undefined;
  if (given.length < names.length)
    throw new ConfigError(`DKIM needs all of ${names.join(', ')}; only ${given.join(', ')} set`);
  const domain = env.DKIM_DOMAIN!.trim().toLowerCase();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(domain)) {
    throw new ConfigError('DKIM_DOMAIN must be a domain name');
  }
  const selector = env.DKIM_SELECTOR!.trim();
  if (!/^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/i.test(selector))
    throw new ConfigError('DKIM_SELECTOR must be a selector name');
  const privateKey = env.DKIM_PRIVATE_KEY!.replace(/\\n/g, '\n').trim();
  try {
    createPrivateKey(privateKey);
  } catch {
    throw new ConfigError('DKIM_PRIVATE_KEY must be a private key in PEM form');
  }
  return { domain, selector, privateKey };
}

/** WEBHOOK_RETRY_SCHEDULE: seconds before each retry, separated by commas (`5,300,1800`). */
function retrySchedule(env: Env): number[] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE;
  if (raw === undefined || raw.trim() === '') return [5, 300, 1800, 7200, 18000, 36000, 36000];
  const seconds = raw.split(',').map((s) => s.trim());
  if (seconds.some((s) => !/^\d{1,7}$/.test(s) || Number(s) < 1)) {
    throw new ConfigError(
      'WEBHOOK_RETRY_SCHEDULE must be whole seconds (1 or more) separated by commas, e.g. 5,300,1800',
    );
  }
  return seconds.map(Number);
}

export function loadConfig(env: Env = process.env): AppConfig {
  const dataDir = resolve(env.DATA_DIR || './data');
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent');
  }
  const redis = url(env, 'REDIS_URL', ['redis', 'rediss']);
  const mail = url(env, 'MAIL_URL', ['smtp', 'smtps']);
  const appUrl = url(env, 'APP_URL', ['http', 'https']);
  const port = positiveInt(env, 'PORT', 3000, 65535);
  return {
    port,
    database: databaseConfig(env, dataDir),
    jwtSecret: keptSecret(env, 'JWT_SECRET', dataDir, 'jwt-secret'),
    suppressionKey: keptSecret(env, 'SUPPRESSION_KEY', dataDir, 'suppression-key'),
    destinationSecretKey: keptSecret(env, 'DESTINATION_SECRET_KEY', dataDir, 'destination-secret-key'),
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
    trustProxy: trustProxy(env),
    imports: {
      maxBytes: positiveInt(env, 'IMPORT_MAX_BYTES', 256 * 1024 * 1024),
      runner: true,
      leaseMs: 30_000,
      pollMs: 1_000,
      chunkRows: 1_000,
    },
    events: { retentionDays: positiveInt(env, 'EVENT_RETENTION_DAYS', 30, 3650), background: true },
    erasures: { runner: true, leaseMs: 30_000, pollMs: 1_000, batchRows: 2_000, settleMs: 10_000 },
    tracking: { retentionDays: positiveInt(env, 'CUSTOMER_EVENT_RETENTION_DAYS', 395, 3650), purgeBatchRows: 2_000 },
    runs: {
      runner: true,
      leaseMs: 60_000,
      pollMs: 500,
      retentionDays: positiveInt(env, 'RUN_RETENTION_DAYS', 90, 3650),
    },
    webhooks: {
      allowedHosts: allowedHosts(env),
      retrySchedule: retrySchedule(env),
      worker: true,
      leaseMs: 60_000,
      pollMs: 250,
      perEndpoint: 10,
      timeoutMs: 15_000,
      failingDisableMs: 5 * 24 * 3600 * 1000,
    },
    metrics: metricsConfig(env, port),
    destinations: {
      fileRetentionDays: positiveInt(env, 'FILE_RETENTION_DAYS', 30, 3650),
      dkim: dkim(env),
      worker: true,
      leaseMs: 60_000,
      pollMs: 250,
      retrySchedule: [5, 30, 120, 600, 1800, 3600],
    },
  };
}
