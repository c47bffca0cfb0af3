import { DataSource } from 'typeorm';
import { TrackingService } from '../src/modules/tracking/tracking.service.js';
import { login } from './support/auth.js';
import {
  client,
  created,
  dataOf,
  ISO,
  MISSING_IDS,
  newWorkspace,
  type Client,
  type Row,
  type Workspace,
} from './support/campaign-fixtures.js';
import { newTenant, newUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const DAY = 86_400_000;
const at = (ms: number) => new Date(ms).toISOString();

describe('customer events', () => {
  let t: TestApp;
  let root: string;
  let a: Workspace;
  let b: Workspace;
  let db: DataSource;

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, imports: { runner: false } } });
    root = await login(t);
    a = await newWorkspace(t, root);
    b = await newWorkspace(t, root);
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const track = (api: Client, events: unknown) => api.post('/api/track', { events });
  const customer = async (w: Workspace, externalId: string) =>
    created(w.manager.post('/api/customers', { external_id: externalId, first_name: 'Ada' }));
  const storedEvents = async (tenantId: number): Promise<number> =>
    Number((await db.query('SELECT COUNT(*) AS n FROM customer_events WHERE tenant_id = ?', [tenantId]))[0].n);

  describe('trackCustomerEvents: POST /api/track', () => {
    it('answers one result per item, in order, with the counts; a bad item fails alone', async () => {
      const ada = await customer(a, 'ev-ada');
      const res = await track(a.manager, [
        { message_id: 'ok-1', customer_id: ada.id, event: 'purchase', properties: { amount: 120 } },
        { message_id: 'ok-2', external_id: 'ev-ada', event: 'page view', timestamp: '2026-11-01T10:00:00+01:00' },
        { message_id: 'bad-1', customer_id: ada.id },
        7,
        { message_id: 'bad-2', customer_id: 999_999_999, event: 'purchase' },
        { message_id: 'ok-1', customer_id: ada.id, event: 'purchase' },
      ]);
      expect(res.status).toBe(200);
      const [first, second] = res.body.data as Row[];
      expect(res.body).toEqual({
        code: 200,
        message: 'Events processed.',
        data: [
          { index: 0, status: 'accepted', id: expect.any(Number) },
          { index: 1, status: 'accepted', id: expect.any(Number) },
          { index: 2, status: 'failed', id: null, errors: { event: ['The event field is required.'] } },
          { index: 3, status: 'failed', id: null, errors: { item: ['The item must be an object.'] } },
          {
            index: 4,
            status: 'failed',
            id: null,
            errors: { customer_id: ['The selected customer id is invalid.'] },
          },
          { index: 5, status: 'duplicate', id: first.id },
        ],
        meta: { accepted: 2, duplicate: 1, failed: 3 },
      });
      expect(await dataOf(a.manager.get(`/api/customer-events/${first.id}`))).toEqual({
        id: first.id,
        message_id: 'ok-1',
        customer_id: ada.id,
        event: 'purchase',
        properties: { amount: 120 },
        timestamp: ISO,
        received_at: ISO,
      });
      expect(await dataOf(a.manager.get(`/api/customer-events/${second.id}`))).toMatchObject({
        event: 'page view',
        properties: null,
        timestamp: '2026-11-01T09:00:00.000Z',
      });
    });

    it('stores a message id once, ever: repeats in a request and in later ones answer the stored id', async () => {
      const ada = await customer(a, 'ev-once');
      const item = (event: string) => ({ message_id: 'once-1', customer_id: ada.id, event });
      const res = await track(a.manager, [item('first'), item('second'), item('third')]);
      const [stored] = res.body.data as Row[];
      expect(res.body.data).toEqual([
        { index: 0, status: 'accepted', id: stored.id },
        { index: 1, status: 'duplicate', id: stored.id },
        { index: 2, status: 'duplicate', id: stored.id },
      ]);
      const later = await track(a.manager, [item('fourth')]);
      expect(later.body).toMatchObject({ data: [{ status: 'duplicate', id: stored.id }], meta: { duplicate: 1 } });
      expect((await dataOf(a.manager.get(`/api/customer-events/${stored.id}`))).event).toBe('first');
      // Another tenant's same message id is its own.
      const other = await customer(b, 'ev-once');
      const theirs = await track(b.manager, [{ message_id: 'once-1', customer_id: other.id, event: 'x' }]);
      expect(theirs.body.data[0]).toMatchObject({ status: 'accepted' });
      expect(theirs.body.data[0].id).not.toBe(stored.id);
    });

    it('compares message ids exactly: case, trailing spaces, accents and NUL make other ids', async () => {
      const ada = await customer(a, 'ev-exact');
      const ids = ['Key', 'key', 'key ', 'kéy', 'ke\u0000y', 'ke\ty', '😀'];
      const res = await track(
        a.manager,
        ids.map((message_id) => ({ message_id, customer_id: ada.id, event: 'e' })),
      );
      expect(res.body.meta).toEqual({ accepted: ids.length, duplicate: 0, failed: 0 });
      const again = await track(
        a.manager,
        ids.map((message_id) => ({ message_id, customer_id: ada.id, event: 'e' })),
      );
      expect(again.body.meta).toEqual({ accepted: 0, duplicate: ids.length, failed: 0 });
      expect((again.body.data as Row[]).map((r) => r.id)).toEqual((res.body.data as Row[]).map((r) => r.id));
      for (const [i, row] of (res.body.data as Row[]).entries()) {
        expect((await dataOf(a.manager.get(`/api/customer-events/${row.id}`))).message_id).toBe(ids[i]);
      }
    });

    it('makes the customer of an unknown external id once, as the batch does (customer.created in the feed)', async () => {
      const res = await track(a.manager, [
        { message_id: 'mk-1', external_id: 'ev-new-1', event: 'signup' },
        { message_id: 'mk-2', external_id: 'ev-new-1', event: 'login' },
        { message_id: 'mk-3', external_id: 'EV-NEW-1', event: 'login' },
      ]);
      expect(res.body.meta).toEqual({ accepted: 3, duplicate: 0, failed: 0 });
      const made = (await dataOf(a.manager.get('/api/customers', { external_id: 'ev-new-1' }))) as Row[];
      const other = (await dataOf(a.manager.get('/api/customers', { external_id: 'EV-NEW-1' }))) as Row[];
      expect(made).toHaveLength(1);
      expect(other).toHaveLength(1);
      const events = (await dataOf(a.manager.get(`/api/customers/${made[0].id}/events`))) as Row[];
      expect(events.map((e) => e.message_id).sort()).toEqual(['mk-1', 'mk-2']);
      const feed = await t.http
        .get('/api/events')
        .query({ resource: 'customer', resource_id: made[0].id })
        .set('Authorization', root)
        .set('X-Tenant-ID', String(a.tenantId));
      expect((feed.body.data as Row[]).map((e) => e.type)).toEqual(['customer.created']);
      // Tracked events are no change-feed events.
      const types = await t.http.get('/api/events/types').set('Authorization', root);
      expect((types.body.data as Row[]).some((type) => String(type.type).startsWith('customer_event'))).toBe(false);
    });

    it("refuses an erased person's external id and creates beyond the plan's customer cap, item by item", async () => {
      const tenant = await newTenant(t, root);
      const admin = client(t, (await newUser(t, root, ['admin'], tenant.id)).token);
      const gone = await created(admin.post('/api/customers', { external_id: 'ev-erased' }));
      expect((await admin.post(`/api/customers/${gone.id}/erase`)).status).toBe(202);
      const current = await dataOf(t.http.get(`/api/admin/tenants/${tenant.id}`).set('Authorization', root));
      await dataOf(
        t.http
          .put(`/api/admin/tenants/${tenant.id}`)
          .set('Authorization', root)
          .send({ name: current.name, limits: { customers: 2 } }),
      );
      const res = await track(admin, [
        { message_id: 'cap-1', external_id: 'ev-erased', event: 'e' },
        { message_id: 'cap-2', external_id: 'ev-cap-1', event: 'e' },
        { message_id: 'cap-3', external_id: 'ev-cap-2', event: 'e' },
        { message_id: 'cap-4', external_id: 'ev-cap-3', event: 'e' },
      ]);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        {
          index: 0,
          status: 'failed',
          id: null,
          errors: { external_id: ['The external id is suppressed by an erasure request.'] },
        },
        { index: 1, status: 'accepted', id: expect.any(Number) },
        { index: 2, status: 'accepted', id: expect.any(Number) },
        {
          index: 3,
          status: 'failed',
          id: null,
          errors: { limit: ['The plan allows 2 customers; delete some, or ask for a higher limit.'] },
        },
      ]);
      expect(await storedEvents(tenant.id)).toBe(2);
    });

    it("fails items beyond the plan's tracked_events_per_day, answering 200, and counts the day in GET /api/usage", async () => {
      const tenant = await newTenant(t, root);
      const admin = client(t, (await newUser(t, root, ['admin'], tenant.id)).token);
      const current = await dataOf(t.http.get(`/api/admin/tenants/${tenant.id}`).set('Authorization', root));
      const set: Row = await dataOf(
        t.http
          .put(`/api/admin/tenants/${tenant.id}`)
          .set('Authorization', root)
          .send({ name: current.name, limits: { tracked_events_per_day: 3 } }),
      );
      expect((set.limits as Row).tracked_events_per_day).toBe(3);
      const item = (n: number) => ({ message_id: `day-${n}`, external_id: 'ev-day', event: 'e' });
      const first = await track(admin, [item(1), item(2)]);
      expect(first.body.meta).toEqual({ accepted: 2, duplicate: 0, failed: 0 });
      const second = await track(admin, [item(1), item(3), item(4), item(4)]);
      expect(second.status).toBe(200);
      expect(second.body.data.map((r: Row) => r.status)).toEqual(['duplicate', 'accepted', 'failed', 'failed']);
      expect(second.body.data[2].errors).toEqual({
        limit: ['The plan allows 3 tracked events a day; the count starts again at 00:00 UTC.'],
      });
      const usage = await dataOf(admin.get('/api/usage'));
      expect(usage.tracked_events).toEqual({
        used: 3,
        limit: 3,
        resets_at: new Date(Math.ceil((Date.now() + 1) / DAY) * DAY).toISOString(),
      });
      expect(await storedEvents(tenant.id)).toBe(3);
    });

    it('counts tracked events without a limit too', async () => {
      const before = (await dataOf(a.manager.get('/api/usage'))).tracked_events as Row;
      expect(before.limit).toBeNull();
      await track(a.manager, [{ message_id: 'count-1', external_id: 'ev-count', event: 'e' }]);
      const after = (await dataOf(a.manager.get('/api/usage'))).tracked_events as Row;
      expect(after.used).toBe((before.used as number) + 1);
    });

    it('takes a body up to 5 MiB; a larger one is a 413 and stores nothing', async () => {
      const big = 'x'.repeat(30_000);
      const events = Array.from({ length: 60 }, (_, i) => ({
        message_id: `big-${i}`,
        external_id: 'ev-big',
        event: 'e',
        properties: { big },
      }));
      const ok = await track(a.manager, events);
      expect(JSON.stringify({ events }).length).toBeGreaterThan(1024 * 1024);
      expect(ok.body.meta).toEqual({ accepted: 60, duplicate: 0, failed: 0 });
      const before = await storedEvents(a.tenantId);
      const tooBig = Array.from({ length: 200 }, (_, i) => ({
        message_id: `huge-${i}`,
        external_id: 'ev-big',
        event: 'e',
        properties: { big },
      }));
      const res = await track(a.manager, tooBig);
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ message: 'The request body is larger than 5 MiB.' });
      expect(res.headers['cache-control']).toBe('no-cache, private');
      expect(await storedEvents(a.tenantId)).toBe(before);
    });

    it('answers a malformed or invalid body 400 / 422, storing nothing', async () => {
      const before = await storedEvents(a.tenantId);
      const raw = await t.http
        .post('/api/track')
        .set('Authorization', a.managerUser.token)
        .set('Content-Type', 'application/json')
        .send('{"events": [');
      expect(raw.status).toBe(400);
      for (const [body, message] of [
        [{}, 'The events field is required.'],
        [{ events: 'x' }, 'The events field must be an array.'],
        [{ events: [] }, 'The events field must have at least 1 items.'],
        [
          { events: Array.from({ length: 1001 }, (_, i) => ({ message_id: `n-${i}`, external_id: 'x', event: 'e' })) },
          'The events field must not have more than 1000 items.',
        ],
      ] as const) {
        const res = await a.manager.post('/api/track', body);
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual({ events: [message] });
      }
      expect(await storedEvents(a.tenantId)).toBe(before);
    });

    it('needs customers.manage: a viewer gets 403, no token 401', async () => {
      const item = [{ message_id: 'perm', external_id: 'x', event: 'e' }];
      expect((await track(a.viewer, item)).status).toBe(403);
      expect((await t.http.post('/api/track').send({ events: item })).status).toBe(401);
    });

    it("fails an item naming another tenant's customer; that customer gets no event", async () => {
      const theirs = await customer(b, 'ev-theirs');
      const res = await track(a.manager, [{ message_id: 'x-tenant', customer_id: theirs.id, event: 'e' }]);
      expect(res.body.data[0]).toEqual({
        index: 0,
        status: 'failed',
        id: null,
        errors: { customer_id: ['The selected customer id is invalid.'] },
      });
      expect(await dataOf(b.manager.get(`/api/customers/${theirs.id}/events`))).toEqual([]);
    });
  });

  describe('listCustomerEvents: GET /api/customers/{id}/events', () => {
    let ada: Row;
    const base = Date.now() - 10 * DAY;
    beforeAll(async () => {
      ada = await customer(a, 'ev-list');
      // Two at one instant (ties by id), a day apart otherwise, three names.
      const events = [
        ['l-1', 'purchase', 0],
        ['l-2', 'login', 1],
        ['l-3', 'purchase', 2],
        ['l-4', 'purchase', 2],
        ['l-5', 'refund', 3],
        ['l-6', 'login', 5],
      ] as const;
      const res = await track(
        a.manager,
        events.map(([message_id, event, day]) => ({
          message_id,
          customer_id: ada.id,
          event,
          timestamp: at(base + day * DAY),
        })),
      );
      expect(res.body.meta.accepted).toBe(6);
    });
    const list = (query: Record<string, string | number | boolean> = {}) =>
      a.manager.get(`/api/customers/${ada.id}/events`, query);
    const ids = (rows: Row[]) => rows.map((row) => row.message_id);

    it('lists newest timestamp first, ties by id, in keyset pages; timestamp ascending on request', async () => {
      const first = await list({ limit: 4, with_total: true });
      expect(ids(first.body.data)).toEqual(['l-6', 'l-5', 'l-4', 'l-3']);
      expect(first.body.meta).toMatchObject({ limit: 4, has_more: true, total: 6 });
      const second = await list({ limit: 4, cursor: first.body.meta.next_cursor });
      expect(ids(second.body.data)).toEqual(['l-2', 'l-1']);
      expect(second.body.meta).toEqual({ limit: 4, next_cursor: null, has_more: false });
      expect(ids((await list({ sort: 'timestamp' })).body.data)).toEqual(['l-1', 'l-2', 'l-3', 'l-4', 'l-5', 'l-6']);
    });

    it('filters by name, since and until (a date: its whole day, UTC)', async () => {
      expect(ids((await list({ event: 'purchase' })).body.data)).toEqual(['l-4', 'l-3', 'l-1']);
      expect(ids((await list({ event: 'never' })).body.data)).toEqual([]);
      expect(ids((await list({ since: at(base + 2 * DAY) })).body.data)).toEqual(['l-6', 'l-5', 'l-4', 'l-3']);
      expect(ids((await list({ until: at(base + DAY) })).body.data)).toEqual(['l-2', 'l-1']);
      const day = at(base + 2 * DAY).slice(0, 10);
      expect(ids((await list({ since: day, until: day })).body.data)).toEqual(['l-4', 'l-3']);
    });

    it('answers 422 for a bad sort, cursor, name or date, and 404 for a customer the tenant does not have', async () => {
      const queries: Record<string, string | number>[] = [
        { sort: '-id' },
        { cursor: 'nope' },
        { event: ' padded' },
        { since: '2026-02-30' },
        { limit: 101 },
      ];
      for (const query of queries) {
        const res = await list(query);
        expect(res.status).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual(Object.keys(query));
      }
      const wrongSort = await list({ sort: '-timestamp', limit: 1 });
      expect((await list({ sort: 'timestamp', cursor: wrongSort.body.meta.next_cursor })).status).toBe(422);
      const theirs = await customer(b, 'ev-list');
      expect((await a.manager.get(`/api/customers/${theirs.id}/events`)).status).toBe(404);
      for (const id of MISSING_IDS) expect((await a.manager.get(`/api/customers/${id}/events`)).status).toBe(404);
      expect((await a.viewer.get(`/api/customers/${ada.id}/events`)).status).toBe(200);
      expect((await t.http.get(`/api/customers/${ada.id}/events`)).status).toBe(401);
    });
  });

  describe('getCustomerEvent: GET /api/customer-events/{id}', () => {
    it("answers 404 for another tenant's event and ids that name none", async () => {
      const theirs = await customer(b, 'ev-get');
      const res = await track(b.manager, [{ message_id: 'get-1', customer_id: theirs.id, event: 'e' }]);
      const id = res.body.data[0].id as number;
      expect((await b.viewer.get(`/api/customer-events/${id}`)).status).toBe(200);
      expect((await a.manager.get(`/api/customer-events/${id}`)).status).toBe(404);
      for (const missing of MISSING_IDS)
        expect((await a.manager.get(`/api/customer-events/${missing}`)).status).toBe(404);
      expect((await t.http.get(`/api/customer-events/${id}`)).status).toBe(401);
    });
  });

  describe('listEventNames: GET /api/event-names', () => {
    it("lists the tenant's names with their counts and newest timestamps, by name, count or id", async () => {
      const tenant = await newTenant(t, root);
      const admin = client(t, (await newUser(t, root, ['viewer', 'manager'], tenant.id)).token);
      const now = Date.now();
      await track(admin, [
        { message_id: 'n-1', external_id: 'x', event: 'Zeta', timestamp: at(now - 3 * DAY) },
        { message_id: 'n-2', external_id: 'x', event: 'zeta', timestamp: at(now - 2 * DAY) },
        { message_id: 'n-3', external_id: 'y', event: 'zeta', timestamp: at(now - 5 * DAY) },
        { message_id: 'n-4', external_id: 'y', event: 'alpha' },
      ]);
      const names = (query: Record<string, string | number>) =>
        dataOf(admin.get('/api/event-names', query)) as Promise<Row[]>;
      expect(await names({ sort: 'name' })).toEqual([
        { id: expect.any(Number), name: 'alpha', count: 1, last_seen_at: ISO },
        { id: expect.any(Number), name: 'Zeta', count: 1, last_seen_at: at(now - 3 * DAY) },
        { id: expect.any(Number), name: 'zeta', count: 2, last_seen_at: at(now - 2 * DAY) },
      ]);
      expect((await names({ sort: '-count', limit: 1 })).map((n) => n.name)).toEqual(['zeta']);
      expect((await names({ q: 'ZET', sort: 'id' })).map((n) => n.name)).toEqual(['Zeta', 'zeta']);
      expect((await names({})).map((n) => n.name)).toEqual(['alpha', 'zeta', 'Zeta']);
      // Another tenant's names are not listed.
      expect((await dataOf(b.manager.get('/api/event-names', { q: 'zeta' }))) as Row[]).toEqual([]);
      expect((await admin.get('/api/event-names', { sort: 'last_seen_at' })).status).toBe(422);
      expect((await t.http.get('/api/event-names')).status).toBe(401);
    });
  });

  describe('getCustomerTimeline: GET /api/customers/{id}/timeline', () => {
    it('merges record changes and tracked events, newest first, in keyset pages; kinds filters them', async () => {
      const grace = await customer(a, 'ev-timeline');
      await dataOf(a.manager.put(`/api/customers/${grace.id}`, { last_name: 'Hopper' }));
      const now = Date.now();
      const tracked = await track(a.manager, [
        { message_id: 't-1', customer_id: grace.id, event: 'signup', timestamp: at(now - 3 * DAY) },
        { message_id: 't-2', customer_id: grace.id, event: 'login', timestamp: at(now + 60_000) },
        { message_id: 't-3', customer_id: grace.id, event: 'login', timestamp: at(now - DAY) },
      ]);
      const [signup, future, login] = tracked.body.data as Row[];
      const all: Row[] = [];
      for (let cursor: string | undefined; ;) {
        const res = await a.manager.get(`/api/customers/${grace.id}/timeline`, { limit: 2, ...(cursor && { cursor }) });
        expect(res.status).toBe(200);
        all.push(...(res.body.data as Row[]));
        cursor = res.body.meta.next_cursor;
        if (!res.body.meta.has_more) break;
      }
      expect(all.map((item) => [item.kind, item.type])).toEqual([
        ['event', 'login'],
        ['change', 'customer.updated'],
        ['change', 'customer.created'],
        ['event', 'login'],
        ['event', 'signup'],
      ]);
      expect(all.map((item) => item.id)).toEqual([
        future.id,
        expect.stringMatching(/^evt_/),
        expect.any(String),
        login.id,
        signup.id,
      ]);
      expect(all[1].data).toMatchObject({ changes: ['last_name'], record: { id: grace.id, last_name: 'Hopper' } });
      expect(all[4]).toEqual({
        at: at(now - 3 * DAY),
        kind: 'event',
        type: 'signup',
        id: signup.id,
        data: await dataOf(a.manager.get(`/api/customer-events/${signup.id}`)),
      });
      const events = await a.manager.get(`/api/customers/${grace.id}/timeline`, { kinds: 'event' });
      expect((events.body.data as Row[]).map((item) => item.id)).toEqual([future.id, login.id, signup.id]);
      const changes = await a.manager.get(`/api/customers/${grace.id}/timeline`, { kinds: 'change, change' });
      expect((changes.body.data as Row[]).map((item) => item.type)).toEqual(['customer.updated', 'customer.created']);
    });

    it('answers 422 for an unknown kind or a bad cursor, 404 for a customer the tenant does not have', async () => {
      const grace = await customer(a, 'ev-timeline-2');
      const timeline = (query: Record<string, string>) => a.manager.get(`/api/customers/${grace.id}/timeline`, query);
      const unknown = await timeline({ kinds: 'event,delivery' });
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors).toEqual({
        kinds: ['The selected kinds are invalid: "delivery". Kinds: change, event, conversion.'],
      });
      expect((await timeline({ kinds: '' })).status).toBe(422);
      expect((await timeline({ cursor: 'abc' })).status).toBe(422);
      const theirs = await customer(b, 'ev-timeline');
      expect((await a.manager.get(`/api/customers/${theirs.id}/timeline`)).status).toBe(404);
      for (const id of MISSING_IDS) expect((await a.manager.get(`/api/customers/${id}/timeline`)).status).toBe(404);
      expect((await a.viewer.get(`/api/customers/${grace.id}/timeline`)).status).toBe(200);
      expect((await t.http.get(`/api/customers/${grace.id}/timeline`)).status).toBe(401);
    });
  });

  describe('retention: TrackingService.purgeExpired', () => {
    it('drops the events older than retention, day by day, and keeps the names counted', async () => {
      const tenant = await newTenant(t, root);
      const admin = client(t, (await newUser(t, root, ['admin'], tenant.id)).token);
      const now = Date.now();
      const items = Array.from({ length: 30 }, (_, i) => ({
        message_id: `ret-${i}`,
        external_id: `ret-${i % 3}`,
        event: i % 2 ? 'odd' : 'even',
        timestamp: at(now - (365 + i) * DAY),
      }));
      expect((await track(admin, items)).body.meta.accepted).toBe(30);
      // Fifteen days later, the events older than 380 days now are past 395.
      const service = t.app.get(TrackingService);
      const purged = await service.purgeExpired(now + 15 * DAY);
      const keeps = (item: { timestamp: string }) => Date.parse(item.timestamp) >= now + 15 * DAY - 395 * DAY;
      const kept = items.filter(keeps).length;
      expect(kept).toBe(16);
      expect(purged).toBe(30 - kept);
      expect(await storedEvents(tenant.id)).toBe(kept);
      const names = (await dataOf(admin.get('/api/event-names', { sort: 'name' }))) as Row[];
      const even = items.filter((item) => item.event === 'even' && keeps(item));
      expect(names).toEqual([
        {
          id: expect.any(Number),
          name: 'even',
          count: even.length,
          last_seen_at: even.length ? at(Math.max(...even.map((e) => Date.parse(e.timestamp)))) : null,
        },
        expect.objectContaining({ name: 'odd', count: kept - even.length }),
      ]);
      expect(await service.purgeExpired(now + 15 * DAY)).toBe(0);
    });
  });

  describe('trackCustomerEvents: racing requests on two instances of one database', () => {
    // Last in the file: passport's strategies are process-wide, so the last instance started
    // authenticates for both, and closing it would close that for whatever ran after it.
    let second: TestApp;
    beforeAll(async () => {
      second = await createTestApp({ sharedWith: t, config: { rateLimitPerMinute: 100_000 } });
    });
    afterAll(() => second.app.close());

    it('stores a message id once when many requests carry it at once, and answers each with its id', async () => {
      const ada = await customer(a, 'ev-race');
      const token = a.managerUser.token;
      const apps = [t, second];
      // Twelve requests, each with the contested id among ids of its own, half through each instance.
      const requests = Array.from({ length: 12 }, (_, i) =>
        apps[i % 2].http
          .post('/api/track')
          .set('Authorization', token)
          .send({
            events: [
              { message_id: `race-own-${i}-a`, customer_id: ada.id, event: 'e' },
              { message_id: 'race-contested', external_id: 'ev-race-new', event: 'contested' },
              { message_id: `race-own-${i}-b`, customer_id: ada.id, event: 'e' },
            ],
          }),
      );
      const answers = await Promise.all(requests);
      expect(answers.map((res) => res.status)).toEqual(Array(12).fill(200));
      const contested = answers.map((res) => res.body.data[1] as Row);
      expect(contested.filter((r) => r.status === 'accepted')).toHaveLength(1);
      expect(contested.filter((r) => r.status === 'duplicate')).toHaveLength(11);
      expect(new Set(contested.map((r) => r.id)).size).toBe(1);
      expect(answers.every((res) => res.body.meta.accepted + res.body.meta.duplicate === 3)).toBe(true);
      const rows = await db.query('SELECT COUNT(*) AS n FROM customer_events WHERE message_id = ? AND tenant_id = ?', [
        'race-contested',
        a.tenantId,
      ]);
      expect(Number(rows[0].n)).toBe(1);
      // The customer its external id named was made once too.
      expect((await dataOf(a.manager.get('/api/customers', { external_id: 'ev-race-new' }))) as Row[]).toHaveLength(1);
      const names = (await dataOf(a.manager.get('/api/event-names', { q: 'contested' }))) as Row[];
      expect(names.map((n) => [n.name, n.count])).toEqual([['contested', 1]]);
    });
  });
});
