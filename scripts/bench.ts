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
 * `--limits` sets every plan limit of the tenant first. `--only get,create` runs those scenarios alone. `--profile` writes a
 * CPU profile of the run and prints its top functions by self time and its time per request by layer (docs/performance.md).
 * Needs MariaDB: BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306) and a build (npm run build).
 */
const SCENARIOS = ['get', 'list', 'list_big', 'list_deep', 'create'];
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    small: { type: 'string', default: '1000' },
    big: { type: 'string', default: '1000000' },
    'deep-pages': { type: 'string', default: '200' },
    profile: { type: 'boolean', default: false },
    /** Runs these scenarios only (comma-separated: get, list, list_big, list_deep, create); the million rows are seeded only for the big ones. */
    only: { type: 'string', default: SCENARIOS.join(',') },
    /** Runs with every plan limit of the tenant set (and never reached): counting calls and records. */
    limits: { type: 'boolean', default: false },
    /** Extra node flags for the service, e.g. `--node-flags='--max-semi-space-size=4'`. */
    'node-flags': { type: 'string', default: '' },
  },
});
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const only = new Set(args.only.split(',').map((name) => name.trim()));
for (const name of only) {
  if (!SCENARIOS.includes(name)) {
    console.error(`--only: unknown scenario "${name}" (${SCENARIOS.join(', ')})`);
    process.exit(2);
  }
}
const runs = (scenario: string) => only.has(scenario);
/** Requests the service answered 2xx, warm-ups and seeding included: the profile's per-request divisor. */
let served = 0;

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
  const warmUp = await autocannon({ ...base, duration: 2 }); // not recorded
  const cpu0 = service.cpuSeconds();
  const result = await autocannon({ ...base, duration: Number(args.duration) });
  const cpu = service.cpuSeconds() - cpu0;
  const ok = result['2xx'];
  served += warmUp['2xx'] + ok;
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
    served += Number(args.small);
    if (runs('get')) results.push(await load(service, 'get', { url: `${service.base}/campaigns/${campaignId}` }));
    if (runs('list')) results.push(await load(service, 'list', { url: `${service.base}/customers?limit=25` }));
    if (runs('list_big') || runs('list_deep')) {
      const started = Date.now();
      await seedCustomersBySql(service, Number(args.big) - Number(args.small));
      console.log(
        `seeded ${Number(args.big) - Number(args.small)} customers by SQL in ${(Date.now() - started) / 1000} s`,
      );
    }
    if (runs('list_big')) results.push(await load(service, 'list_big', { url: `${service.base}/customers?limit=25` }));
    if (runs('list_deep')) {
      const cursor = await deepCursor(service, Number(args['deep-pages']));
      results.push(await load(service, 'list_deep', { url: `${service.base}/customers?limit=25&cursor=${cursor}` }));
    }
    if (runs('create')) {
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
    }
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
    if (byName.list && (byName.list_big || byName.list_deep)) {
      const bigVsSmall =
        Math.max(...[byName.list_big, byName.list_deep].filter(Boolean).map(meanLatency)) / meanLatency(byName.list);
      console.log(`list latency big/small: ${bigVsSmall.toFixed(2)}`);
    }
    console.log(`RSS at end: ${rss.toFixed(0)} MB`);
  } finally {
    await service.stop();
  }
  if (profileDir) {
    const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
    if (file) {
      const profile = readProfile(join(profileDir, file));
      printTop(profile);
      printLayers(profile, served);
    }
  }
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const readProfile = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Profile;

/** Each sample's leaf frame, its time (µs) and its stack (leaf first); idle samples left out. */
function* busySamples(profile: Profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  for (let i = 0; i < profile.samples.length; i++) {
    const leaf = nodes.get(profile.samples[i])!;
    if (leaf.callFrame.functionName === '(idle)') continue;
    const stack = function* () {
      for (let id: number | undefined = leaf.id; id !== undefined; id = parents.get(id)) yield nodes.get(id)!.callFrame;
    };
    yield { frame: leaf.callFrame, micros: profile.timeDeltas[i] ?? 0, stack };
  }
}

/** Top functions by self time of a V8 CPU profile (the whole run, all scenarios). */
function printTop(profile: Profile, count = 15): void {
  const self = new Map<string, number>();
  let busy = 0;
  for (const { frame, micros } of busySamples(profile)) {
    const where = frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/');
    const key = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    busy += micros;
    self.set(key, (self.get(key) ?? 0) + micros);
  }
  console.log(`\nCPU profile: top ${count} by self time`);
  [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .forEach(([key, micros], i) =>
      console.log(`${String(i + 1).padStart(2)}. ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${key}`),
    );
}

/** The layer a sample's time belongs to, by its leaf frame (socket writes by who wrote). */
const LAYERS: [layer: string, matches: (url: string, fn: string) => boolean][] = [
  [
    'socket writes',
    (url, fn) => !url && /^(writeBuffer|writev|writeString|writeUtf8String|writeLatin1String)$/.test(fn),
  ],
  ['mysql2', (url) => /node_modules\/(mysql2|lru\.min|sql-escaper|denque|named-placeholders)\//.test(url)],
  ['Nest', (url) => /node_modules\/(@nestjs\/(core|common)|rxjs)\//.test(url)],
  ['passport', (url) => /node_modules\/(passport|passport-jwt|@nestjs\/passport|jsonwebtoken)\//.test(url)],
  ['fastify', (url) => /node_modules\/(fastify|find-my-way|@fastify\/[^/]+|light-my-request)\//.test(url)],
  ['pino', (url) => /node_modules\/(pino|sonic-boom)\//.test(url)],
  ['typeorm', (url) => /node_modules\/typeorm\//.test(url)],
  ['the service', (url) => /\/dist\//.test(url)],
  ['other packages', (url) => /node_modules\//.test(url)],
  ['garbage collection', (_url, fn) => fn === '(garbage collector)'],
  ['promise queue', (url, fn) => fn === 'runMicrotasks' || url === 'node:internal/process/task_queues'],
  ['node (HTTP, streams, events, crypto)', (url) => url.startsWith('node:')],
];

/**
 * Time per request by layer: samples of module loading are left out, the rest divided by the
 * requests served. The profiler samples wall time on the main thread, so a thread preempted inside a
 * socket write counts as writing; the CPU column of the table above is the process's real CPU.
 */
function printLayers(profile: Profile, requests: number): void {
  const byLayer = new Map<string, number>();
  for (const { frame, micros, stack } of busySamples(profile)) {
    let loading = false;
    for (const caller of stack()) if (caller.url.startsWith('node:internal/modules/')) loading = true;
    if (loading) continue;
    const layer = LAYERS.find(([, matches]) => matches(frame.url, frame.functionName))?.[0] ?? 'V8 and the rest';
    byLayer.set(layer, (byLayer.get(layer) ?? 0) + micros);
  }
  console.log(`\nCPU profile: µs per request by layer (${requests} requests, start-up left out)`);
  [...byLayer.entries()]
    .sort((a, b) => b[1] - a[1])
    .forEach(([layer, micros]) => console.log(`${(micros / requests).toFixed(1).padStart(7)} µs  ${layer}`));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
