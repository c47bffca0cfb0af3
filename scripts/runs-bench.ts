import autocannon from 'autocannon';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { SMTPServer } from 'smtp-server';
import {
  call,
  seedCampaign,
  seedCustomersBySql,
  setPlanLimits,
  startService,
  type ServiceUnderTest,
} from './perf/service-under-test.js';

/**
 * `npm run bench:runs` (docs/campaign-runs.md): campaign runs on MariaDB, through HTTP against the
 * built service in its own process (scripts/perf/service-under-test.ts):
 *
 * 1. --customers customers (SQL), one audience selecting all of them, a campaign split 90 / 10
 *    (by the allocation's hash, so about) between a treatment and a control group, a webhook destination to a local receiver (batches of
 *    1,000, --concurrency requests open);
 * 2. a run: its snapshot (launch to the first record received), its delivery rate (records a
 *    second between the first and the last record received, every message id once), the service's
 *    RSS at its highest, and GET /api/customers/{id} during delivery against idle;
 * 3. a second run with nothing changed (sync `upsert`): its time, and 0 records sent;
 * 4. a run to a `file` destination over the same members: its time;
 * 5. --emails more customers, e-mailed through a local SMTP server (smtp-server): messages a second.
 *
 * Targets (issue 44): snapshot <= 30 s, >= 10,000 recipients a second, the unchanged run <= 30 s,
 * the file <= 60 s, e-mail >= 200 a second, RSS < 300 MB, reads during delivery >= 0.7 of idle.
 * Prints a table; exits 1 when a target is missed. Needs MariaDB (BENCH_MYSQL_URL, default
 * mysql://root@127.0.0.1:3306) and `npm run build`.
 */
const { values: args } = parseArgs({
  options: {
    customers: { type: 'string', default: '1000000' },
    emails: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '8' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
    /** Writes the service's CPU profile (--cpu-prof) into this directory. */
    profile: { type: 'string' },
  },
});
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const CUSTOMERS = Number(args.customers);
const EMAILS = Number(args.emails);

interface Row {
  check: string;
  value: number;
  unit: string;
  target?: { op: '<=' | '>='; value: number };
  note?: string;
}
const rows: Row[] = [];
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function record(row: Row): void {
  rows.push(row);
  const target = row.target ? ` (target ${row.target.op} ${row.target.value})` : '';
  log(
    `  ${row.check}: ${row.value.toFixed(row.unit === 's' ? 1 : 0)} ${row.unit}${target}${row.note ? `; ${row.note}` : ''}`,
  );
}

