import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { call, seedCampaign, seedCustomersByApi, startService } from './perf/service-under-test.js';

/**
 * `npm run soak`: mixed reads and writes at 64 connections for 10 minutes on MariaDB, sampling the
 * service's RSS and the p99 latency every 10 s. Passes when RSS after the warm-up (the first minute)
 * grows by at most 10 %. Needs a build and MariaDB (SOAK_MYSQL_URL, default mysql://root@127.0.0.1:3306).
 */
const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    connections: { type: 'string', default: '64' },
    'warmup-seconds': { type: 'string', default: '60' },
  },
});
const SAMPLE_SECONDS = 10;
const MAX_GROWTH = 0.1;

async function main(): Promise<void> {
  const service = await startService({ server: process.env.SOAK_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306' });
  let failed: boolean;
  try {
    const campaignId = await seedCampaign(service);
    await seedCustomersByApi(service, 500);
    const customer = await call<{ id: number }>(service, 'POST', '/customers', { first_name: 'Soak' });
    let n = 0;
    const json = { authorization: service.authorization, 'content-type': 'application/json' };
    // Two reads for each write, as an enterprise client's day looks.
    const requests: autocannon.Request[] = [
      { method: 'GET', path: `/api/campaigns/${campaignId}` },
      { method: 'GET', path: '/api/customers?limit=25' },
      {
        method: 'POST',
        path: '/api/customers',
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ external_id: `soak-${n++}`, first_name: 'Soak' }) }),
      },
      { method: 'GET', path: `/api/customers/${customer.id}` },
      { method: 'GET', path: '/api/customers?limit=25&sort=last_name' },
      {
        method: 'PUT',
        path: `/api/customers/${customer.id}`,
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ last_name: `Soak ${n++}` }) }),
      },
    ];
    const samples: { second: number; rssMb: number; p99: number; rps: number; errors: number }[] = [];
    const slices = (Number(args.minutes) * 60) / SAMPLE_SECONDS;
    for (let i = 0; i < slices; i++) {
      const result = await autocannon({
        url: new URL(service.base).origin,
        connections: Number(args.connections),
        duration: SAMPLE_SECONDS,
        headers: json,
        requests,
      });
      const sample = {
        second: (i + 1) * SAMPLE_SECONDS,
        rssMb: Math.round(service.rssMb()),
        p99: result.latency.p99,
        rps: Math.round(result.requests.average),
        errors: result.non2xx + result.errors,
      };
      samples.push(sample);
      console.log(
        `${String(sample.second).padStart(4)} s  RSS ${sample.rssMb} MB  p99 ${sample.p99} ms  ${sample.rps} req/s  non-2xx/errors ${sample.errors}`,
      );
    }
    const warm = samples.filter((s) => s.second > Number(args['warmup-seconds']));
    const base = warm[0]?.rssMb ?? samples[0].rssMb;
    const peak = Math.max(...warm.map((s) => s.rssMb));
    const growth = (peak - base) / base;
    const errors = samples.reduce((sum, s) => sum + s.errors, 0);
    console.log(
      `RSS after warm-up: ${base} MB, peak ${peak} MB, growth ${(growth * 100).toFixed(1)} % (limit ${MAX_GROWTH * 100} %); non-2xx/errors ${errors}`,
    );
    failed = growth > MAX_GROWTH || errors > 0;
  } finally {
    await service.stop();
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
