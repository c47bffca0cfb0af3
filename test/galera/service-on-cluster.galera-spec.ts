import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { createApp } from '../../src/app.factory.js';
import { loadConfig, type AppConfig } from '../../src/common/config/app-config.js';
import type { Job, JobHandler, JobOutcome, QueueSettings } from '../../src/common/jobs/job.js';
import { JobRunner } from '../../src/common/jobs/job-runner.js';
import { Jobs } from '../../src/common/jobs/jobs.js';
import { ERASURE_QUEUE } from '../../src/modules/customer/erasure/erasure-jobs.js';
import { IMPORT_QUEUE } from '../../src/modules/customer/imports/import-jobs.js';
import { childInstance, killChildInstances, mixedFile, preexisting } from '../imports-support/imports.js';
import type { TestApp } from '../support/test-app.js';
import { NUMBERED_IN_WRITE } from '../../src/common/events/change-feed.js';
import { Database } from '../../src/common/persistence/database.js';
import { MIGRATIONS } from '../../src/database/migrations/index.js';
import type { FailoverPool } from '../../src/database/mysql-pool.js';
import { DataSource } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver.js';
import { GaleraCluster } from '../support/galera-cluster.js';

/**
 * The service on a throw-away 3-node MariaDB Galera cluster, one instance per node (each with the
 * whole cluster in its DATABASE_URL, its own node first). Figures are printed at the end and
 * quoted in docs/cluster.md.
 */