/** A local webhook receiver: counts records and distinct message ids, answers 200 at once. */
class Receiver {
  records = 0;
  readonly messageIds = new Set<string>();
  first = 0;
  last = 0;
  private server!: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const { records } = JSON.parse(Buffer.concat(chunks).toString()) as { records: { message_id: string }[] };
        const now = performance.now();
        this.first ||= now;
        this.last = now;
        this.records += records.length;
        for (const r of records) this.messageIds.add(r.message_id);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  reset(): void {
    this.records = 0;
    this.messageIds.clear();
    this.first = 0;
    this.last = 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

type Run = { id: number; status: string; counts: { destinations: { delivered: number; pending: number }[] } };

/** Polls the run until it ends; samples the service's RSS and prints each phase's seconds meanwhile. */
async function untilEnded(service: ServiceUnderTest, runId: number, rss: number[]): Promise<Run> {
  let phase = '';
  let since = performance.now();
  for (;;) {
    const run = await call<Run>(service, 'GET', `/campaign-runs/${runId}`);
    rss.push(service.rssMb());
    const [[now]] = (await service.sql('SELECT phase FROM campaign_runs WHERE id = ?', [runId])) as [
      { phase: string }[],
    ];
    if (now.phase !== phase) {
      if (phase) log(`    phase ${phase}: ${((performance.now() - since) / 1000).toFixed(1)} s`);
      [phase, since] = [now.phase, performance.now()];
    }
    if (['completed', 'failed', 'cancelled'].includes(run.status)) return run;
    await sleep(250);
  }
}

async function readRate(service: ServiceUnderTest, customerId: number): Promise<number> {
  const result = await autocannon({
    url: `${service.base}/customers/${customerId}`,
    headers: { authorization: service.authorization },
    connections: Number(args.connections),
    duration: Number(args.duration),
  });
  return result.requests.average;
}

async function campaignOver(service: ServiceUnderTest, emailSuffix: string): Promise<number> {
  const campaignId = await seedCampaign(service);
  const audience = await call<{ id: number }>(service, 'POST', '/audiences', {
    name: `Everyone ${emailSuffix}`,
    description: 'bench',
    rules: [{ rule_type: 'email', rule_value: emailSuffix, field: 'email', operator: 'ends_with' }],
  });
  await call(service, 'POST', `/campaigns/${campaignId}/audiences`, { audience_id: audience.id });
  for (const [name, type, allocation_percentage] of [
    ['Treatment', 'treatment', 90],
    ['Control', 'control', 10],
  ] as const) {
    await call(service, 'POST', `/campaigns/${campaignId}/treatment-groups`, { name, type, allocation_percentage });
  }
  return campaignId;
}

async function link(service: ServiceUnderTest, campaignId: number, type: string, details: object): Promise<void> {
  const destination = await call<{ id: number }>(service, 'POST', '/destinations', {
    name: `${type} ${campaignId}`,
    destination_type: type,
    connection_details: JSON.stringify(details),
  });
  await call(service, 'POST', `/campaigns/${campaignId}/destinations`, {
    destination_id: destination.id,
    attribute_mapping: JSON.stringify({ email: 'email', name: 'first_name' }),
  });
}

const launch = (service: ServiceUnderTest, campaignId: number) =>
  call<Run>(service, 'POST', `/campaigns/${campaignId}/runs`, {});

async function main(): Promise<void> {
  process.env.WEBHOOK_ALLOWED_HOSTS = '127.0.0.1';
  const receiver = await new Receiver().start();
  const service = await startService({
    server: SERVER,
    ...(args.profile ? { nodeFlags: ['--cpu-prof'], profileDir: args.profile } : {}),
  });
  try {
    await setPlanLimits(service);
    let started = performance.now();
    await seedCustomersBySql(service, CUSTOMERS);
    log(`${CUSTOMERS.toLocaleString('en')} customers by SQL in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const [[{ id: someCustomer }]] = (await service.sql('SELECT MIN(id) AS id FROM customers')) as [{ id: number }[]];

    const campaignId = await campaignOver(service, '@example.com');
    await link(service, campaignId, 'webhook', {
      url: `http://127.0.0.1:${receiver.port}/records`,
      batch_size: 1000,
      concurrency: Number(args.concurrency),
      rate_per_second: 1000,
    });
    const idle = await readRate(service, someCustomer);

    log('run 1: every member new');
    const rss: number[] = [];
    started = performance.now();
    const run = await launch(service, campaignId);
    while (!receiver.first) await sleep(50);
    record({
      check: 'snapshot and plan (launch to first record)',
      value: (receiver.first - started) / 1000,
      unit: 's',
      target: { op: '<=', value: 30 },
    });
    const during = await readRate(service, someCustomer);
    const ended = await untilEnded(service, run.id, rss);
    const seconds = (receiver.last - receiver.first) / 1000;
    const delivered = ended.counts.destinations[0].delivered;
    record({
      check: 'delivery to the webhook receiver',
      value: receiver.records / seconds,
      unit: 'records/s',
      target: { op: '>=', value: 10_000 },
      note: `${receiver.records.toLocaleString('en')} records (${receiver.messageIds.size.toLocaleString('en')} message ids, ${delivered.toLocaleString('en')} delivered by the run's counts) in ${seconds.toFixed(1)} s, run ${ended.status} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    });
    if (receiver.messageIds.size !== delivered || receiver.records !== delivered || ended.status !== 'completed') {
      throw new Error(`run 1: ${ended.status}, ${receiver.messageIds.size} message ids for ${delivered} delivered`);
    }
    record({
      check: 'GET /api/customers/{id} during delivery, share of idle',
      value: (during / idle) * 100,
      unit: '%',
      target: { op: '>=', value: 70 },
      note: `${during.toFixed(0)} of ${idle.toFixed(0)}/s`,
    });

    log('run 2: nothing changed (upsert)');
    receiver.reset();
    started = performance.now();
    const second = await untilEnded(service, (await launch(service, campaignId)).id, rss);
    record({
      check: 'second run, nothing changed',
      value: (performance.now() - started) / 1000,
      unit: 's',
      target: { op: '<=', value: 30 },
      note: `${second.status}, ${receiver.records} records sent`,
    });
    if (receiver.records !== 0) throw new Error(`run 2 sent ${receiver.records} records`);

    log('run 3: a file destination');
    const fileCampaign = await campaignOver(service, '@example.com');
    await link(service, fileCampaign, 'file', { format: 'csv' });
    started = performance.now();
    const file = await untilEnded(service, (await launch(service, fileCampaign)).id, rss);
    record({
      check: 'file destination',
      value: (performance.now() - started) / 1000,
      unit: 's',
      target: { op: '<=', value: 60 },
      note: file.status,
    });
    record({
      check: 'service RSS, highest during the runs',
      value: Math.max(...rss),
      unit: 'MB',
      target: { op: '<=', value: 300 },
    });

    if (EMAILS > 0) {
      log(`run 4: e-mail to ${EMAILS.toLocaleString('en')} customers through a local SMTP server`);
      let messages = 0;
      let firstMail = 0;
      let lastMail = 0;
      const smtp = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        onData: (stream, _session, callback) => {
          stream.on('data', () => undefined);
          stream.on('end', () => {
            const now = performance.now();
            firstMail ||= now;
            lastMail = now;
            messages++;
            callback();
          });
        },
      });
      await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
      const smtpPort = (smtp.server.address() as AddressInfo).port;
      const tenant = (await service.sql('SELECT tenant_id FROM users LIMIT 1')) as [{ tenant_id: number }[]];
      const tenantId = tenant[0][0].tenant_id;
      for (let start = 0; start < EMAILS; start += 5000) {
        const size = Math.min(5000, EMAILS - start);
        const values: unknown[] = [];
        for (let i = 0; i < size; i++) values.push(tenantId, `mail-${start + i}`, `m${start + i}@mail.example`);
        await service.sql(
          'INSERT INTO customers (tenant_id, external_id, first_name, email, is_active, created_at, updated_at) VALUES ' +
            Array.from({ length: size }, () => "(?, ?, 'Ada', ?, 1, UTC_TIMESTAMP(), UTC_TIMESTAMP())").join(', '),
          values,
        );
      }
      const mailCampaign = await campaignOver(service, '@mail.example');
      await link(service, mailCampaign, 'email', {
        from: 'news@bench.example',
        subject: 'Hello {{ name }}',
        text: 'Hello {{ name }}',
        smtp_url: `smtp://127.0.0.1:${smtpPort}`,
        rate_per_second: 1000,
        concurrency: Number(args.concurrency),
      });
      const mail = await untilEnded(service, (await launch(service, mailCampaign)).id, rss);
      const mailSeconds = (lastMail - firstMail) / 1000;
      record({
        check: 'e-mail to the local SMTP server',
        value: messages / mailSeconds,
        unit: 'messages/s',
        target: { op: '>=', value: 200 },
        note: `${messages} messages in ${mailSeconds.toFixed(1)} s, ${mail.status}`,
      });
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  } finally {
    await service.stop();
    await receiver.close();
  }
  const missed = rows.filter(
    (row) => row.target && (row.target.op === '<=' ? row.value > row.target.value : row.value < row.target.value),
  );
  log(missed.length ? `missed: ${missed.map((row) => row.check).join('; ')}` : 'every target met');
  if (missed.length) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
