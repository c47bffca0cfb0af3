import { createWriteStream, mkdtempSync, rmSync, statSync, createReadStream } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { call, startService, type ServiceUnderTest } from './perf/service-under-test.js';

/**
 * `npm run bench:webhooks`, on a fresh MariaDB database with the built service and a local receiver
 * that answers 200 at once:
 * 1. throughput: --events customers created through the batch API, each delivered to one endpoint
 *    subscribed to `customer.created` (deliveries per second, first to last);
 * 2. an import of --import customers delivered to that endpoint: the time from the import's end to
 *    its last delivery (target: 3 minutes), while GET /api/customers/{id} is measured against the
 *    same route on the idle service (req/s and server CPU per request).
 * Needs MariaDB (BENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306) and `npm run build`.
 */
const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    import: { type: 'string', default: '100000' },
  },
});
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const round1 = (n: number) => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  const received = new Set<string>();
  let first = 0;
  let last = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'] as string;
      received.add(id);
      last = Date.now();
      first ||= last;
      res.writeHead(200).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const port = (receiver.address() as AddressInfo).port;
  process.env.WEBHOOK_ALLOWED_HOSTS = '127.0.0.1';
  const service = await startService({ server: SERVER });
  const until = async (count: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (received.size < count) {
      if (Date.now() > deadline) throw new Error(`${received.size} of ${count} deliveries after ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  try {
    await call(service, 'POST', '/webhooks', { url: `http://127.0.0.1:${port}/hook`, events: ['customer.created'] });

    // 1. Throughput.
    const events = Number(args.events);
    const cpu0 = service.cpuSeconds();
    for (let start = 0; start < events; start += 1000) {
      const items = Array.from({ length: Math.min(1000, events - start) }, (_, i) => ({
        external_id: `wh-${start + i}`,
      }));
      await call(service, 'POST', '/customers/batch', { items });
    }
    await until(events, 600_000);
    const throughput = {
      phase: 'deliveries to one endpoint',
      deliveries: events,
      seconds: round1((last - first) / 1000),
      perSecond: Math.round(events / ((last - first) / 1000)),
      serviceCpuSeconds: round1(service.cpuSeconds() - cpu0),
    };
    console.log(JSON.stringify(throughput));

    // 2. An import delivered, GET of a customer measured meanwhile.
    const [customer] = await call<{ id: number }[]>(service, 'GET', '/customers?limit=1');
    const idle = await getLoad(service, customer.id, 5);
    const rows = Number(args.import);
    const dir = mkdtempSync(join(tmpdir(), 'wh-bench-'));
    const file = join(dir, 'import.csv');
    const out = createWriteStream(file);
    out.write('external_id,first_name,email\n');
    for (let i = 0; i < rows; i++) out.write(`imp-${i},Ada${i % 97},imp${i}@example.com\n`);
    out.end();
    await once(out, 'finish');
    const before = received.size;
    const job = await upload(service, file);
    const importStart = Date.now();
    let status = '';
    while (status !== 'completed') {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await call<{ status: string }>(service, 'GET', `/customers/imports/${job.id}`)).status;
      if (status === 'failed' || status === 'cancelled') throw new Error(`import ${status}`);
    }
    const importEnd = Date.now();
    const busy = await getLoad(service, customer.id, 5);
    await until(before + rows, 600_000);
    const imported = {
      phase: 'import delivered',
      rows,
      importSeconds: round1((importEnd - importStart) / 1000),
      lastDeliveryAfterImportEndSeconds: round1((last - importEnd) / 1000),
      getWhileDelivering: busy,
      getIdle: idle,
      getRatio: Math.round((busy.requestsPerSecond / idle.requestsPerSecond) * 100) / 100,
    };
    console.log(JSON.stringify(imported));
    rmSync(dir, { recursive: true, force: true });
  } finally {
    await service.stop();
    receiver.close();
  }
}

/** GET /api/customers/{id} at 32 connections for `seconds`: requests per second and server CPU per request. */
async function getLoad(service: ServiceUnderTest, id: number, seconds: number) {
  const cpu0 = service.cpuSeconds();
  const result = await autocannon({
    url: `${service.base}/customers/${id}`,
    connections: 32,
    duration: seconds,
    headers: { authorization: service.authorization },
  });
  const requests = result.requests.total;
  return {
    requestsPerSecond: Math.round(result.requests.average),
    cpuMsPerRequest: Math.round(((service.cpuSeconds() - cpu0) * 1000 * 1000) / requests) / 1000,
    non2xx: result.non2xx,
  };
}

function upload(service: ServiceUnderTest, file: string): Promise<{ id: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(`${service.base}/customers/imports?file_name=bench.csv`),
      {
        method: 'POST',
        headers: {
          authorization: service.authorization,
          'content-type': 'text/csv',
          'content-length': statSync(file).size,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          res.statusCode === 202
            ? resolve(JSON.parse(text).data)
            : reject(new Error(`upload: ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
