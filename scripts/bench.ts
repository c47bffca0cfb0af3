import autocannon from 'autocannon';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  call,
  seedCampaign,
  seedCustomersByApi,
  seedCustomersBySql,
  setPlanLimits,
  startService,
  type ServiceUnderTest,
} from './perf/service-under-test.js';

/**
 * `npm run bench`: the scenarios of the shared side-by-side harness (../shared/perf), on the service
 * alone: GET one campaign, the first customer page at 1,000 and at --big rows, a page --deep-pages
 * deep, and POST /api/customers. Per scenario: requests per second, p50/p99 latency and the
 * service's CPU per request (the steadiest figure on a shared machine); RSS at the end.
 * `--limits` sets every plan limit of the tenant first. `--profile` writes a CPU profile per scenario and prints its top functions by self time.
 * Needs MariaDB: BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306) and a build (npm run build).
 */
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    small: { type: 'string', default: '1000' },
    big: { type: 'string', default: '1000000' },
    'deep-pages': { type: 'string', default: '200' },
    profile: { type: 'boolean', default: false },
    /** Runs with every plan limit of the tenant set (and never reached): counting calls and records. */
    limits: { type: 'boolean', default: false },
    /** Extra node flags for the service, e.g. `--node-flags='--max-semi-space-size=4'`. */
    'node-flags': { type: 'string', default: '' },
  },
});
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';

interface Result {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  cpuMs: number;
  non2xx: number;
}

async function load(
  service: ServiceUnderTest,
  scenario: string,
  options: Partial<autocannon.Options>,
): Promise<Result> {
  const base = {
    url: service.base,
    connections: Number(args.connections),
    headers: { authorization: service.authorization, 'content-type': 'application/json' },
    ...options,
  };
  await autocannon({ ...base, duration: 2 }); // warm-up, not recorded
  const cpu0 = service.cpuSeconds();
  const result = await autocannon({ ...base, duration: Number(args.duration) });
  const cpu = service.cpuSeconds() - cpu0;
  const ok = result['2xx'];
  return {
    scenario,
    rps: Math.round(ok / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMs: (cpu * 1000) / Math.max(1, ok),
    non2xx: result.non2xx,
  };
}

/** The cursor of the page `pages` pages into the customer list. */
async function deepCursor(service: ServiceUnderTest, pages: number): Promise<string> {
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const res = await fetch(`${service.base}/customers?limit=25${cursor ? `&cursor=${cursor}` : ''}`, {
      headers: { authorization: service.authorization },
    });
    cursor = ((await res.json()) as { meta: { next_cursor: string } }).meta.next_cursor;
  }
  return cursor!;
}

async function main(): Promise<void> {
  const profileDir = args.profile ? mkdtempSync(join(tmpdir(), 'bench-profile-')) : undefined;
  const service = await startService({
    server: SERVER,
    nodeFlags: [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...args['node-flags'].split(' ').filter(Boolean),
    ],
  });
  const results: Result[] = [];
  let createCounter = 0;
  try {
    if (args.limits) await setPlanLimits(service);
    const campaignId = await seedCampaign(service);
    await seedCustomersByApi(service, Number(args.small));
    results.push(await load(service, 'get', { url: `${service.base}/campaigns/${campaignId}` }));
    results.push(await load(service, 'list', { url: `${service.base}/customers?limit=25` }));
    const started = Date.now();
    await seedCustomersBySql(service, Number(args.big) - Number(args.small));
    console.log(
      `seeded ${Number(args.big) - Number(args.small)} customers by SQL in ${(Date.now() - started) / 1000} s`,
    );
    results.push(await load(service, 'list_big', { url: `${service.base}/customers?limit=25` }));
    const cursor = await deepCursor(service, Number(args['deep-pages']));
    results.push(await load(service, 'list_deep', { url: `${service.base}/customers?limit=25&cursor=${cursor}` }));
    results.push(
      await load(service, 'create', {
        url: `${service.base}/customers`,
        method: 'POST',
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({
                external_id: `bench-${process.pid}-${createCounter++}`,
                first_name: 'Grace',
                last_name: 'Hopper',
                email: `grace${createCounter}@example.com`,
                attributes: '{"tier":"gold"}',
              }),
            }),
          },
        ],
      }),
    );
    await call(service, 'GET', '/db-test');
    const rss = service.rssMb();
    console.table(
      results.map((r) => ({
        scenario: r.scenario,
        'req/s': r.rps,
        'p50 ms': r.p50,
        'p99 ms': r.p99,
        'cpu ms/req': r.cpuMs.toFixed(3),
        non2xx: r.non2xx,
      })),
    );
    const byName = Object.fromEntries(results.map((r) => [r.scenario, r]));
    const meanLatency = (r: Result) => Number(args.connections) / Math.max(1, r.rps);
    const bigVsSmall = Math.max(meanLatency(byName.list_big), meanLatency(byName.list_deep)) / meanLatency(byName.list);
    console.log(`list latency big/small: ${bigVsSmall.toFixed(2)}; RSS at end: ${rss.toFixed(0)} MB`);
  } finally {
    await service.stop();
  }
  if (profileDir) {
    const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
    if (file) printTop(join(profileDir, file));
  }
}

/** Top functions by self time of a V8 CPU profile (the whole run, all scenarios). */
function printTop(file: string, count = 15): void {
  interface Node {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    const where = frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/');
    const key = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    const delta = profile.timeDeltas[i] ?? 0;
    busy += delta;
    self.set(key, (self.get(key) ?? 0) + delta);
  });
  console.log(`\nCPU profile ${file}: top ${count} by self time`);
  [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .forEach(([key, micros], i) =>
      console.log(`${String(i + 1).padStart(2)}. ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${key}`),
    );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
