import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError } from '../client/index.js';
import { systemAuth } from '../src/common/auth/auth-context.js';
import { JobRunner } from '../src/common/jobs/job-runner.js';
import { parseAllowedTargets } from '../src/common/outbound/address-policy.js';
import { OutboundHttp } from '../src/common/outbound/outbound-http.js';
import { Database } from '../src/common/persistence/database.js';
import { Tables } from '../src/common/persistence/tables.js';
import { DELIVERY_QUEUE } from '../src/modules/webhooks/delivery/delivery-queue.js';
import { FANOUT_QUEUE, WebhookFanout } from '../src/modules/webhooks/delivery/webhook-fanout.js';
import type { WebhooksConfig } from '../src/common/config/app-config.js';
import { childInstance, killChildInstances } from './imports-support/imports.js';
import { login } from './support/auth.js';
import { client, created, dataOf, newWorkspace, startApp, type Client, type Row } from './support/campaign-fixtures.js';
import { newUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

type Reply = (req: IncomingMessage, res: ServerResponse) => void;

/** A local HTTP server that records every request and answers as told (200 by default). */
class Receiver {
  readonly received: Received[] = [];
  private readonly replies = new Map<string, Reply[]>();
  private server!: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, body, at: Date.now() });
        const queue = this.replies.get(path);
        const reply = queue?.length ? queue.shift()! : undefined;
        if (reply) reply(req, res);
        else res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The next answers to requests on `path`, in order. */
  answer(path: string, ...replies: Reply[]): void {
    this.replies.set(path, [...(this.replies.get(path) ?? []), ...replies]);
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async until(path: string, count: number, timeoutMs = 20_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.on(path).length < count) {
      if (Date.now() > deadline) throw new Error(`${path}: ${this.on(path).length} of ${count} requests arrived`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.on(path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const status =
  (code: number, headers: Record<string, string> = {}): Reply =>
  (_req, res) =>
    res.writeHead(code, headers).end(`answer ${code}`);

/** The Standard Webhooks signature computed here, independently of the service. */
const sign = (secret: string, id: string, timestamp: string, body: string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64')}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The webhook settings of a test app: the local receiver allowed, quick polls, a short retry schedule. */
const webhooks = (overrides: Partial<WebhooksConfig> = {}): WebhooksConfig => ({
  allowedHosts: '127.0.0.1',
  retrySchedule: [1, 1, 1],
  worker: true,
  leaseMs: 60_000,
  pollMs: 50,
  perEndpoint: 10,
  timeoutMs: 15_000,
  failingDisableMs: 5 * 24 * 3600 * 1000,
  ...overrides,
});

describe('createWebhook, listWebhooks, getWebhook, updateWebhook, deleteWebhook, rotateWebhookSecret, testWebhook, replayWebhook, listWebhookDeliveries, getWebhookDelivery, retryWebhookDelivery: webhooks', () => {
  let t: TestApp;
  let receiver: Receiver;
  let root: string;
  let admin: Client;
  let manager: Client;
  let tenantId: number;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await createTestApp({
      config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000, webhooks: webhooks() },
    });
    root = await login(t);
    const workspace = await newWorkspace(t, root);
    tenantId = workspace.tenantId;
    manager = workspace.manager;
    admin = client(t, (await newUser(t, root, ['admin'], tenantId)).token);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const hook = async (path: string, events: string[] = ['customer.created']) =>
    created(admin.post('/api/webhooks', { url: receiver.url(path), events, description: path }));

  it('creates a webhook whose answer, and only it, shows a whsec_ secret; reads, lists, updates and deletes it', async () => {
    const webhook = await hook('/crud');
    expect(webhook).toEqual({
      id: expect.any(Number),
      tenant_id: tenantId,
      url: receiver.url('/crud'),
      events: ['customer.created'],
      description: '/crud',
      is_active: true,
      disabled_reason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(Buffer.from((webhook.secret as string).slice(6), 'base64')).toHaveLength(32);
    const read = await dataOf(admin.get(`/api/webhooks/${webhook.id}`));
    expect(read).not.toHaveProperty('secret');
    expect((await dataOf(admin.get('/api/webhooks'))).map((w: Row) => w.id)).toContain(webhook.id);
    const updated = await dataOf(
      admin.put(`/api/webhooks/${webhook.id}`, { url: receiver.url('/crud2'), events: ['*'] }),
    );
    expect(updated).toMatchObject({ url: receiver.url('/crud2'), events: ['*'], description: '/crud' });
    expect(updated).not.toHaveProperty('secret');
    await dataOf(admin.delete(`/api/webhooks/${webhook.id}`));
    expect((await admin.get(`/api/webhooks/${webhook.id}`)).status).toBe(404);
    const log = await dataOf(admin.get('/api/admin/activity-log', { subject_type: 'Webhook', subject_id: webhook.id }));
    expect(JSON.stringify(log)).not.toContain('whsec_');
  });

  it('answers 422 on url, events and description for what it cannot take', async () => {
    for (const [body, field] of [
      [{ url: 'ftp://example.com/x', events: ['*'] }, 'url'],
      [{ url: 'not a url', events: ['*'] }, 'url'],
      [{ url: `https://example.com/${'x'.repeat(2048)}`, events: ['*'] }, 'url'],
      [{ url: receiver.url('/v'), events: [] }, 'events'],
      [{ url: receiver.url('/v'), events: ['customer.exploded'] }, 'events'],
      [{ url: receiver.url('/v'), events: ['*', 'customer.created'] }, 'events'],
      [{ url: receiver.url('/v') }, 'events'],
      [{ url: receiver.url('/v'), events: ['*'], description: 42 }, 'description'],
    ] as [object, string][]) {
      const res = await admin.post('/api/webhooks', body);
      expect({ body, status: res.status, errors: Object.keys(res.body.errors ?? {}) }).toEqual({
        body,
        status: 422,
        errors: [field],
      });
    }
  });

  it('delivers each subscribed event once, signed with the Standard Webhooks headers', async () => {
    const webhook = await hook('/signed', ['customer.created', 'customer.deleted']);
    const customer = await created(manager.post('/api/customers', { first_name: 'Signed' }));
    await dataOf(manager.put(`/api/customers/${customer.id}`, { first_name: 'Not subscribed' }));
    await dataOf(manager.delete(`/api/customers/${customer.id}`));
    const [createdAt, deleted] = await receiver.until('/signed', 2);
    await sleep(300);
    expect(receiver.on('/signed')).toHaveLength(2);
    for (const request of [createdAt, deleted]) {
      const id = request.headers['webhook-id'] as string;
      const timestamp = request.headers['webhook-timestamp'] as string;
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(30);
      expect(request.headers['webhook-signature']).toBe(sign(webhook.secret as string, id, timestamp, request.body));
      expect(request.headers['content-type']).toBe('application/json');
      const event = JSON.parse(request.body);
      expect(event.id).toBe(id);
      expect(verifyWebhook(webhook.secret as string, request.headers, request.body)).toEqual(event);
      expect(() => verifyWebhook(webhook.secret as string, request.headers, request.body.replace('"', ' "'))).toThrow(
        WebhookVerificationError,
      );
      expect(await dataOf(admin.get(`/api/events/${id}`))).toEqual(event);
    }
    expect(JSON.parse(createdAt.body)).toMatchObject({
      type: 'customer.created',
      resource_id: customer.id,
      data: { first_name: 'Signed' },
    });
    expect(JSON.parse(deleted.body)).toMatchObject({ type: 'customer.deleted', data: { id: customer.id } });
    const deliveries = await dataOf(admin.get(`/api/webhooks/${webhook.id}/deliveries`));
    expect(deliveries.map((d: Row) => [d.event_type, d.status, d.attempts])).toEqual([
      ['customer.deleted', 'delivered', 1],
      ['customer.created', 'delivered', 1],
    ]);
  });

  it('retries a failed delivery on the configured schedule, honours Retry-After, and logs every attempt', async () => {
    const webhook = await hook('/retry');
    receiver.answer('/retry', status(500), status(429, { 'retry-after': '2' }), status(503), status(204));
    await created(manager.post('/api/customers', { first_name: 'Retry' }));
    const attempts = await receiver.until('/retry', 4, 30_000);
    const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i].at);
    expect(gaps[0]).toBeGreaterThanOrEqual(900); // 1 s (schedule)
    expect(gaps[1]).toBeGreaterThanOrEqual(1900); // 2 s (Retry-After)
    expect(gaps[2]).toBeGreaterThanOrEqual(900);
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    const [delivery] = await dataOf(admin.get(`/api/webhooks/${webhook.id}/deliveries`));
    await sleep(200);
    const detail = await dataOf(admin.get(`/api/webhooks/${webhook.id}/deliveries/${delivery.id}`));
    expect(detail).toMatchObject({ status: 'delivered', attempts: 4, last_status_code: 204, last_error: null });
    const log = detail.attempt_log as Row[];
    expect(log.map((a) => [a.status_code, a.response_body])).toEqual([
      [500, 'answer 500'],
      [429, 'answer 429'],
      [503, 'answer 503'],
      [204, ''],
    ]);
    expect(log.every((a) => typeof a.duration_ms === 'number')).toBe(true);
    // Filters of the log.
    expect(await dataOf(admin.get(`/api/webhooks/${webhook.id}/deliveries`, { status: 'failed' }))).toEqual([]);
    // Failing and recovering is the service's bookkeeping, not a change of the endpoint.
    expect((await dataOf(admin.get(`/api/webhooks/${webhook.id}`))).updated_at).toBe(webhook.updated_at);
    const changes = await dataOf(admin.get('/api/events', { resource: 'webhook', resource_id: webhook.id as number }));
    expect(changes.map((e: Row) => e.type)).toEqual(['webhook.created']);
  });

  it('fails a delivery once the schedule is spent, and retries it on request (202)', async () => {
    const webhook = await hook('/spent');
    receiver.answer('/spent', status(500), status(500), status(500), status(500));
    await created(manager.post('/api/customers', { first_name: 'Spent' }));
    await receiver.until('/spent', 4, 30_000);
    await sleep(300);
    const [delivery] = await dataOf(admin.get(`/api/webhooks/${webhook.id}/deliveries`, { status: 'failed' }));
    expect(delivery).toMatchObject({ status: 'failed', attempts: 4, last_status_code: 500, next_attempt_at: null });
    const res = await admin.post(`/api/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`);
    expect(res.status).toBe(202);
    await receiver.until('/spent', 5);
    await sleep(300);
    expect(await dataOf(admin.get(`/api/webhooks/${webhook.id}/deliveries/${delivery.id}`))).toMatchObject({
      status: 'delivered',
      attempts: 5,
    });
  });

  it('never follows a redirect: a 3xx is a failed attempt', async () => {
    await hook('/redirect');
    receiver.answer('/redirect', status(302, { location: receiver.url('/elsewhere') }));
    await created(manager.post('/api/customers', { first_name: 'Redirect' }));
    await receiver.until('/redirect', 2, 10_000);
    expect(receiver.on('/elsewhere')).toEqual([]);
  });

  it('disables an endpoint that answers 410 at once, and announces webhook.disabled', async () => {
    const watcher = await hook('/watcher', ['webhook.disabled']);
    const webhook = await hook('/gone');
    receiver.answer('/gone', status(410));
    await created(manager.post('/api/customers', { first_name: 'Gone' }));
    await receiver.until('/gone', 1);
    const [announced] = await receiver.until('/watcher', 1);
    expect(JSON.parse(announced.body)).toMatchObject({
      type: 'webhook.disabled',
      resource: 'webhook',
      resource_id: webhook.id,
      data: { id: webhook.id, is_active: false, disabled_reason: 'gone' },
      causer: null,
    });
    expect(await dataOf(admin.get(`/api/webhooks/${webhook.id}`))).toMatchObject({
      is_active: false,
      disabled_reason: 'gone',
    });
    await created(manager.post('/api/customers', { first_name: 'After gone' }));
    await sleep(500);
    expect(receiver.on('/gone')).toHaveLength(1);
    // Enabled again, it starts from new events only.
    await dataOf(
      admin.put(`/api/webhooks/${webhook.id}`, {
        url: receiver.url('/gone'),
        events: ['customer.created'],
        is_active: true,
      }),
    );
    expect(await dataOf(admin.get(`/api/webhooks/${webhook.id}`))).toMatchObject({
      is_active: true,
      disabled_reason: null,
    });
    await created(manager.post('/api/customers', { first_name: 'New after enable' }));
    const requests = await receiver.until('/gone', 2);
    expect(JSON.parse(requests[1].body).data.first_name).toBe('New after enable');
    await sleep(300);
    expect(receiver.on('/gone')).toHaveLength(2);
    expect(watcher.id).toBeDefined();
  });

  it('signs with both secrets for 24 hours after a rotation', async () => {
    const webhook = await hook('/rotate');
    const rotated = await dataOf(admin.post(`/api/webhooks/${webhook.id}/rotate-secret`));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(webhook.secret);
    await created(manager.post('/api/customers', { first_name: 'Rotated' }));
    const [request] = await receiver.until('/rotate', 1);
    const id = request.headers['webhook-id'] as string;
    const timestamp = request.headers['webhook-timestamp'] as string;
    expect(request.headers['webhook-signature']).toBe(
      `${sign(rotated.secret as string, id, timestamp, request.body)} ${sign(webhook.secret as string, id, timestamp, request.body)}`,
    );
    expect(verifyWebhook(webhook.secret as string, request.headers, request.body).id).toBe(id);
    expect(verifyWebhook(rotated.secret as string, request.headers, request.body).id).toBe(id);
  });

  it('sends webhook.test to that endpoint only, whatever it subscribes to', async () => {
    const one = await hook('/test-one', ['customer.deleted']);
    await hook('/test-two', ['*']);
    const res = await admin.post(`/api/webhooks/${one.id}/test`);
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ webhook_id: one.id, event_type: 'webhook.test' });
    const [request] = await receiver.until('/test-one', 1);
    expect(JSON.parse(request.body)).toMatchObject({ type: 'webhook.test', resource: 'webhook', resource_id: one.id });
    await sleep(300);
    expect(receiver.on('/test-two').filter((r) => JSON.parse(r.body).type === 'webhook.test')).toEqual([]);
  });

  it('replays every matching event of a span (202 with the number scheduled)', async () => {
    const since = new Date().toISOString();
    const first = await created(manager.post('/api/customers', { first_name: 'Replay 1' }));
    const second = await created(manager.post('/api/customers', { first_name: 'Replay 2' }));
    await dataOf(manager.put(`/api/customers/${second.id}`, { first_name: 'Replay 2b' }));
    const webhook = await hook('/replay', ['customer.created']);
    const res = await admin.post(`/api/webhooks/${webhook.id}/replay`, { since });
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ scheduled: 2 });
    const requests = await receiver.until('/replay', 2);
    expect(requests.map((r) => JSON.parse(r.body).resource_id).sort()).toEqual([first.id, second.id].sort());
    const typed = await admin.post(`/api/webhooks/${webhook.id}/replay`, { since, types: ['customer.updated'] });
    expect(typed.body.data).toEqual({ scheduled: 1 });
    await receiver.until('/replay', 3);
    for (const [body, field] of [
      [{}, 'since'],
      [{ since, until: '2000-01-01' }, 'until'],
      [{ since, types: ['nope.created'] }, 'types'],
    ] as [object, string][]) {
      const bad = await admin.post(`/api/webhooks/${webhook.id}/replay`, body);
      expect({ body, status: bad.status, errors: Object.keys(bad.body.errors ?? {}) }).toEqual({
        body,
        status: 422,
        errors: [field],
      });
    }
  });

  it('gives a new endpoint only events written after it was created, however late they are numbered', async () => {
    const before = await created(manager.post('/api/customers', { first_name: 'Before the endpoint' }));
    const webhook = await hook('/late-numbered', ['customer.created']);
    const [event] = await t.app
      .get(Database)
      .query<{ id: number | string; sequence: number | string; occurred_at: number | string }>(
        "SELECT id, sequence, occurred_at FROM events WHERE type = 'customer.created' AND resource_id = ?",
        [before.id],
      );
    // The fan-out, as it runs when that write's event reaches it only after the endpoint exists.
    const late = {
      id: Number(event.id),
      sequence: Number(event.sequence),
      type: 'customer.created',
      resourceId: before.id as number,
    };
    const deliveries = () =>
      t.app.get(Database).query<{ id: number }>('SELECT id FROM webhook_deliveries WHERE webhook_id = ?', [webhook.id]);
    const fanOut = (occurredAt: number) =>
      t.app
        .get(Tables)
        .writeWithBookkeeping(systemAuth(tenantId, 'late'), (tx, sql) =>
          t.app.get(WebhookFanout).take(tx, sql, [{ ...late, occurredAt }]),
        );
    await fanOut(Number(event.occurred_at));
    expect(await deliveries()).toHaveLength(0);
    await fanOut(Date.now());
    expect(await deliveries()).toHaveLength(1);
  });

  it("keeps tenants apart: another tenant's webhooks and deliveries answer 404, and its events never reach them", async () => {
    const other = await newWorkspace(t, root);
    const otherAdmin = client(t, (await newUser(t, root, ['admin'], other.tenantId)).token);
    const theirs = await created(otherAdmin.post('/api/webhooks', { url: receiver.url('/theirs'), events: ['*'] }));
    const mine = await hook('/mine', ['*']);
    await created(manager.post('/api/customers', { first_name: 'Mine only' }));
    await receiver.until('/mine', 1);
    await sleep(300);
    // Their webhook gets their tenant's events (its own creation, their users), never ours.
    const theirEvents = receiver.on('/theirs').map((r) => JSON.parse(r.body) as { id: string; data: Row });
    expect(theirEvents.length).toBeGreaterThan(0);
    for (const event of theirEvents) expect((await admin.get(`/api/events/${event.id}`)).status).toBe(404);
    expect(theirEvents.some((e) => e.data?.first_name === 'Mine only')).toBe(false);
    const [delivery] = await dataOf(admin.get(`/api/webhooks/${mine.id}/deliveries`));
    for (const [method, path] of [
      ['get', `/api/webhooks/${theirs.id}`],
      ['put', `/api/webhooks/${theirs.id}`],
      ['delete', `/api/webhooks/${theirs.id}`],
      ['post', `/api/webhooks/${theirs.id}/rotate-secret`],
      ['post', `/api/webhooks/${theirs.id}/test`],
      ['get', `/api/webhooks/${theirs.id}/deliveries`],
      ['get', `/api/webhooks/${mine.id}/deliveries/${delivery.id}`],
    ] as ['get' | 'put' | 'delete' | 'post', string][]) {
      const as = method === 'get' && path.includes(String(mine.id)) ? otherAdmin : admin;
      const res =
        method === 'put'
          ? await as.put(path, { url: receiver.url('/x'), events: ['*'] })
          : method === 'get'
            ? await as.get(path)
            : await as[method](path);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
    }
    expect((await dataOf(admin.get('/api/webhooks'))).map((w: Row) => w.id)).not.toContain(theirs.id);
  });

  it('needs webhooks.view and webhooks.manage: a manager is refused', async () => {
    expect((await manager.get('/api/webhooks')).status).toBe(403);
    expect((await manager.post('/api/webhooks', { url: receiver.url('/m'), events: ['*'] })).status).toBe(403);
  });

  it('lists webhook.created, updated and deleted in the change feed and its types', async () => {
    const types = (await dataOf(admin.get('/api/events/types'))).map((x: Row) => x.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'webhook.created',
        'webhook.updated',
        'webhook.deleted',
        'webhook.disabled',
        'webhook.test',
      ]),
    );
  });
});

