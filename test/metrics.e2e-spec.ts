import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildOpenApiDocument } from '../src/common/openapi/openapi.js';
import { JobRunner } from '../src/common/jobs/job-runner.js';
import { DELIVERY_QUEUE } from '../src/modules/webhooks/delivery/delivery-queue.js';
import { FANOUT_QUEUE } from '../src/modules/webhooks/delivery/webhook-fanout.js';
import { login } from './support/auth.js';
import { freeFixedPort } from './support/free-port.js';
import { ExpositionError, parsePrometheusText, type MetricFamily } from './support/prometheus-text.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const TOKEN = 'metrics-test-token-0123456789';

/** Requests counted per `operation status_class`, from the histogram's _count series. */
function requestCounts(families: Map<string, MetricFamily>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const sample of families.get('http_request_duration_seconds')?.samples ?? []) {
    if (sample.name !== 'http_request_duration_seconds_count') continue;
    counts[`${sample.labels.operation} ${sample.labels.status_class}`] = sample.value;
  }
  return counts;
}

/** What changed between two scrapes' counts (only what changed). */
function countsSince(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([key, value]) => [key, value - (before[key] ?? 0)] as const)
      .filter(([, delta]) => delta !== 0),
  );
}

/** The value of one series, by its sample's name and labels (undefined when there is no such series). */
function valueOf(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}) {
  return [...families.values()]
    .flatMap((family) => family.samples)
    .find((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))?.value;
}