const DB = 'app';
const ADMIN = { email: 'admin@example.com', password: 'admin-password-123' };
const log = (line: string) => process.stdout.write(`[galera] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface FeedEvent {
  id: string;
  sequence: number;
  resource: string;
  resource_id: number;
  data: unknown;
}

const PLAN = {
  name: 'Cluster',
  description: 'd',
  status: 'active',
  start_date: '2026-01-01',
  end_date: '2026-12-31',
  budget: 100,
  goal: 'g',
};

describe('the service on a 3-node Galera cluster', () => {
  let cluster: GaleraCluster;
  let apps: NestFastifyApplication[] = [];
  let tokens: string[] = [];
  let clusterConfig: AppConfig;
  const figures: Record<string, unknown> = {};

  const http = (instance: number) => request(apps[instance].getHttpServer());
  const as = (instance: number) => ({
    get: (path: string) => http(instance).get(path).set('Authorization', tokens[instance]),
    post: (path: string, body: object) => http(instance).post(path).set('Authorization', tokens[instance]).send(body),
    put: (path: string, body: object) => http(instance).put(path).set('Authorization', tokens[instance]).send(body),
  });
  const retries = () => apps.reduce((sum, app) => sum + app.get(Database).conflictRetries, 0);

  /** A node's own view of a table, straight from the node. */
  const onNode = async <T>(node: number, sql: string, params: unknown[] = []): Promise<T[]> => {
    const conn = await cluster.connect(node, DB);
    try {
      await conn.query('SET SESSION wsrep_sync_wait = 1');
      const [rows] = await conn.query(sql, params);
      return rows as T[];
    } finally {
      await conn.end();
    }
  };

  beforeAll(async () => {
    cluster = await GaleraCluster.start({ log });
    await cluster.query(1, `CREATE DATABASE ${DB} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    const hosts = cluster.nodes.map((n) => `127.0.0.1:${n.port}`);
    const configFor = (instance: number) => {
      const order = [...hosts.slice(instance), ...hosts.slice(0, instance)];
      const base = loadConfig({ ...process.env, DATABASE_URL: `mysql://root@${order.join(',')}/${DB}` });
      return {
        ...loadConfig({
          ...process.env,
          DATABASE_URL: `mysql://root@${order.join(',')}/${DB}`,
          LOG_LEVEL: 'silent',
          ...Object.fromEntries(Object.entries({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password })),
        }),
        rateLimitPerMinute: 1_000_000,
        authAttemptsPerMinute: 1_000_000,
        rateLimitKeyPrefix: `galera-${instance}:`,
        webhooks: { ...base.webhooks, allowedHosts: '127.0.0.1', pollMs: 100 },
        // Imports and erasures are driven by the jobs tests below (runOnce), on the instance they choose.
        imports: { ...base.imports, runner: false },
        erasures: { ...base.erasures, runner: false, settleMs: 0 },
      };
    };
    clusterConfig = configFor(0);
    // Three instances start together on the empty database (the start-up lock holds on Galera).
    const started = Date.now();
    apps = await Promise.all([0, 1, 2].map((instance) => createApp(configFor(instance))));
    figures.threeInstancesStartSeconds = (Date.now() - started) / 1000;
    tokens = await Promise.all(
      [0, 1, 2].map(async (instance) => {
        const res = await http(instance)
          .post('/api/login')
          .send({ ...ADMIN, device_name: `node${instance + 1}` });
        return `Bearer ${res.body.data.token}`;
      }),
    );
  }, 600_000);

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close().catch(() => undefined)));
    await cluster?.stop();
    log(`figures: ${JSON.stringify(figures)}`);
  }, 120_000);

  async function newCampaign(instance = 0): Promise<number> {
    const program = await as(instance).post('/api/marketing-programs', PLAN).expect(201);
    const group = await as(instance)
      .post(`/api/marketing-programs/${program.body.data.id}/campaign-groups`, PLAN)
      .expect(201);
    const campaign = await as(instance).post(`/api/campaign-groups/${group.body.data.id}/campaigns`, PLAN).expect(201);
    return campaign.body.data.id;
  }

  it('migrated and seeded once while three instances started together', async () => {
    for (const node of [1, 2, 3]) {
      const [migrations] = await onNode<{ n: number }>(node, 'SELECT COUNT(*) AS n FROM migrations');
      const [users] = await onNode<{ n: number }>(node, 'SELECT COUNT(*) AS n FROM users');
      expect({ node, migrations: Number(migrations.n), users: Number(users.n) }).toEqual({
        node,
        migrations: MIGRATIONS.length,
        users: 1,
      });
    }
  });

  it('answers 200 concurrent PUTs of one campaign through the three instances without a 5xx', async () => {
    const id = await newCampaign();
    const before = retries();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => as(i % 3).put(`/api/campaigns/${id}`, { ...PLAN, name: `Put ${i}` })),
    );
    const statuses = answers.map((a) => a.status);
    figures.conflictingPuts = {
      fiveXx: statuses.filter((s) => s >= 500).length,
      retries: retries() - before,
    };
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const rows = await Promise.all(
      [1, 2, 3].map((node) =>
        onNode<{ name: string }>(node, 'SELECT name, updated_at FROM campaigns WHERE id = ?', [id]),
      ),
    );
    expect(new Set(rows.map((r) => JSON.stringify(r))).size).toBe(1);
  });

  it('never lets treatment-group allocations pass 100 % when creates race across the nodes', async () => {
    const ROUNDS = 30;
    const accepted: number[] = [];
    const before = retries();
    for (let round = 0; round < ROUNDS; round++) {
      const id = await newCampaign(round % 3);
      await as(0)
        .post(`/api/campaigns/${id}/treatment-groups`, { name: 'Base', type: 'control', allocation_percentage: 90 })
        .expect(201);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          as(i % 3).post(`/api/campaigns/${id}/treatment-groups`, {
            name: `Race ${i}`,
            type: 't',
            allocation_percentage: 10,
          }),
        ),
      );
      expect(answers.map((a) => a.status).filter((s) => s !== 201 && s !== 422)).toEqual([]);
      accepted.push(answers.filter((a) => a.status === 201).length);
      const [sum] = await onNode<{ total: string }>(
        (round % 3) + 1,
        'SELECT COALESCE(SUM(allocation_percentage), 0) AS total FROM treatment_groups WHERE campaign_id = ?',
        [id],
      );
      expect(Number(sum.total)).toBe(100);
    }
    figures.allocationRaces = { rounds: ROUNDS, acceptedPerRound: [...new Set(accepted)], retries: retries() - before };
    expect(accepted.every((n) => n === 1)).toBe(true);
  });

  it("holds a tenant's customer cap exactly when twenty creates race through the three instances", async () => {
    const tenant = (await as(0).get('/api/user').expect(200)).body.data.tenant_id as number;
    const { name } = (await as(0).get(`/api/admin/tenants/${tenant}`).expect(200)).body.data;
    const rounds: number[] = [];
    try {
      for (let round = 0; round < 5; round++) {
        const { count } = (
          await as(round % 3)
            .get('/api/usage')
            .expect(200)
        ).body.data.records.customers;
        // One place left.
        await as(0)
          .put(`/api/admin/tenants/${tenant}`, { name, limits: { customers: count + 1 } })
          .expect(200);
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) => as(i % 3).post('/api/customers', { first_name: `Cap ${round} ${i}` })),
        );
        expect(answers.map((a) => a.status).filter((s) => s !== 201 && s !== 403)).toEqual([]);
        rounds.push(answers.filter((a) => a.status === 201).length);
        const [row] = await onNode<{ n: number }>(
          (round % 3) + 1,
          'SELECT COUNT(*) AS n FROM customers WHERE tenant_id = ?',
          [tenant],
        );
        expect(Number(row.n)).toBe(count + 1);
        expect(
          (
            await as((round + 1) % 3)
              .get('/api/usage')
              .expect(200)
          ).body.data.records.customers.count,
        ).toBe(count + 1);
      }
    } finally {
      await as(0).put(`/api/admin/tenants/${tenant}`, { name, limits: { customers: null } });
    }
    figures.capRaces = { rounds: rounds.length, createdPerRound: [...new Set(rounds)] };
    expect(rounds.every((n) => n === 1)).toBe(true);
  });

  it('delivers every event to a webhook once or more, whichever instance wrote it and whichever delivers', async () => {
    const seen = new Map<string, number>();
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const id = req.headers['webhook-id'] as string;
        seen.set(id, (seen.get(id) ?? 0) + 1);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    try {
      await as(0)
        .post('/api/webhooks', { url: `http://127.0.0.1:${port}/cluster`, events: ['customer.created'] })
        .expect(201);
      const ids: number[] = [];
      for (let i = 0; i < 30; i++)
        ids.push(
          (
            await as(i % 3)
              .post('/api/customers', { first_name: `Hook ${i}` })
              .expect(201)
          ).body.data.id,
        );
      const deadline = Date.now() + 30_000;
      while (seen.size < ids.length && Date.now() < deadline) await sleep(100);
      figures.webhookDeliveries = {
        events: ids.length,
        delivered: seen.size,
        repeats: [...seen.values()].filter((n) => n > 1).length,
      };
      expect(seen.size).toBe(ids.length);
    } finally {
      receiver.close();
    }
  });

  describe('background jobs on the cluster (src/common/jobs)', () => {
    afterEach(killChildInstances);

    it("holds a lane's concurrency across the three instances: each job once, never more than the lane's at once", async () => {
      const queue = 'galera-lane';
      let inFlight = 0;
      let most = 0;
      const ran: number[] = [];
      const settings: QueueSettings = {
        name: queue,
        enabled: true,
        concurrency: 10,
        leaseMs: 10_000,
        pollMs: 20,
        retry: { name: 'test', delays: [1] },
        maxWaitSeconds: 60,
      };
      const handler: JobHandler = {
        settings,
        laneLimits: async (lanes) => new Map(lanes.map((lane) => [lane, { concurrency: 3 }])),
        run: async (job: Job): Promise<JobOutcome> => {
          most = Math.max(most, ++inFlight);
          await sleep(40);
          inFlight--;
          ran.push(job.subjectId!);
          return { status: 'done' };
        },
      };
      await apps[0].get(Jobs).enqueue(
        undefined,
        Array.from({ length: 45 }, (_, i) => ({ queue, lane: 'one-destination', subjectId: i })),
      );
      const runners = apps.map((app) => new JobRunner(app.get(Database), new Jobs(app.get(Database)), [handler]));
      runners.forEach((runner) => runner.start());
      try {
        for (const deadline = Date.now() + 30_000; ran.length < 45 && Date.now() < deadline;) await sleep(50);
      } finally {
        await Promise.all(runners.map((runner) => runner.stop(0)));
      }
      figures.jobLane = { jobs: ran.length, mostInFlight: most };
      expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 45 }, (_, i) => i));
      expect(most).toBeLessThanOrEqual(3);
    });

    it('finishes an import whose instance was killed mid-job (kill -9) on another instance, with the counts of an uninterrupted run', async () => {
      const ROWS = 3_000;
      const child = await childInstance({ config: clusterConfig } as TestApp, {
        runner: true,
        chunkRows: 50,
        leaseMs: 2_000,
        pollMs: 20,
      });
      const prefix = `galera-${Date.now()}`;
      await as(0)
        .post('/api/customers/batch', { items: preexisting(ROWS, prefix) })
        .expect(200);
      const { csv, expected } = mixedFile(ROWS, prefix);
      const upload = await http(0)
        .post('/api/customers/imports')
        .set('Authorization', tokens[0])
        .set('Content-Type', 'text/csv')
        .send(csv)
        .expect(202);
      const id = upload.body.data.id as number;
      const job = async () => (await as(1).get(`/api/customers/imports/${id}`).expect(200)).body.data;
      for (const deadline = Date.now() + 60_000; (await job()).processed_rows < 500; await sleep(20)) {
        if (Date.now() > deadline) throw new Error('the child instance did not get going');
      }
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const dead = await job();
      expect(dead.status).toBe('running');
      // Another instance of the cluster takes it over once the lease has run out.
      const takeover = Date.now();
      let outcome: JobOutcome | undefined;
      for (const deadline = Date.now() + 30_000; !outcome && Date.now() < deadline; await sleep(200)) {
        outcome = await apps[2].get(JobRunner).runOnce(IMPORT_QUEUE);
      }
      expect(outcome).toEqual({ status: 'done', note: 'completed' });
      figures.importTakeover = { processedWhenKilled: dead.processed_rows, takenOverAfterMs: Date.now() - takeover };
      expect(await job()).toMatchObject({ status: 'completed', ...expected });
    });

    it('runs an erasure as a job, through any instance', async () => {
      const customer = (
        await as(0)
          .post('/api/customers', { first_name: 'Galera erasure', email: `galera-erase-${Date.now()}@example.com` })
          .expect(201)
      ).body.data;
      for (let i = 0; i < 5; i++)
        await as(i % 3)
          .put(`/api/customers/${customer.id}`, { last_name: `v${i}` })
          .expect(200);
      const erasure = (await as(1).post(`/api/customers/${customer.id}/erase`, {}).expect(202)).body.data;
      while ((await apps[2].get(JobRunner).runOnce(ERASURE_QUEUE)) !== undefined);
      expect((await as(0).get(`/api/customers/erasures/${erasure.id}`).expect(200)).body.data).toMatchObject({
        status: 'completed',
        activity_entries: 6,
      });
    });
  });

  it('reads its own writes through any other instance', async () => {
    const id = await newCampaign();
    let stale = 0;
    for (let i = 0; i < 150; i++) {
      const writer = i % 3;
      const reader = (i + 1) % 3;
      await as(writer)
        .put(`/api/campaigns/${id}`, { ...PLAN, name: `Pair ${i}` })
        .expect(200);
      const read = await as(reader).get(`/api/campaigns/${id}`).expect(200);
      if (read.body.data.name !== `Pair ${i}`) stale++;
    }
    figures.staleReads = stale;
    expect(stale).toBe(0);
  });

  it('keeps serving through a node killed during a write load: no acknowledged write lost, and retries with an Idempotency-Key leave no duplicate', async () => {
    const acknowledged: string[] = [];
    const failed: { status: number; instance: number; marker: string }[] = [];
    const latencies: number[] = [];
    let servedByDeadNodesInstanceAfterKill = 0;
    let killedAt = Infinity;
    let running = true;
    let n = 0;
    // No natural key: only the Idempotency-Key can tell a retry from a new customer.
    const create = (instance: number, marker: string) =>
      as(instance).post('/api/customers', { first_name: marker }).set('Idempotency-Key', marker);
    const writer = async (instance: number) => {
      while (running) {
        const marker = `kill-${instance}-${n++}`;
        const started = Date.now();
        const res = await create(instance, marker);
        latencies.push(Date.now() - started);
        if (res.status === 201) {
          acknowledged.push(marker);
          if (instance === 1 && started > killedAt) servedByDeadNodesInstanceAfterKill++;
        } else failed.push({ status: res.status, instance, marker });
      }
    };
    const load = Promise.all([0, 1, 2].flatMap((instance) => [writer(instance), writer(instance), writer(instance)]));
    await sleep(2_000);
    killedAt = Date.now();
    await cluster.kill(2);
    figures.evictionSeconds = (Date.now() - killedAt) / 1000;
    await sleep(4_000);
    running = false;
    await load;

    // Every failed write retried with its key through another instance, until it answers 201: a
    // first attempt that did commit is replayed, one that did not is done now. A claim left
    // running by the dead node's connections answers 409 until its lease runs out.
    const retried = { replayed: 0, done: 0, conflicts: 0 };
    for (const f of failed) {
      for (let attempt = 0; ; attempt++) {
        const res = await create((f.instance + 1) % 3, f.marker);
        if (res.status === 201) {
          retried[res.headers['idempotent-replayed'] === 'true' ? 'replayed' : 'done']++;
          acknowledged.push(f.marker);
          break;
        }
        if (res.status === 409) retried.conflicts++;
        if (attempt > 90) throw new Error(`retry of ${f.marker}: ${res.status} ${JSON.stringify(res.body)}`);
        await sleep(1_000);
      }
    }
    const rejoin = await cluster.restart(2);
    figures.nodeKill = {
      acknowledged: acknowledged.length,
      failed: failed.length,
      failedStatuses: [...new Set(failed.map((f) => f.status))],
      retried,
      maxLatencyMs: Math.max(...latencies),
      servedByDeadNodesInstanceAfterKill,
      rejoin,
    };
    expect(failed.filter((f) => f.status !== 503)).toEqual([]);
    expect(servedByDeadNodesInstanceAfterKill).toBeGreaterThan(0);
    expect(rejoin.ist).toBe(true);
    for (const node of [1, 2, 3]) {
      const rows = await onNode<{ first_name: string; copies: number | string }>(
        node,
        "SELECT first_name, COUNT(*) AS copies FROM customers WHERE first_name LIKE 'kill-%' GROUP BY first_name",
      );
      const copies = new Map(rows.map((r) => [r.first_name, Number(r.copies)]));
      expect({
        node,
        lost: acknowledged.filter((marker) => !copies.has(marker)),
        duplicated: [...copies].filter(([, count]) => count > 1),
      }).toEqual({ node, lost: [], duplicated: [] });
    }
  });

  /** The node each instance sends its writes to (src/database/mysql-pool.ts). */
  const writers = () =>
    apps.map((app) => ((app.get(DataSource).driver as MysqlDriver).pool as unknown as FailoverPool).writerAddress);

  it('writes through one node every instance agrees on; the feed never skips or repeats while 8 writers race a reader, through a kill of that node', async () => {
    const [writer] = writers();
    expect(writers()).toEqual([writer, writer, writer]);
    const writerNode = cluster.nodes.findIndex((node) => writer.endsWith(`:${node.port}`)) + 1;
    expect(writerNode).toBeGreaterThan(0);

    const feed = async (cursor?: string) => {
      const res = await as(0).get(`/api/events?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
      if (res.status !== 200) expect(res.status).toBe(503);
      return res.status === 200 ? { events: res.body.data as FeedEvent[], meta: res.body.meta } : undefined;
    };
    let cursor = (await feed())!.meta.next_cursor as string;
    for (let page = await feed(cursor); page?.meta.has_more; page = await feed(cursor)) cursor = page.meta.next_cursor;
    cursor = (await feed(cursor))!.meta.next_cursor;

    const seen: FeedEvent[] = [];
    let writing = true;
    const reading = (async () => {
      for (;;) {
        const done = !writing;
        const page = await feed(cursor);
        if (page) {
          seen.push(...page.events);
          cursor = page.meta.next_cursor;
          if (done && !page.meta.has_more) return;
        } else await sleep(200); // the reader's own node may be the one killed: 503 until it moves
      }
    })();
    const acknowledged = new Map<number, number[]>();
    const write = async (w: number) => {
      const instance = w % 3;
      let id: number | undefined;
      while (id === undefined) {
        const res = await as(instance).post('/api/customers', { first_name: 'v0' });
        if (res.status === 201) id = res.body.data.id as number;
        else await sleep(200);
      }
      acknowledged.set(id, [0]);
      for (let v = 1; v <= 12; v++) {
        const res = await as(instance).put(`/api/customers/${id}`, { first_name: `v${v}` });
        if (res.status === 200) acknowledged.get(id)!.push(v);
        else expect(res.status).toBe(503);
      }
    };
    // Batches number their own events in their transaction (NUMBERED_IN_WRITE): two of them race the rest.
    const batchAcknowledged = new Map<string, number[]>();
    const writeBatches = async (b: number) => {
      for (let v = 0; v < 6; v++) {
        const items = Array.from({ length: NUMBERED_IN_WRITE + 20 }, (_, n) => ({
          external_id: `g${b}-${n}`,
          first_name: `v${v}`,
        }));
        const res = await as(b + 1).post('/api/customers/batch', { items });
        if (res.status !== 200) {
          expect(res.status).toBe(503);
          continue;
        }
        for (const { external_id } of items)
          batchAcknowledged.set(external_id, [...(batchAcknowledged.get(external_id) ?? []), v]);
      }
    };
    const load = Promise.all([
      ...Array.from({ length: 8 }, (_, w) => write(w)),
      ...Array.from({ length: 2 }, (_, b) => writeBatches(b)),
    ]);
    await sleep(1_500);
    const killedAt = Date.now();
    await cluster.kill(writerNode);
    await load;
    // Every instance moves to the same survivor.
    let moved = writers();
    while (new Set(moved).size !== 1 || moved[0] === writer) {
      if (Date.now() - killedAt > 30_000) throw new Error(`instances disagree on the writer: ${moved.join(', ')}`);
      await sleep(250);
      moved = writers();
    }
    figures.writerMoveSeconds = (Date.now() - killedAt) / 1000;
    writing = false;
    await reading;
    await cluster.restart(writerNode);

    const ids = new Set(seen.map((e) => e.id));
    expect(ids.size).toBe(seen.length);
    const sequences = seen.map((e) => e.sequence);
    expect(sequences).toEqual(sequences.map((_, i) => sequences[0] + i));
    for (const [id, versions] of acknowledged) {
      const history = seen
        .filter((e) => e.resource === 'customer' && e.resource_id === id)
        .map((e) => Number(String((e.data as { first_name: string }).first_name).slice(1)));
      // In the order of the writes; every acknowledged one there (a write that failed may have committed).
      expect({ id, ordered: history.every((v, i) => i === 0 || v > history[i - 1]) }).toEqual({ id, ordered: true });
      expect({ id, missing: versions.filter((v) => !history.includes(v)) }).toEqual({ id, missing: [] });
    }
    for (const [externalId, versions] of batchAcknowledged) {
      const history = seen
        .filter((e) => e.resource === 'customer' && (e.data as { external_id?: string }).external_id === externalId)
        .map((e) => Number(String((e.data as { first_name: string }).first_name).slice(1)));
      expect({ externalId, ordered: history.every((v, i) => i === 0 || v > history[i - 1]) }).toEqual({
        externalId,
        ordered: true,
      });
      expect({ externalId, missing: versions.filter((v) => !history.includes(v)) }).toEqual({
        externalId,
        missing: [],
      });
    }
    expect(batchAcknowledged.size).toBe(2 * (NUMBERED_IN_WRITE + 20));
    figures.feedUnderKill = { events: seen.length, writers: 8, batchWriters: 2, moved: moved[0] };
  });

  it('measures write throughput through one node and through three', async () => {
    const throughput = async (instances: number[]) => {
      let done = 0;
      const until = Date.now() + 5_000;
      await Promise.all(
        instances.flatMap((instance) =>
          Array.from({ length: Math.ceil(12 / instances.length) }, async () => {
            while (Date.now() < until) {
              await as(instance).post('/api/customers', {}).expect(201);
              done++;
            }
          }),
        ),
      );
      return Math.round(done / 5);
    };
    figures.writesPerSecond = { oneNode: await throughput([0]), threeNodes: await throughput([0, 1, 2]) };
  });
});