describe('webhooks are safe to point anywhere (SSRF)', () => {
  let t: TestApp;
  let admin: Client;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startApp();
    admin = client(t, await login(t));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('refuses at write time a URL whose host is loopback, private, link-local, multicast, unspecified or IPv4-mapped', async () => {
    for (const url of [
      receiver.url('/local'),
      'http://localhost/hook',
      'http://10.1.2.3/hook',
      'http://172.16.0.1/hook',
      'http://192.168.1.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/hook',
      'http://0.0.0.0/hook',
      'http://224.0.0.1/hook',
      'http://[::1]/hook',
      'http://[fe80::1]/hook',
      'http://[fc00::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[::ffff:a01:203]/hook',
      'http://[64:ff9b::7f00:1]/hook',
      'http://user:secret@example.com/hook',
    ]) {
      const res = await admin.post('/api/webhooks', { url, events: ['*'] });
      expect({ url, status: res.status, errors: Object.keys(res.body.errors ?? {}) }).toEqual({
        url,
        status: 422,
        errors: ['url'],
      });
    }
  });

  it('checks again at every delivery the address actually connected to, allowing only what the operator named', async () => {
    const closed = new OutboundHttp(parseAllowedTargets(''), 5_000);
    const byAddress = await closed.send(receiver.url('/direct'), {}, '{}');
    const byName = await closed.send(`http://localhost:${receiver.port}/named`, {}, '{}');
    expect(byAddress.error).toMatch(/refused: 127\.0\.0\.1 is a loopback address/);
    expect(byName.error).toMatch(/refused/);
    expect(receiver.received).toEqual([]);
    for (const allowed of ['127.0.0.1', '127.0.0.0/8', 'localhost']) {
      const open = new OutboundHttp(parseAllowedTargets(allowed), 5_000);
      const url = allowed === 'localhost' ? `http://localhost:${receiver.port}/allowed` : receiver.url('/allowed');
      expect({ allowed, status: (await open.send(url, {}, '{}')).statusCode }).toEqual({ allowed, status: 200 });
      open.close();
    }
    closed.close();
  });
});