describe('Prometheus text parser (test support)', () => {
  it('reads families, labels with escapes, special values and histograms', () => {
    const families = parsePrometheusText(
      [
        '# HELP requests_total Requests, with a \\\\ and a \\n in the help.',
        '# TYPE requests_total counter',
        'requests_total{path="/a\\"b\\\\c\\nd",code="200"} 3',
        'requests_total{code="500",} 1 1700000000000',
        '',
        '# a comment',
        '# TYPE temperature gauge',
        'temperature -Inf',
        '# TYPE latency histogram',
        'latency_bucket{le="0.1"} 1',
        'latency_bucket{le="1"} 2',
        'latency_bucket{le="+Inf"} 2',
        'latency_sum 0.6',
        'latency_count 2',
        'untyped_thing NaN',
        '# TYPE go_style gauge',
        'go_style{x="a"} Nan',
        'go_style{x="b"} +inf',
        'go_style{x="c"} 1.5e-3',
        '',
      ].join('\n'),
    );
    expect([...families.keys()]).toEqual(['requests_total', 'temperature', 'latency', 'untyped_thing', 'go_style']);
    // Values as Go's ParseFloat reads them: NaN and Inf in any case (prom-client writes `Nan`).
    expect(families.get('go_style')?.samples.map((s) => s.value)).toEqual([NaN, Infinity, 0.0015]);
    expect(families.get('requests_total')).toEqual({
      name: 'requests_total',
      help: 'Requests, with a \\ and a \n in the help.',
      type: 'counter',
      samples: [
        { name: 'requests_total', labels: { path: '/a"b\\c\nd', code: '200' }, value: 3 },
        { name: 'requests_total', labels: { code: '500' }, value: 1, timestamp: 1700000000000 },
      ],
    });
    expect(families.get('temperature')?.samples[0].value).toBe(-Infinity);
    expect(families.get('latency')?.samples.map((s) => s.name)).toEqual([
      'latency_bucket',
      'latency_bucket',
      'latency_bucket',
      'latency_sum',
      'latency_count',
    ]);
    expect(families.get('untyped_thing')).toMatchObject({ type: 'untyped', samples: [{ value: NaN }] });
  });

  it.each([
    ['no final newline', 'a 1'],
    ['a bad metric name', '1a 1\n'],
    ['a bad label name', 'a{1x="v"} 1\n'],
    ['an unquoted label value', 'a{x=v} 1\n'],
    ['an unterminated label value', 'a{x="v} 1\n'],
    ['a bad escape', 'a{x="\\t"} 1\n'],
    ['a label twice', 'a{x="1",x="2"} 1\n'],
    ['labels without a comma', 'a{x="1" y="2"} 1\n'],
    ['no value', 'a{x="1"}\n'],
    ['a bad value', 'a 1,5\n'],
    ['a bad timestamp', 'a 1 12.5\n'],
    ['a series twice', 'a{x="1"} 1\na{x="1"} 2\n'],
    ['an unknown type', '# TYPE a meter\na 1\n'],
    ['a second TYPE', '# TYPE a gauge\n# TYPE a gauge\na 1\n'],
    ['a TYPE after the samples', 'a 1\n# TYPE a gauge\n'],
    ['families interleaved', 'a 1\nb 1\na{x="1"} 1\n'],
    ['a negative counter', '# TYPE a counter\na -1\n'],
    ['a histogram sample of no histogram suffix', '# TYPE h histogram\nh 1\n'],
    ['buckets not cumulative', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
    ['no +Inf bucket', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'],
    ['+Inf unequal to _count', '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 2\n'],
    ['a histogram without _sum', '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_count 1\n'],
  ])('refuses %s', (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow(ExpositionError);
  });
});

/** A webhook receiver: 200 on /ok, 410 on /gone, 500 on anything else. */
async function startReceiver(): Promise<{ server: Server; url: (path: string) => string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.url === '/ok' ? 200 : req.url === '/gone' ? 410 : 500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: (path) => `http://127.0.0.1:${port}${path}` };
}

describe('GET /metrics with METRICS_TOKEN', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: string;

  const scrape = async () => {
    const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return { families: parsePrometheusText(res.text), text: res.text };
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp({
      env: { METRICS_TOKEN: TOKEN },
      config: {
        rateLimitPerMinute: 100_000,
        authAttemptsPerMinute: 100_000,
        imports: { runner: false },
        webhooks: { allowedHosts: '127.0.0.1', retrySchedule: [60], worker: false },
      },
    });
    admin = await login(t);
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  it('counts every answer by operation id and status class; unknown paths as unmatched', async () => {
    const before = requestCounts((await scrape()).families);
    for (let i = 0; i < 3; i++) await t.http.get('/api/health').expect(200);
    await login(t);
    await t.http.get('/api/user').set('Authorization', admin).expect(200);
    await t.http.get('/api/user').expect(401);
    await t.http.get('/api/no-such-route').expect(404);
    await t.http.get('/no-such-route').expect(404);
    await t.http.post('/api/customers').set('Authorization', admin).send({ email: 'not an address' }).expect(422);
    const customer = await t.http
      .post('/api/customers')
      .set('Authorization', admin)
      .send({ external_id: 'metrics-1', email: 'metrics-1@example.com' })
      .expect(201);
    const read = await t.http.get(`/api/customers/${customer.body.data.id}`).set('Authorization', admin).expect(200);
    await t.http
      .get(`/api/customers/${customer.body.data.id}`)
      .set('Authorization', admin)
      .set('If-None-Match', read.headers.etag)
      .expect(304);
    await t.http.get('/api/customers/999999').set('Authorization', admin).expect(404);
    const { families, text } = await scrape();

    expect(countsSince(before, requestCounts(families))).toEqual({
      'health 2xx': 3,
      'login 2xx': 1,
      'currentUser 2xx': 1,
      'currentUser 4xx': 1,
      'unmatched 4xx': 2,
      'createCustomer 4xx': 1,
      'createCustomer 2xx': 1,
      'getCustomer 2xx': 1,
      'getCustomer 3xx': 1,
      'getCustomer 4xx': 1,
      // The first scrape: an answer is counted once it is sent, so a scrape shows the ones before it.
      'metrics 2xx': 1,
    });
    const latency = families.get('http_request_duration_seconds')!;
    expect(latency.type).toBe('histogram');
    expect(valueOf(families, 'http_request_duration_seconds_sum', { operation: 'health' })).toBeGreaterThan(0);
    // The small bucket list, the same for every series.
    expect(
      latency.samples
        .filter((s) => s.name.endsWith('_bucket') && s.labels.operation === 'health')
        .map((s) => s.labels.le),
    ).toEqual(['0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '1', '5', '+Inf']);
    // No tenant, user or record in any label or value: only the service's own vocabulary.
    for (const secret of ['metrics-1', 'example.com', admin.slice('Bearer '.length)]) {
      expect(text).not.toContain(secret);
    }
    const labelNames = new Set([...families.values()].flatMap((f) => f.samples.flatMap((s) => Object.keys(s.labels))));
    expect([...labelNames].filter((name) => /tenant|user|customer|email|path|url/i.test(name))).toEqual([]);
    const operations = new Set(latency.samples.map((s) => s.labels.operation));
    const documented = new Set(
      Object.values(buildOpenApiDocument(t.app).paths).flatMap((item) =>
        Object.values(item as Record<string, { operationId: string }>).map((op) => op.operationId),
      ),
    );
    expect([...operations].filter((op) => !documented.has(op)).sort()).toEqual(['metrics', 'unmatched']);
  });

  it('answers 401 without the token, with another one, or with a user token', async () => {
    for (const authorization of [
      undefined,
      'Bearer wrong-token-0123456789',
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN}x`,
      admin,
    ]) {
      const req = t.http.get('/metrics');
      if (authorization) req.set('Authorization', authorization);
      const res = await req.expect(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(res.headers['cache-control']).toBe('no-cache, private');
      expect(res.text).not.toContain('http_request');
    }
    await t.http.get('/metrics').set('Authorization', `bearer  ${TOKEN}`).expect(200);
    await t.http.head('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
  });

  it('is served beside the API, not in it: no /api/metrics, not in the OpenAPI document', async () => {
    await t.http.get('/api/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(404);
    expect(Object.keys(buildOpenApiDocument(t.app).paths).filter((path) => path.includes('metrics'))).toEqual([]);
    expect(t.app.getHttpAdapter().getInstance().hasRoute({ method: 'GET', url: '/metrics' })).toBe(true);
  });

  it('reports each job queue: pending jobs and the oldest one’s age, read at the scrape', async () => {
    const idle = (await scrape()).families;
    for (const queue of ['customer-import', 'customer-erasure']) {
      expect(valueOf(idle, 'jobs_pending', { queue, lane: 'default' })).toBe(0);
      expect(valueOf(idle, 'jobs_oldest_pending_seconds', { queue })).toBeUndefined();
    }
    // The runner is off: the job stays queued.
    for (const n of [1, 2]) {
      await t.http
        .post('/api/customers/imports')
        .set('Authorization', admin)
        .set('Content-Type', 'text/csv')
        .send(`external_id,email\nimported-${n},imported-${n}@example.com\n`)
        .expect(202);
    }
    const { families } = await scrape();
    expect(valueOf(families, 'jobs_pending', { queue: 'customer-import', lane: 'default' })).toBe(2);
    const age = valueOf(families, 'jobs_oldest_pending_seconds', { queue: 'customer-import', lane: 'default' });
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(60);
    expect(valueOf(families, 'jobs_pending', { queue: 'customer-erasure', lane: 'default' })).toBe(0);
    // No import ran (the hourly retention sweeps may have: they are due at start).
    const attempts = families.get('jobs_attempts_total')!;
    expect(attempts.type).toBe('counter');
    expect(attempts.samples.filter((sample) => sample.labels.queue === 'customer-import')).toEqual([]);
  });

  it('counts webhook deliveries by outcome once the worker has recorded them', async () => {
    const zero = (await scrape()).families;
    for (const outcome of ['delivered', 'retry', 'failed']) {
      expect(valueOf(zero, 'webhook_deliveries_total', { outcome })).toBe(0);
    }
    const create = async (path: string) =>
      (
        await t.http
          .post('/api/webhooks')
          .set('Authorization', admin)
          .send({ url: receiver.url(path), events: ['customer.created'] })
          .expect(201)
      ).body.data.id as number;
    // 2xx is delivered; 500 is retried (the schedule has a retry left); 410 fails it for good.
    for (const path of ['/ok', '/broken', '/gone']) {
      await t.http
        .post(`/api/webhooks/${await create(path)}/test`)
        .set('Authorization', admin)
        .expect(202);
    }
    // The deliveries are made by the fan-out, then sent: this app's queues are driven by hand.
    const runner = t.app.get(JobRunner);
    const recorded = (families: Map<string, MetricFamily>) =>
      ['delivered', 'retry', 'failed'].reduce(
        (sum, outcome) => sum + (valueOf(families, 'webhook_deliveries_total', { outcome }) ?? 0),
        0,
      );
    for (let pass = 0; pass < 40; pass++) {
      await runner.work(FANOUT_QUEUE);
      await runner.work(DELIVERY_QUEUE);
      if (recorded((await scrape()).families) >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const { families } = await scrape();
    expect({
      delivered: valueOf(families, 'webhook_deliveries_total', { outcome: 'delivered' }),
      retry: valueOf(families, 'webhook_deliveries_total', { outcome: 'retry' }),
      failed: valueOf(families, 'webhook_deliveries_total', { outcome: 'failed' }),
    }).toEqual({ delivered: 1, retry: 1, failed: 1 });
  });

  // Last of this block: closing a second application in this process (the cluster's, below) closes the
  // first one's database connections too, as in route-inventory's session tests.
  it('reports the process, and the database pool on MariaDB (nothing of a pool on SQLite)', async () => {
    const { families } = await scrape();
    for (const name of [
      'process_resident_memory_bytes',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect({ name, present: families.get(name)?.samples.length !== 0 && families.has(name) }).toEqual({
        name,
        present: true,
      });
    }
    if (t.config.database.kind === 'mysql') {
      const inUse = valueOf(families, 'db_pool_connections', { state: 'in_use' });
      const idle = valueOf(families, 'db_pool_connections', { state: 'idle' });
      expect(inUse).toEqual(expect.any(Number));
      expect(idle).toBeGreaterThanOrEqual(1);
      expect(inUse! + idle!).toBeLessThanOrEqual(valueOf(families, 'db_pool_max_connections')!);
      expect(valueOf(families, 'db_pool_max_connections')).toBe(10);
      expect(valueOf(families, 'db_pool_waiting_requests', { pool: 'main' })).toBe(0);
      // A cluster URL (here the same server named twice): one pool per node, by the node's name.
      const url = new URL(t.config.database.url);
      const cluster = await createTestApp({
        sharedWith: t,
        env: {
          DATABASE_URL: `mysql://${url.username}${url.password ? `:${url.password}` : ''}@${url.host},${url.host}${url.pathname}`,
          METRICS_TOKEN: TOKEN,
        },
      });
      try {
        await cluster.http.get('/api/health').expect(200);
        const res = await cluster.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
        const pools = parsePrometheusText(res.text).get('db_pool_max_connections')!.samples;
        expect(pools.map((sample) => [sample.labels.pool, sample.value])).toEqual([
          ['node1', 10],
          ['node2', 10],
        ]);
      } finally {
        await cluster.app.close();
      }
    } else {
      expect([...families.keys()].filter((name) => name.startsWith('db_pool'))).toEqual([]);
    }
  });
});

