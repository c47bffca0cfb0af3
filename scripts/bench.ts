import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory.js';
import { loadConfig } from '../src/common/config/app-config.js';
import { encodeCursor } from '../src/common/resources/cursor.js';

/**
 * Measures list pages near the start and far down a large table, and a write, over loopback.
 * `npm run bench` (embedded SQLite) or `DATABASE_URL=mysql://... npm run bench`.
 * Bounded: a fixed number of requests per case; it stops by itself.
 */
const ROWS_PER_TENANT = Number(process.env.BENCH_ROWS ?? 50_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-'));
  const config = {
    ...loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_PASSWORD: 'bench-password-1' }),
    rateLimitPerMinute: 1_000_000,
    authAttemptsPerMinute: 1_000_000,
  };
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/api`;
  try {
    const dataSource = app.get(DataSource);
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: config.adminEmail, password: 'bench-password-1', device_name: 'bench' }),
    }).then((r) => r.json() as Promise<{ data: { token: string; user: { tenant_id: number } } }>);
    const headers = { authorization: `Bearer ${login.data.token}`, 'content-type': 'application/json' };
    const tenantId = login.data.user.tenant_id;
    const inserted = await dataSource
      .createQueryBuilder()
      .insert()
      .into('tenants')
      .values({ name: `bench other ${Date.now()}`, is_active: true })
      .execute();
    const secondTenant = Number(inserted.identifiers[0]?.id ?? inserted.raw?.insertId);

    const started = Date.now();
    for (const tenant of [tenantId, secondTenant]) {
      for (let offset = 0; offset < ROWS_PER_TENANT; offset += 100) {
        const rows = Array.from({ length: Math.min(100, ROWS_PER_TENANT - offset) }, (_, i) => ({
          tenant_id: tenant,
          external_id: `t${tenant}-${offset + i}`,
          first_name: `First ${offset + i}`,
          last_name: `Last ${(offset + i) % 997}`,
          email: `c${offset + i}@t${tenant}.example.com`,
          is_active: true,
          created_at: new Date(),
          updated_at: new Date(),
        }));
        await dataSource.createQueryBuilder().insert().into('customers').values(rows).execute();
      }
    }
    console.log(
      `seeded ${2 * ROWS_PER_TENANT} customers in ${((Date.now() - started) / 1000).toFixed(1)} s (${config.database.kind})`,
    );

    const [{ id: midId }] = await dataSource.query('SELECT MIN(id) + 100 AS id FROM customers WHERE tenant_id = ?', [
      tenantId,
    ]);
    const deep = encodeCursor({ sort: '-id', id: Number(midId) });
    const cases: [string, () => Promise<Response>][] = [
      ['GET /customers (first page of 25)', () => fetch(`${base}/customers?limit=25`, { headers })],
      ['GET /customers (a page far down)', () => fetch(`${base}/customers?limit=25&cursor=${deep}`, { headers })],
      [
        'GET /customers?email= (indexed filter)',
        () => fetch(`${base}/customers?email=c77@t${tenantId}.example.com`, { headers }),
      ],
      ['GET /customers?sort=last_name', () => fetch(`${base}/customers?limit=25&sort=last_name`, { headers })],
      [
        'POST /customers',
        () => fetch(`${base}/customers`, { method: 'POST', headers, body: JSON.stringify({ first_name: 'Bench' }) }),
      ],
    ];
    for (const [name, call] of cases) {
      const timings: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const t0 = performance.now();
        const res = await call();
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
        timings.push(performance.now() - t0);
      }
      timings.sort((a, b) => a - b);
      const pct = (p: number) =>
        timings[Math.min(timings.length - 1, Math.floor((p / 100) * timings.length))].toFixed(2);
      console.log(`${name.padEnd(42)} p50 ${pct(50)} ms  p95 ${pct(95)} ms  (${REQUESTS} requests)`);
    }
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
