import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createConnection } from 'mysql2/promise';

/**
 * The built service (dist/src/main.js) as production runs it, in a child process on a fresh MariaDB
 * database, for the benchmark and the soak test: what they measure is that process alone.
 */
export interface ServiceUnderTest {
  base: string;
  pid: number;
  /** A super-admin's bearer header. */
  authorization: string;
  /** Seconds of CPU (user + system) the service has used so far. */
  cpuSeconds(): number;
  /** Resident memory of the service, in MB. */
  rssMb(): number;
  /** The service's SUPPRESSION_KEY (a bench that seeds the suppression list hashes with it). */
  suppressionKey: string;
  /** Runs SQL on the service's database (seeding). */
  sql(statement: string, params?: unknown[]): Promise<unknown>;
  /** The service's database, on the server the bench was given. */
  database: string;
  /** Stops the service and drops its database (`keepDatabase`: leaves it, to look into afterwards). */
  stop(options?: { keepDatabase?: boolean }): Promise<void>;
}

export interface StartOptions {
  /** mysql://user:pass@host:port (the server); a fresh database is made on it. */
  server: string;
  /** Extra `node` flags (e.g. --cpu-prof). */
  nodeFlags?: string[];
  profileDir?: string;
}

const ADMIN = { email: 'bench@example.com', password: 'bench-password-123' };
const CLOCK_TICKS = 100; // USER_HZ on Linux

function procStat(pid: number): string[] {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** The node flags of `npm start` (package.json's `start`, which the Dockerfile's CMD repeats): docs/performance.md. */
function productionNodeFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { scripts: { start: string } };
  return scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

export async function startService(options: StartOptions): Promise<ServiceUnderTest> {
  const database = `bench_${randomBytes(4).toString('hex')}`;
  const server = new URL(options.server);
  const admin = await createConnection({ uri: new URL('/', server).toString(), multipleStatements: false });
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  const url = new URL(server);
  url.pathname = `/${database}`;
  const port = 30000 + Math.floor(Math.random() * 20000);
  const storage = mkdtempSync(join(tmpdir(), 'bench-storage-'));
  const suppressionKey = randomBytes(24).toString('hex');
  const child: ChildProcess = spawn(
    process.execPath,
    [...productionNodeFlags(), ...(options.nodeFlags ?? []), resolve('dist/src/main.js')],
    {
      env: {
        ...process.env,
        PORT: String(port),
        DATABASE_URL: url.toString(),
        RATE_LIMIT_PER_MINUTE: '100000000',
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        JWT_SECRET: randomBytes(24).toString('hex'),
        SUPPRESSION_KEY: suppressionKey,
        NODE_ENV: 'production',
        STORAGE_DIR: storage,
        DATA_DIR: storage,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
      cwd: options.profileDir ?? process.cwd(),
    },
  );
  const base = `http://127.0.0.1:${port}/api`;
  for (let attempt = 0; ; attempt++) {
    try {
      if ((await fetch(`${base}/db-test`)).ok) break;
    } catch {
      // not listening yet
    }
    if (attempt > 300 || child.exitCode !== null) throw new Error('the service did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  const login = (await (
    await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ADMIN, device_name: 'bench' }),
    })
  ).json()) as { data: { token: string } };
  const db = await createConnection({ uri: url.toString() });
  const pid = child.pid!;
  return {
    base,
    pid,
    authorization: `Bearer ${login.data.token}`,
    suppressionKey,
    cpuSeconds: () => {
      const stat = procStat(pid);
      return (Number(stat[11]) + Number(stat[12])) / CLOCK_TICKS;
    },
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
    sql: (statement, params) => db.query(statement, params),
    database,
    stop: async ({ keepDatabase = false } = {}) => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await db.end();
      if (!keepDatabase) await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await admin.end();
      rmSync(storage, { recursive: true, force: true });
    },
  };
}

/** A JSON call to the service; throws on anything but 2xx. */
export async function call<T>(service: ServiceUnderTest, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(service.base + path, {
    method,
    headers: { authorization: service.authorization, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: T };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

const PLAN = {
  name: 'Bench',
  description: 'Benchmark plan',
  status: 'active',
  start_date: '2026-01-01',
  end_date: '2026-12-31',
  budget: 1000,
  goal: 'Speed',
};

/** A marketing program > campaign group > campaign, through the API; answers the campaign id. */
export async function seedCampaign(service: ServiceUnderTest): Promise<number> {
  const program = await call<{ id: number }>(service, 'POST', '/marketing-programs', PLAN);
  const group = await call<{ id: number }>(service, 'POST', `/marketing-programs/${program.id}/campaign-groups`, PLAN);
  const campaign = await call<{ id: number }>(service, 'POST', `/campaign-groups/${group.id}/campaigns`, PLAN);
  return campaign.id;
}

/** `count` customers through POST /api/customers, 50 at a time. */
export async function seedCustomersByApi(service: ServiceUnderTest, count: number): Promise<void> {
  for (let start = 0; start < count; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - start) }, (_, i) =>
        call(service, 'POST', '/customers', {
          external_id: `api-${start + i}`,
          first_name: 'Ada',
          last_name: 'Lovelace',
          email: `ada${start + i}@example.com`,
        }),
      ),
    );
  }
}

async function superAdminTenant(service: ServiceUnderTest): Promise<number> {
  const [[{ tenant_id: tenantId }]] = (await service.sql('SELECT tenant_id FROM users LIMIT 1')) as [
    { tenant_id: number }[],
  ];
  return tenantId;
}

/** Limits on the super-admin's tenant, high enough never to be reached: what counting costs. */
export async function setPlanLimits(service: ServiceUnderTest, tenantId?: number): Promise<void> {
  tenantId ??= await superAdminTenant(service);
  const tenant = await call<{ name: string }>(service, 'GET', `/admin/tenants/${tenantId}`);
  const limits = { api_calls_per_day: 1e9, customers: 1e8, audiences: 1e6, campaigns: 1e6, webhooks: 1000 };
  await call(service, 'PUT', `/admin/tenants/${tenantId}`, { name: tenant.name, limits });
}

/** Customers of the super-admin's tenant inserted straight into the table, 5,000 per statement. */
export async function seedCustomersBySql(service: ServiceUnderTest, count: number): Promise<void> {
  const tenantId = await superAdminTenant(service);
  for (let start = 0; start < count; start += 5000) {
    const size = Math.min(5000, count - start);
    const values: unknown[] = [];
    for (let i = 0; i < size; i++) {
      values.push(tenantId, `sql-${start + i}`, 'Seed', 'Row', `seed${start + i}@example.com`, 1);
    }
    await service.sql(
      'INSERT INTO customers (tenant_id, external_id, first_name, last_name, email, is_active, created_at, updated_at) VALUES ' +
        Array.from({ length: size }, () => '(?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(), UTC_TIMESTAMP())').join(', '),
      values,
    );
  }
  await service.sql('ANALYZE TABLE customers');
}