describe('GET /metrics and the rate limit and daily quota', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_TOKEN: TOKEN }, config: { rateLimitPerMinute: 3 } });
  });
  afterAll(() => t.close());

  it('takes nothing from either: a scrape is no API call', async () => {
    const user = await login(t);
    const usage = async () =>
      (await t.http.get('/api/usage').set('Authorization', user).expect(200)).body.data.api_calls.used;
    const used = await usage();
    for (let i = 0; i < 10; i++) {
      const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
      expect(Object.keys(res.headers).filter((h) => h.includes('ratelimit'))).toEqual([]);
    }
    for (let i = 0; i < 5; i++) await t.http.get('/metrics').set('Authorization', user).expect(401);
    expect(await usage()).toBe(used);
    // The user's limit of 3 a minute is untouched by the 15 scrapes: the two usage reads took two of it.
    const res = await t.http.get('/api/user').set('Authorization', user).expect(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    await t.http.get('/api/user').set('Authorization', user).expect(429);
    await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
  });
});

describe('GET /metrics on METRICS_PORT', () => {
  const get = async (port: number, path: string, headers: Record<string, string> = {}, method = 'GET') => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  it('serves it there alone, without a token, and stops with the app', async () => {
    const port = await freeFixedPort();
    const t = await createTestApp({ env: { METRICS_PORT: String(port) } });
    try {
      await t.http.get('/api/health').expect(200);
      const scraped = await get(port, '/metrics');
      expect(scraped).toMatchObject({ status: 200, type: 'text/plain; version=0.0.4; charset=utf-8' });
      const families = parsePrometheusText(scraped.text);
      expect(requestCounts(families)).toEqual({ 'health 2xx': 1 });
      // The API's port has no /metrics: the same 404 as any unknown path.
      const unknown = await t.http.get('/metricz').expect(404);
      const there = await t.http.get('/metrics').expect(404);
      expect(there.body).toEqual({ message: unknown.body.message.replace('/metricz', '/metrics') });
      expect(await get(port, '/metrics?x=1')).toMatchObject({ status: 200 });
      expect(await get(port, '/metrics', {}, 'HEAD')).toMatchObject({ status: 200, text: '' });
      for (const [path, method] of [
        ['/', 'GET'],
        ['/api/health', 'GET'],
        ['/metrics/', 'GET'],
        ['/metrics', 'POST'],
      ]) {
        expect({ path, method, ...(await get(port, path, {}, method)) }).toMatchObject({
          path,
          method,
          status: 404,
          text: '{"message":"Not Found"}',
        });
      }
    } finally {
      await t.close();
    }
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it('asks for the token there when METRICS_TOKEN is set too', async () => {
    const port = await freeFixedPort();
    const t = await createTestApp({ env: { METRICS_PORT: String(port), METRICS_TOKEN: TOKEN } });
    try {
      expect(await get(port, '/metrics')).toMatchObject({ status: 401, text: '{"message":"Unauthenticated."}' });
      expect(await get(port, '/metrics', { authorization: 'Bearer not-the-token-000000' })).toMatchObject({
        status: 401,
      });
      const scraped = await get(port, '/metrics', { authorization: `Bearer ${TOKEN}` });
      expect(scraped.status).toBe(200);
      expect(parsePrometheusText(scraped.text).has('http_request_duration_seconds')).toBe(true);
      await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(404);
    } finally {
      await t.close();
    }
  });
});

describe('GET /metrics when neither METRICS_TOKEN nor METRICS_PORT is set', () => {
  it('answers 404 like any unknown path, and records nothing', async () => {
    const t = await createTestApp({ env: { METRICS_TOKEN: undefined, METRICS_PORT: undefined } });
    try {
      const unknown = await t.http.get('/metricz').expect(404);
      for (const authorization of [undefined, `Bearer ${TOKEN}`]) {
        const req = t.http.get('/metrics');
        if (authorization) req.set('Authorization', authorization);
        const res = await req.expect(404);
        expect(res.body).toEqual({ message: unknown.body.message.replace('/metricz', '/metrics') });
        expect(res.headers['content-type']).toBe(unknown.headers['content-type']);
      }
      const fastify = t.app.getHttpAdapter().getInstance();
      expect(fastify.hasRoute({ method: 'GET', url: '/metrics' })).toBe(false);
    } finally {
      await t.close();
    }
  });
});
