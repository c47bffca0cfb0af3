import { spawn, type ChildProcess } from 'node:child_process';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { createApp } from '../src/app.factory.js';
import { loadConfig } from '../src/common/config/app-config.js';
import { freeFixedPort } from './support/free-port.js';
import { freshDatabaseUrl } from './support/test-database.js';

/**
 * One Redis outage is not an outage: two instances share rate-limit counters in a Redis this test
 * starts itself (never the machine's), which it then stops and starts again. It needs the
 * redis-server binary, and runs only where REDIS_URL says the machine has Redis (CI), so that a
 * plain `npm test` starts no servers.
 */
function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    redis.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve(redis);
    });
    redis.on('error', reject);
    // Its port taken, redis-server exits: said at once rather than after the hook's timeout.
    redis.once('exit', (code) => reject(new Error(`redis-server on port ${port} exited (${code}): ${output.trim()}`)));
  });
}

const stopRedis = (redis: ChildProcess) =>
  new Promise<void>((resolve) => {
    redis.once('exit', () => resolve());
    redis.kill('SIGKILL');
  });

describe('rate limiting through a Redis outage', () => {
  let redis: ChildProcess;
  let port: number;
  let drop: () => Promise<void>;
  const apps: NestFastifyApplication[] = [];
  const warnings: string[] = [];

  beforeAll(async () => {
    port = await freeFixedPort();
    redis = await startRedis(port);
    const db = await freshDatabaseUrl();
    drop = db.drop;
    const config = {
      ...loadConfig({ ...process.env, ...db.env, LOG_LEVEL: 'warn', REDIS_URL: `redis://127.0.0.1:${port}` }),
      rateLimitPerMinute: 1000,
      rateLimitKeyPrefix: `outage-${port}:`,
    };
    const logDestination = {
      write: (line: string) => {
        const entry = JSON.parse(line) as { level: number; msg: string };
        if (entry.level === 40 && /Redis/.test(entry.msg)) warnings.push(entry.msg);
      },
    };
    apps.push(await createApp(config, { logDestination }));
    apps.push(await createApp(config, { logDestination }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    if (redis.exitCode === null) await stopRedis(redis);
    await drop();
  });

  const hit = (instance: number) => request(apps[instance].getHttpServer()).get('/api/db-test');
  const remaining = async (instance: number) =>
    Number((await hit(instance).expect(200)).headers['x-ratelimit-remaining']);
  /** The health answer without its job backlog (what this test is not about). */
  const counters = async (instance: number) => {
    const { jobs: _jobs, ...health } = (await request(apps[instance].getHttpServer()).get('/api/health').expect(200))
      .body.data;
    return health;
  };

  const SHARED = { status: 'ok', database: 'up', redis: 'up', rate_limit_counters: 'shared' };
  /**
   * Waits until both instances count in Redis (each connects on its own, after start). Each one's
   * first hit after that also carries what it counted alone: the two last health calls make sure
   * both have done so before the budgets are compared.
   */
  const untilBothShared = async () => {
    for (let waited = 0; waited < 10_000; waited += 100) {
      if ((await counters(0)).rate_limit_counters === 'shared' && (await counters(1)).rate_limit_counters === 'shared')
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await counters(0)).toEqual(SHARED);
    expect(await counters(1)).toEqual(SHARED);
  };

  it('shares one budget while Redis is up', async () => {
    // Before its connection is ready an instance counts alone: CI once saw 999 and 999 here.
    await untilBothShared();
    const first = await remaining(0);
    expect(await remaining(1)).toBe(first - 1);
    expect(await counters(0)).toEqual(SHARED);
  });

  it('keeps serving at normal latency without Redis, counting per instance, and says so once', async () => {
    await stopRedis(redis);
    await new Promise((r) => setTimeout(r, 200));
    for (let i = 0; i < 20; i++) {
      const started = Date.now();
      const res = await hit(i % 2).expect(200);
      expect(Date.now() - started).toBeLessThan(500);
      expect(res.headers['x-ratelimit-limit']).toBe('1000');
    }
    const a = await remaining(0);
    expect(await remaining(0)).toBe(a - 1);
    // An operator sees which dependency is down.
    expect(await counters(1)).toEqual({
      status: 'degraded',
      database: 'up',
      redis: 'down',
      rate_limit_counters: 'degraded',
    });
    expect((await counters(0)).redis).toBe('down');
    expect(warnings.filter((w) => /unreachable/.test(w))).toHaveLength(2); // one per instance
  });

  it('shares counting again by itself when Redis returns, and says so once', async () => {
    redis = await startRedis(port);
    await untilBothShared();
    const first = await remaining(1);
    expect(await remaining(0)).toBe(first - 1);
    expect(warnings.filter((w) => /reachable again/.test(w))).toHaveLength(2);
  });
});
