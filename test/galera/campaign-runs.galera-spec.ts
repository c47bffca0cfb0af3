import { mkdtempSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app.factory.js';
import { loadConfig, type AppConfig } from '../../src/common/config/app-config.js';
import { JobRunner } from '../../src/common/jobs/job-runner.js';
import { HELD } from '../../src/common/jobs/jobs.js';
import { DESTINATION_QUEUE } from '../../src/modules/destination/delivery/delivery-batch.js';
import { childInstance, killChildInstances } from '../imports-support/imports.js';
import { login } from '../support/auth.js';
import { dataOf, newWorkspace, type Client, type Row, type Workspace } from '../support/campaign-fixtures.js';
import { eventually, Receiver, sleep, type Any } from '../support/destination-fixtures.js';
import { GaleraCluster } from '../support/galera-cluster.js';
import {
  launch,
  linkWebhook,
  newCustomers,
  recipientsOf,
  recordsOf,
  runnableCampaign,
  runWhen,
  unique,
  VARIANTS_AND_CONTROL,
} from '../support/run-fixtures.js';
import type { TestApp } from '../support/test-app.js';

// What the e2e project's setup gives every test process (this project has none); child instances inherit it.
process.env.LOG_LEVEL ??= 'silent';
process.env.JWT_SECRET ??= 'galera-test-signing-key-0123456789abcdef';
process.env.ADMIN_EMAIL ??= 'admin@example.com';
process.env.ADMIN_PASSWORD ??= 'admin-password-123';
process.env.SUPPRESSION_KEY ??= 'galera-test-suppression-key-0123456789';
process.env.DESTINATION_SECRET_KEY ??= 'galera-test-destination-key-0123456789';

const DB = 'runs';
const log = (line: string) => process.stdout.write(`[galera runs] ${line}\n`);
/** Short leases, so that a killed instance's run and batches are taken over soon. */
const QUICK = {
  runs: { runner: true, leaseMs: 2_000, pollMs: 50 },
  destinations: { worker: true, leaseMs: 2_000, pollMs: 50, retrySchedule: [1, 1, 1] },
};

/**
 * Campaign runs on a throw-away Galera cluster (docs/campaign-runs.md), one instance of the service
 * per node, each with the whole cluster in its DATABASE_URL (its own node first): a run delivered
 * by two instances that both run the run queue and the destination lanes, one run per schedule tick
 * across both, frequency caps exact under two campaigns launched through both at once, pause,
 * resume and cancel through one node while the other delivers, and a run
 * whose instance is killed (kill -9) mid-delivery, taken over by an instance on another node. Each member is
 * delivered once (one recipient row, delivered), the receiver sees every member's record under its
 * message id, repeats only with the same id, and the counts add up.
 */
describe('campaign runs on a Galera cluster', () => {
  let cluster: GaleraCluster;
  const apps: TestApp[] = [];
  let receiver: Receiver;
  let w: Workspace;
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    cluster = await GaleraCluster.start({ log });
    await cluster.query(1, `CREATE DATABASE ${DB} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    receiver = await new Receiver().start();
    const dataDir = mkdtempSync(join(tmpdir(), 'galera-runs-'));
    const storageDir = mkdtempSync(join(tmpdir(), 'galera-runs-storage-'));
    for (const instance of [0, 1]) {
      const hosts = cluster.nodes.map((n) => `127.0.0.1:${n.port}`);
      const order = [...hosts.slice(instance), ...hosts.slice(0, instance)];
      const loaded = loadConfig({
        ...process.env,
        DATABASE_URL: `mysql://root@${order.join(',')}/${DB}`,
        DATA_DIR: dataDir,
        STORAGE_DIR: storageDir,
      });
      const config: AppConfig = {
        ...loaded,
        rateLimitPerMinute: 1_000_000,
        authAttemptsPerMinute: 1_000_000,
        rateLimitKeyPrefix: `galera-runs-${instance}:`,
        webhooks: { ...loaded.webhooks, allowedHosts: '127.0.0.1' },
        // Leases long enough that a busy cluster never loses one: without a crash, nothing is sent twice.
        runs: { ...loaded.runs, runner: true, leaseMs: 10_000, pollMs: 50 },
        destinations: { ...loaded.destinations, worker: true, leaseMs: 10_000, pollMs: 50, retrySchedule: [1, 1, 1] },
      };
      // One after the other: the second finds the schema migrated.
      const app = await createApp(config);
      apps.push({ app, config, http: request(app.getHttpServer()), close: () => app.close() });
    }
    w = await newWorkspace(apps[0], await login(apps[0]));
  }, 600_000);

  afterEach(killChildInstances);
  afterAll(async () => {
    await Promise.all(apps.map((t) => t.close().catch(() => undefined)));
    await receiver?.close();
    await cluster?.stop();
    log(`figures: ${JSON.stringify(figures)}`);
  }, 120_000);

  /** A node's own view, straight from the node (reads wait for what the cluster committed). */
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

  /** The workspace's manager through instance `i`. */
  const through = (i: number): Client => {
    const t = apps[i];
    const auth = <R extends { set(name: string, value: string): R }>(req: R) =>
      req.set('Authorization', w.manager.token).set('Accept', 'application/json');
    return {
      token: w.manager.token,
      get: async (path, query = {}) => auth(t.http.get(path)).query(query),
      post: async (path, body) => auth(t.http.post(path)).send(body ?? {}),
      put: async (path, body) => auth(t.http.put(path)).send(body ?? {}),
      delete: async (path) => auth(t.http.delete(path)),
    };
  };

  /** A campaign of `members` customers (10 % control) with a webhook to `path`, in batches of 10. */
  async function campaignTo(path: string, members: number, concurrency: number) {
    const api = through(0);
    const domain = `${unique()}.example`;
    await newCustomers(api, members, domain);
    const { campaign } = await runnableCampaign(api, domain, VARIANTS_AND_CONTROL);
    const { destination } = await linkWebhook(api, campaign.id as number, receiver.url(path), {
      batch_size: 10,
      concurrency,
      rate_per_second: 1_000,
      timeout_ms: 60_000,
    });
    return { campaign, destination };
  }

  /**
   * The run completed with its counts adding up, one recipient row per receiving member, each
   * delivered; the receiver got each of those records under its message id, and nothing else.
   * Answers the message ids received more than once.
   */
  async function expectDeliveredOnce(runId: number, members: number, path: string, secret: string) {
    const run = await runWhen(through(1), runId, ['completed', 'failed', 'cancelled'], 120_000);
    expect(run).toMatchObject({ status: 'completed', error: null });
    const counts = run.counts as Any;
    const control = counts.groups.find((g: Any) => g.type === 'control').members as number;
    const receiving = members - control;
    expect(counts).toMatchObject({ audience: members, eligible: members, control });
    expect(counts.groups.reduce((sum: number, g: Any) => sum + (g.members as number), 0)).toBe(members);
    expect(counts.destinations).toEqual([
      expect.objectContaining({ add: receiving, delivered: receiving, skipped: 0, failed: 0, rejected: 0, pending: 0 }),
    ]);
    const recipients = await recipientsOf(through(0), runId);
    expect(recipients).toHaveLength(receiving);
    expect(new Set(recipients.map((r) => r.customer_id)).size).toBe(receiving);
    expect(recipients.every((r) => r.status === 'delivered')).toBe(true);
    // Read once the run has ended: every request the receiver got.
    const records = recordsOf(receiver.on(path), secret);
    const byMessage = new Map<string, Any[]>();
    for (const record of records)
      byMessage.set(record.message_id, [...(byMessage.get(record.message_id) ?? []), record]);
    const customerOf = new Map(recipients.map((r) => [r.message_id as string, r.customer_id]));
    expect(new Set(byMessage.keys())).toEqual(new Set(customerOf.keys()));
    for (const [message, copies] of byMessage) {
      expect(copies.every((copy) => copy.customer_id === customerOf.get(message))).toBe(true);
      expect(copies.every((copy) => JSON.stringify(copy) === JSON.stringify(copies[0]))).toBe(true);
    }
    return new Set([...byMessage].filter(([, copies]) => copies.length > 1).map(([message]) => message));
  }

  it('delivers a run through two instances on two nodes, both running the run queue: each member once', async () => {
    const MEMBERS = 400;
    const path = `/both-${unique()}`;
    const { campaign, destination } = await campaignTo(path, MEMBERS, 4);
    const run = await launch(through(1), campaign.id as number);
    const repeated = await expectDeliveredOnce(run.id as number, MEMBERS, path, destination.signing_secret as string);
    // Neither instance died: no batch was sent twice.
    expect([...repeated]).toEqual([]);
    figures.twoInstances = { members: MEMBERS, requests: receiver.on(path).length };
  }, 180_000);

  it('starts exactly one run per tick across the two instances, and records a skipped run while one is going on', async () => {
    const api = through(0);
    const domain = `${unique()}.example`;
    await newCustomers(api, 4, domain);
    const { campaign } = await runnableCampaign(api, domain, VARIANTS_AND_CONTROL);
    const path = `/ticks-${unique()}`;
    receiver.hold(path);
    await linkWebhook(api, campaign.id as number, receiver.url(path));
    // Every second (six fields: seconds first); both instances run the schedules' queue.
    await dataOf(api.put(`/api/campaigns/${campaign.id}/schedule`, { cron: '* * * * * *' }));
    await sleep(4_500);
    await dataOf(through(1).delete(`/api/campaigns/${campaign.id}/schedule`));
    receiver.release(path);
    const runs = (await dataOf(through(1).get(`/api/campaigns/${campaign.id}/runs`, { limit: 100 }))) as Row[];
    expect(new Set(runs.map((run) => run.scheduled_for)).size).toBe(runs.length);
    // The first tick's run holds its delivery on the receiver: every later tick is skipped.
    const started = runs.filter((run) => run.status !== 'skipped');
    expect(started).toHaveLength(1);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.every((run) => run.trigger === 'schedule')).toBe(true);
    expect((await runWhen(api, started[0].id as number, ['completed', 'failed', 'cancelled'], 60_000)).status).toBe(
      'completed',
    );
    figures.ticks = { runs: runs.length };
  }, 120_000);

  it('caps exactly when two campaigns are launched at once through instances on two nodes', async () => {
    const api = through(0);
    const domain = `${unique()}.example`;
    const N = 30;
    await newCustomers(api, N, domain);
    const all = [{ name: 'All', type: 'treatment', allocation_percentage: 100 }];
    const one = await runnableCampaign(api, domain, all);
    const two = await runnableCampaign(api, domain, all);
    const path = `/capped-${unique()}`;
    const hooks = [
      await linkWebhook(api, one.campaign.id as number, receiver.url(path)),
      await linkWebhook(api, two.campaign.id as number, receiver.url(path)),
    ];
    await dataOf(api.put('/api/messaging-limits', { rules: [{ channel: 'webhook', max: 1, per_days: 7 }] }));
    try {
      const [a, b] = await Promise.all([
        launch(through(0), one.campaign.id as number),
        launch(through(1), two.campaign.id as number),
      ]);
      const ended = ['completed', 'failed', 'cancelled'];
      const [doneA, doneB] = [
        await runWhen(api, a.id as number, ended, 60_000),
        await runWhen(api, b.id as number, ended, 60_000),
      ];
      const counts = [doneA.counts as Any, doneB.counts as Any];
      expect(counts[0].excluded.capped + counts[1].excluded.capped).toBe(N);
      expect(counts[0].destinations[0].delivered + counts[1].destinations[0].delivered).toBe(N);
      const records = hooks.flatMap(({ destination }) =>
        recordsOf(
          receiver.on(path).filter((r) => JSON.parse(r.body).destination_id === destination.id),
          destination.signing_secret as string,
        ),
      );
      // Each customer received one delivery in all.
      expect(records).toHaveLength(N);
      expect(new Set(records.map((r) => r.customer_id)).size).toBe(N);
    } finally {
      await dataOf(api.put('/api/messaging-limits', { rules: [] }));
    }
  }, 120_000);

  it('pauses through one node and resumes through the other: the batch in flight ends, the rest waits held, then each member once', async () => {
    const api = through(0);
    const domain = `${unique()}.example`;
    await newCustomers(api, 40, domain);
    const { campaign } = await runnableCampaign(api, domain, [
      { name: 'All', type: 'treatment', allocation_percentage: 100 },
    ]);
    const path = `/pause-${unique()}`;
    receiver.hold(path);
    const { destination } = await linkWebhook(api, campaign.id as number, receiver.url(path), {
      batch_size: 5,
      concurrency: 1,
    });
    const run = await launch(api, campaign.id as number);
    await receiver.until(path, 1, 60_000);
    expect((await dataOf(through(1).post(`/api/campaign-runs/${run.id}/pause`, {}))).status).toBe('paused');
    receiver.release(path);
    // The batch in flight is recorded; every other batch of the run waits, held, and none is leased.
    await eventually(async () => {
      const delivered = await recipientsOf(api, run.id as number, { status: 'delivered' });
      return delivered.length === 5 ? true : undefined;
    }, 60_000);
    const waiting = await onNode<{ run_at: number | string; lease_owner: string | null }>(
      2,
      'SELECT run_at, lease_owner FROM jobs WHERE queue = ? AND subject_id = ?',
      [DESTINATION_QUEUE, run.id],
    );
    expect(waiting).toHaveLength(7);
    expect(waiting.every((job) => Number(job.run_at) === HELD && job.lease_owner === null)).toBe(true);
    expect(receiver.on(path)).toHaveLength(1);
    expect((await dataOf(through(1).get(`/api/campaign-runs/${run.id}`))).status).toBe('paused');
    expect((await through(1).post(`/api/campaign-runs/${run.id}/resume`, {})).status).toBe(200);
    const done = await runWhen(api, run.id as number, ['completed', 'failed', 'cancelled'], 60_000);
    expect(done.status).toBe('completed');
    const records = recordsOf(receiver.on(path), destination.signing_secret as string);
    expect(records).toHaveLength(40);
    expect(new Set(records.map((r) => r.customer_id)).size).toBe(40);
  }, 120_000);

  it('cancels through one node while the other delivers: the batch in flight is recorded, the rest skipped', async () => {
    const api = through(0);
    const domain = `${unique()}.example`;
    await newCustomers(api, 30, domain);
    const { campaign } = await runnableCampaign(api, domain, [
      { name: 'All', type: 'treatment', allocation_percentage: 100 },
    ]);
    const path = `/cancel-${unique()}`;
    receiver.hold(path);
    await linkWebhook(api, campaign.id as number, receiver.url(path), { batch_size: 10, concurrency: 1 });
    const run = await launch(api, campaign.id as number);
    await receiver.until(path, 1, 60_000);
    expect((await dataOf(through(1).post(`/api/campaign-runs/${run.id}/cancel`, {}))).status).toBe('cancelled');
    receiver.release(path);
    const ended = await eventually(async () => {
      const current = await dataOf(api.get(`/api/campaign-runs/${run.id}`));
      return current.finished_at ? current : undefined;
    }, 60_000);
    expect(ended.status).toBe('cancelled');
    expect((ended.counts as Any).destinations[0]).toMatchObject({ delivered: 10, skipped: 20, pending: 0 });
    const skipped = await recipientsOf(through(1), run.id as number, { status: 'skipped' });
    expect(skipped.every((r) => r.reason === 'cancelled')).toBe(true);
    expect(receiver.on(path)).toHaveLength(1);
  }, 120_000);

  it('completes a run whose instance was killed (kill -9) mid-delivery on an instance of another node', async () => {
    const MEMBERS = 300;
    const [ANSWERED, CONCURRENCY] = [6, 2];
    // The in-process instances stand by: the run starts on a child instance on node 2.
    for (const t of apps) await t.app.get(JobRunner).stop();
    const path = `/killed-${unique()}`;
    const ok = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200).end('ok');
    const held: ServerResponse[] = [];
    const hold = (_req: IncomingMessage, res: ServerResponse) => void held.push(res);
    receiver.answer(path, ...Array<typeof ok>(ANSWERED).fill(ok), ...Array<typeof hold>(CONCURRENCY).fill(hold));
    const { campaign, destination } = await campaignTo(path, MEMBERS, CONCURRENCY);
    const first = await childInstance(apps[1], { runner: false }, {}, QUICK);
    const run = await launch(through(0), campaign.id as number);
    await receiver.until(path, ANSWERED + CONCURRENCY, 60_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const killedAt = Date.now();
    expect((await through(0).get(`/api/campaign-runs/${run.id}`)).body.data.status).toBe('running');
    // An instance on node 1 takes the run and its batches over once their leases have run out.
    await childInstance(apps[0], { runner: false }, {}, QUICK);
    const repeated = await expectDeliveredOnce(run.id as number, MEMBERS, path, destination.signing_secret as string);
    for (const res of held) res.destroy();
    // Received twice: exactly the records of the two requests left unanswered at the kill.
    const inFlight = new Set(
      recordsOf(receiver.on(path).slice(ANSWERED, ANSWERED + CONCURRENCY), destination.signing_secret as string).map(
        (r) => r.message_id as string,
      ),
    );
    expect(inFlight.size).toBe(CONCURRENCY * 10);
    expect(repeated).toEqual(inFlight);
    figures.takeover = { members: MEMBERS, completedAfterKillMs: Date.now() - killedAt };
  }, 180_000);
});
