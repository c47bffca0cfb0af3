import { Logger } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import type { Database } from '../persistence/database.js';
import type { PoolStats } from '../persistence/pool-stats.js';
import { mysqlPoolStats } from '../persistence/pool-stats.js';
import { bearerCheck } from './http-metrics.js';
import type { JobsBacklogSource, LaneBacklog } from './jobs-backlog.js';
import { Metrics, operationLabels } from './metrics.js';

const config = (metrics: AppConfig['metrics']) => ({ metrics }) as AppConfig;
const database = (dialect: 'mysql' | 'sqlite', stats: PoolStats[] = []) =>
  ({ dialect, poolStats: () => stats }) as unknown as Database;
const on = { token: 'unit-test-token-0123456789' };

/** The lines of one metric family's samples (not its HELP and TYPE). */
const samples = (text: string, name: string) =>
  text.split('\n').filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`));

describe('Metrics', () => {
  it('when off, keeps only its own three families: no process metrics, pool or jobs', async () => {
    const backlog = jest.fn(async () => [] as LaneBacklog[]);
    const metrics = new Metrics(
      config({}),
      database('mysql', [{ pool: 'main', inUse: 1, idle: 2, waiting: 0, limit: 10 }]),
      {
        backlog,
      },
    );
    expect(metrics.enabled).toBe(false);
    const families = [...(await metrics.render()).matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
    expect(families).toEqual(['http_request_duration_seconds', 'webhook_deliveries_total', 'jobs_attempts_total']);
    expect(backlog).not.toHaveBeenCalled();
  });

  it('labels a request by its operation and status class, one observation each', async () => {
    const metrics = new Metrics(config(on), database('sqlite'));
    const labels = operationLabels('getCampaign');
    for (const [status, seconds] of [
      [200, 0.001],
      [204, 0.003],
      [304, 0.002],
      [404, 0.02],
      [503, 2],
      [599, 0.5],
      [600, 0.5],
    ] as const) {
      metrics.observeRequest(labels, status, seconds);
    }
    const counts = samples(await metrics.render(), 'http_request_duration_seconds_count');
    expect(counts).toEqual([
      'http_request_duration_seconds_count{operation="getCampaign",status_class="2xx"} 2',
      'http_request_duration_seconds_count{operation="getCampaign",status_class="3xx"} 1',
      'http_request_duration_seconds_count{operation="getCampaign",status_class="4xx"} 1',
      'http_request_duration_seconds_count{operation="getCampaign",status_class="5xx"} 3',
    ]);
    expect(samples(await metrics.render(), 'http_request_duration_seconds_bucket')).toContain(
      'http_request_duration_seconds_bucket{le="0.0025",operation="getCampaign",status_class="2xx"} 1',
    );
  });

  it('counts webhook deliveries (every outcome from zero) and job attempts', async () => {
    const metrics = new Metrics(config({}), database('sqlite'));
    metrics.webhookDelivery('delivered');
    metrics.webhookDelivery('delivered');
    metrics.webhookDelivery('failed');
    metrics.jobAttempt('customer-imports', 'done');
    metrics.jobAttempt('webhooks', 'retry');
    const text = await metrics.render();
    expect(samples(text, 'webhook_deliveries_total')).toEqual([
      'webhook_deliveries_total{outcome="delivered"} 2',
      'webhook_deliveries_total{outcome="retry"} 0',
      'webhook_deliveries_total{outcome="failed"} 1',
    ]);
    expect(samples(text, 'jobs_attempts_total')).toEqual([
      'jobs_attempts_total{queue="customer-imports",outcome="done"} 1',
      'jobs_attempts_total{queue="webhooks",outcome="retry"} 1',
    ]);
  });

  it('reads the pool at each scrape on MySQL, each node of a cluster apart, and reports none on SQLite', async () => {
    let stats: PoolStats[] = [{ pool: 'main', inUse: 3, idle: 7, waiting: 2, limit: 10 }];
    const db = { dialect: 'mysql', poolStats: () => stats } as unknown as Database;
    const metrics = new Metrics(config(on), db);
    let text = await metrics.render();
    expect(samples(text, 'db_pool_connections')).toEqual([
      'db_pool_connections{pool="main",state="in_use"} 3',
      'db_pool_connections{pool="main",state="idle"} 7',
    ]);
    expect(samples(text, 'db_pool_waiting_requests')).toEqual(['db_pool_waiting_requests{pool="main"} 2']);
    expect(samples(text, 'db_pool_max_connections')).toEqual(['db_pool_max_connections{pool="main"} 10']);
    expect(text).toContain('process_resident_memory_bytes');
    stats = [
      { pool: 'node1', inUse: 1, idle: 0, waiting: 0, limit: 10 },
      { pool: 'node2', inUse: 0, idle: 1, waiting: 0, limit: 10 },
    ];
    expect(samples(await metrics.render(), 'db_pool_max_connections')).toEqual([
      'db_pool_max_connections{pool="node1"} 10',
      'db_pool_max_connections{pool="node2"} 10',
    ]);
    stats = []; // closed, or mysql2's internals changed: no figures rather than wrong ones
    text = await metrics.render();
    for (const name of ['db_pool_connections', 'db_pool_waiting_requests', 'db_pool_max_connections']) {
      expect(samples(text, name)).toEqual([]);
    }
    expect(await new Metrics(config(on), database('sqlite')).render()).not.toContain('db_pool');
  });

  it('reads the jobs backlog once per scrape, for both gauges; a failed read leaves them out', async () => {
    let answer: LaneBacklog[] | Error = [
      { queue: 'customer-imports', lane: 'default', pending: 4, oldestPendingSeconds: 12.5 },
      { queue: 'customer-erasures', lane: 'default', pending: 0, oldestPendingSeconds: null },
    ];
    const source: JobsBacklogSource = {
      backlog: jest.fn(async () => {
        if (answer instanceof Error) throw answer;
        return answer;
      }),
    };
    const metrics = new Metrics(config(on), database('sqlite'), source);
    let text = await metrics.render();
    expect(source.backlog).toHaveBeenCalledTimes(1);
    expect(samples(text, 'jobs_pending')).toEqual([
      'jobs_pending{queue="customer-imports",lane="default"} 4',
      'jobs_pending{queue="customer-erasures",lane="default"} 0',
    ]);
    expect(samples(text, 'jobs_oldest_pending_seconds')).toEqual([
      'jobs_oldest_pending_seconds{queue="customer-imports",lane="default"} 12.5',
    ]);
    answer = [{ queue: 'customer-imports', lane: 'default', pending: 1, oldestPendingSeconds: 3 }];
    text = await metrics.render();
    expect(source.backlog).toHaveBeenCalledTimes(2);
    expect(samples(text, 'jobs_pending')).toEqual(['jobs_pending{queue="customer-imports",lane="default"} 1']);
    answer = new Error('database down');
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      text = await metrics.render();
      expect(warn).toHaveBeenCalledWith("reading the jobs' backlog failed: database down");
    } finally {
      warn.mockRestore();
    }
    expect(samples(text, 'jobs_pending')).toEqual([]);
    expect(samples(text, 'jobs_oldest_pending_seconds')).toEqual([]);
    expect(text).toContain('process_cpu_seconds_total');
  });
});

describe('bearerCheck', () => {
  const check = bearerCheck('scrape-token-0123456789');

  it.each([
    ['Bearer scrape-token-0123456789', true],
    ['bearer scrape-token-0123456789', true],
    ['Bearer   scrape-token-0123456789 ', true],
    [undefined, false],
    ['', false],
    ['Bearer', false],
    ['Bearer ', false],
    ['Basic scrape-token-0123456789', false],
    ['scrape-token-0123456789', false],
    ['Bearer scrape-token-012345678', false],
    ['Bearer scrape-token-01234567890', false],
    ['Bearer scrape-token-0123456789 extra', false],
  ])('%j → %s', (authorization, expected) => {
    expect(check(authorization)).toBe(expected);
  });
});

describe('mysqlPoolStats', () => {
  it('reads the internals of a mysql2 3.x pool, and nothing from anything else', () => {
    const pool = {
      _allConnections: { length: 5 },
      _freeConnections: { length: 2 },
      _connectionQueue: { length: 1 },
      config: { connectionLimit: 10 },
    };
    expect(mysqlPoolStats('main', pool)).toEqual({ pool: 'main', inUse: 3, idle: 2, waiting: 1, limit: 10 });
    expect(mysqlPoolStats('main', { ...pool, _connectionQueue: [] as unknown[] })).toMatchObject({ waiting: 0 });
    expect(mysqlPoolStats('main', {})).toBeUndefined();
    expect(mysqlPoolStats('main', undefined)).toBeUndefined();
    expect(mysqlPoolStats('main', { ...pool, config: {} })).toBeUndefined();
  });
});
