import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { call, startService, type ServiceUnderTest } from './perf/service-under-test.js';

/**
 * `npm run bench:latency` (docs/performance.md#latency-at-a-given-load): the built service on a
 * fresh MariaDB database, as `npm start` runs it, under an open loop: requests arrive evenly
 * spaced at each --rates rate for --seconds (after --warmup seconds at the first rate), whatever
 * the service's answers do, over a mix of 50 % GET of one customer, 20 % list of 25, 15 % create,
 * 10 % PUT and 5 % batch of 50. Latency is taken from when a request was due, not when it was sent,
 * so a queue that builds up counts (no coordinated omission). Prints p50, p99, p99.9 and max per
 * rate, each kind's p99 (which kind makes the tail), errors, the service's CPU and RSS, and the highest
 * rate held at p99 <= 10 ms.
 */
const { values: args } = parseArgs({
  options: {
    rates: { type: 'string', default: '500,1000,1500,2000' },
    seconds: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '10' },
    customers: { type: 'string', default: '10000' },
  },
});
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const P99_TARGET_MS = 10;

const KINDS = ['get', 'list', 'create', 'put', 'batch'] as const;
type Kind = (typeof KINDS)[number];

interface Step {
  kind: Kind;
  method: string;
  path: string;
  body?: string;
}

const round = (n: number) => Math.round(n * 10) / 10;

const ascending = (values: number[]) => values.sort((a, b) => a - b);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]);
}

/** The mix, drawn by a fixed rotation of 20 slots so that every second has the same shares. */
function mix(ids: number[]): (n: number) => Step {
  const slots: Kind[] = [
    ...Array<Kind>(10).fill('get'),
    ...Array<Kind>(4).fill('list'),
    ...Array<Kind>(3).fill('create'),
    ...Array<Kind>(2).fill('put'),
    'batch',
  ];
  // Interleaved, so that no kind comes in a burst.
  const order = [0, 10, 1, 14, 2, 11, 3, 17, 4, 12, 5, 15, 6, 13, 7, 18, 8, 16, 9, 19].map((i) => slots[i]);
  let created = 0;
  return (n) => {
    const id = ids[n % ids.length];
    const kind = order[n % order.length];
    switch (kind) {
      case 'get':
        return { kind, method: 'GET', path: `/api/customers/${id}` };
      case 'list':
        return { kind, method: 'GET', path: '/api/customers?limit=25' };
      case 'create':
        return {
          kind,
          method: 'POST',
          path: '/api/customers',
          body: JSON.stringify({
            external_id: `lat-${process.pid}-${created++}`,
            first_name: 'Ada',
            email: 'ada@example.com',
          }),
        };
      case 'put':
        return { kind, method: 'PUT', path: `/api/customers/${id}`, body: JSON.stringify({ last_name: `L${n}` }) };
      default: {
        const items = Array.from({ length: 50 }, (_, i) => ({ external_id: `batch-${i}`, first_name: `B${n % 7}` }));
        return { kind, method: 'POST', path: '/api/customers/batch', body: JSON.stringify({ items }) };
      }
    }
  };
}

function send(service: ServiceUnderTest, agent: Agent, step: Step): Promise<number> {
  const url = new URL(service.base);
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: step.method,
        path: step.path,
        agent,
        headers: {
          authorization: service.authorization,
          ...(step.body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(step.body) } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(step.body);
  });
}

interface RateResult {
  rate: number;
  sent: number;
  p50_ms: number;
  p99_ms: number;
  p999_ms: number;
  max_ms: number;
  errors: number;
  cpu_ms_per_req: number;
  rss_mb: number;
  /** p99 of each kind of request, to tell which kind makes the tail. */
  p99_ms_by_kind: Record<Kind, number>;
}

/** Requests due every 1/rate s for `seconds`; each latency measured from when it was due. */
async function run(service: ServiceUnderTest, next: (n: number) => Step, rate: number, seconds: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 512 });
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  const byKind = Object.fromEntries(KINDS.map((kind) => [kind, [] as number[]])) as Record<Kind, number[]>;
  let errors = 0;
  const pending: Promise<void>[] = [];
  const cpu0 = service.cpuSeconds();
  const start = performance.now();
  for (let n = 0; n < total; n++) {
    const due = start + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const step = next(n);
    pending.push(
      send(service, agent, step).then((status) => {
        const latency = performance.now() - due;
        latencies.push(latency);
        byKind[step.kind].push(latency);
        if (status < 200 || status >= 300) errors++;
      }),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  ascending(latencies);
  return {
    rate,
    sent: total,
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
    p999_ms: percentile(latencies, 0.999),
    max_ms: round(latencies[latencies.length - 1] ?? 0),
    errors,
    cpu_ms_per_req: round(((service.cpuSeconds() - cpu0) * 1000) / total),
    rss_mb: Math.round(service.rssMb()),
    p99_ms_by_kind: Object.fromEntries(
      KINDS.map((kind) => [kind, percentile(ascending(byKind[kind]), 0.99)]),
    ) as Record<Kind, number>,
  };
}

async function main(): Promise<void> {
  const rates = args.rates.split(',').map(Number);
  const service = await startService({ server: SERVER });
  try {
    const ids: number[] = [];
    for (let start = 0; start < Number(args.customers); start += 1000) {
      const items = Array.from({ length: 1000 }, (_, i) => ({
        external_id: `seed-${start + i}`,
        first_name: 'Seed',
        email: `seed${start + i}@example.com`,
      }));
      const results = await call<{ id: number }[]>(service, 'POST', '/customers/batch', { items });
      ids.push(...results.map((r) => r.id));
    }
    const next = mix(ids);
    await run(service, next, rates[0], Number(args.warmup));
    const results: RateResult[] = [];
    for (const rate of rates) {
      const result = await run(service, next, rate, Number(args.seconds));
      console.log(JSON.stringify(result));
      results.push(result);
    }
    console.table(results.map(({ p99_ms_by_kind: _, ...rest }) => rest));
    const held = results.filter((r) => r.p99_ms <= P99_TARGET_MS && r.errors === 0).map((r) => r.rate);
    console.log(`highest rate held at p99 <= ${P99_TARGET_MS} ms: ${held.length ? Math.max(...held) : 'none'} req/s`);
  } finally {
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