describe('webhook deliveries survive an instance killed mid-delivery (at least once)', () => {
  let a: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    a = await createTestApp({
      config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000, webhooks: webhooks({ worker: false }) },
    });
  });
  afterEach(killChildInstances);
  afterAll(async () => {
    await a.close();
    await receiver.close();
  });

  it('delivers every event after the instance that held them is killed, once its leases run out', async () => {
    const root = await login(a);
    const admin = client(a, root);
    await created(admin.post('/api/webhooks', { url: receiver.url('/kill'), events: ['customer.created'] }));
    // The receiver holds the first requests open: they are in flight when their instance dies.
    const held: ServerResponse[] = [];
    receiver.answer(
      '/kill',
      ...Array.from({ length: 5 }, () => (_req: IncomingMessage, res: ServerResponse) => void held.push(res)),
    );
    const child = await childInstance(a, { runner: false }, { leaseMs: 2_000, pollMs: 50, worker: true });
    const ids: number[] = [];
    for (let i = 0; i < 12; i++)
      ids.push((await created(admin.post('/api/customers', { first_name: `Kill ${i}` }))).id as number);
    await receiver.until('/kill', 5);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    for (const res of held) res.destroy();
    // Another instance (this one) takes the deliveries over once the dead one's leases have run out.
    const runner = a.app.get(JobRunner);
    const deadline = Date.now() + 30_000;
    const delivered = () =>
      a.app
        .get(Database)
        .query<{ n: number | string }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'delivered'");
    while (Number((await delivered())[0].n) < ids.length) {
      if (Date.now() > deadline) throw new Error('not every delivery was made');
      await runner.work(FANOUT_QUEUE);
      await runner.work(DELIVERY_QUEUE);
      await sleep(100);
    }
    const received = new Set(receiver.on('/kill').map((r) => JSON.parse(r.body).resource_id as number));
    expect([...ids].filter((id) => !received.has(id))).toEqual([]);
  });
});
