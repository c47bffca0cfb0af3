import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../src/common/persistence/database.js';
import { JobRunner } from '../src/common/jobs/job-runner.js';
import { IMPORT_QUEUE } from '../src/modules/customer/imports/import-jobs.js';
import { login } from './support/auth.js';
import { client, created, dataOf, newCampaign, type Client, type Row } from './support/campaign-fixtures.js';
import { newTenant, newUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const UNLIMITED = {
  api_calls_per_day: null,
  customers: null,
  audiences: null,
  campaigns: null,
  webhooks: null,
  tracked_events_per_day: null,
};

describe('getUsage and tenant limits: plans, daily quotas and record caps', () => {
  let t: TestApp;
  let root: string;

  /** A fresh tenant with the given limits, and an admin of it. */
  async function tenantWith(limits: Record<string, number | null> = {}): Promise<{ id: number; admin: Client }> {
    const tenant = await newTenant(t, root);
    if (Object.keys(limits).length) await setLimits(tenant.id, limits);
    const admin = client(t, (await newUser(t, root, ['admin'], tenant.id)).token);
    return { id: tenant.id, admin };
  }

  async function setLimits(tenantId: number, limits: Record<string, number | null>): Promise<Row> {
    const current = await dataOf(t.http.get(`/api/admin/tenants/${tenantId}`).set('Authorization', root));
    return dataOf(
      t.http.put(`/api/admin/tenants/${tenantId}`).set('Authorization', root).send({ name: current.name, limits }),
    );
  }

  interface Usage {
    api_calls: { used: number; limit: number | null; resets_at: string };
    records: Record<string, { count: number; limit: number | null }>;
  }
  const usageOf = async (api: Client) => (await dataOf(api.get('/api/usage'))) as unknown as Usage;

  /** Every event of the tenant's feed of `type`. */
  async function eventsOf(api: Client, type: string): Promise<Row[]> {
    const events: Row[] = [];
    for (let cursor: string | undefined; ;) {
      const res = await api.get('/api/events', { types: type, limit: 1000, ...(cursor ? { cursor } : {}) });
      events.push(...(res.body.data as Row[]));
      cursor = res.body.meta.next_cursor;
      if (!res.body.meta.has_more) return events;
    }
  }

  beforeAll(async () => {
    t = await createTestApp({
      config: {
        rateLimitPerMinute: 100_000,
        authAttemptsPerMinute: 100_000,
        storageDir: mkdtempSync(join(tmpdir(), 'cs-usage-')),
        imports: { runner: false },
        // Webhooks to a name the operator allowed, which never resolves: they are only counted here.
        webhooks: { allowedHosts: 'hooks.invalid', worker: false },
      },
    });
    root = await login(t);
  });
  afterAll(() => t.close());

  describe('limits on the tenant', () => {
    it('are set by a super-admin, validated, and kept as sent; a limit not sent stays', async () => {
      const res = await t.http
        .post('/api/admin/tenants')
        .set('Authorization', root)
        .send({ name: `Plan ${Date.now()}`, limits: { customers: 10, api_calls_per_day: 1000 } });
      expect(res.status).toBe(201);
      expect(res.body.data.limits).toEqual({ ...UNLIMITED, customers: 10, api_calls_per_day: 1000 });
      const updated = await setLimits(res.body.data.id, { audiences: 3, customers: null });
      expect(updated.limits).toEqual({ ...UNLIMITED, api_calls_per_day: 1000, audiences: 3 });

      for (const [limits, field] of [
        [{ customers: 0 }, 'limits.customers'],
        [{ campaigns: -2 }, 'limits.campaigns'],
        [{ webhooks: 1.5 }, 'limits.webhooks'],
        [{ api_calls_per_day: 'many' }, 'limits.api_calls_per_day'],
        ['none', 'limits'],
        [[1], 'limits'],
      ] as const) {
        const bad = await t.http
          .put(`/api/admin/tenants/${res.body.data.id}`)
          .set('Authorization', root)
          .send({ name: res.body.data.name, limits });
        expect(bad.status).toBe(422);
        expect(Object.keys(bad.body.errors)).toEqual([field]);
      }
      expect(
        (await dataOf(t.http.get(`/api/admin/tenants/${res.body.data.id}`).set('Authorization', root))).limits,
      ).toEqual({ ...UNLIMITED, api_calls_per_day: 1000, audiences: 3 });
    });

    it("are read by the tenant's users through the usage answer, and changed by no one but a super-admin", async () => {
      const { id, admin } = await tenantWith({ customers: 7 });
      expect((await usageOf(admin)).records.customers).toEqual({ count: 0, limit: 7 });
      expect((await admin.put(`/api/admin/tenants/${id}`, { name: 'mine', limits: { customers: null } })).status).toBe(
        403,
      );
      const viewer = client(t, (await newUser(t, root, ['viewer'], id)).token);
      expect((await usageOf(viewer)).records.customers.limit).toBe(7);
      // A super-admin reads another tenant's with X-Tenant-ID.
      const theirs = (await dataOf(
        t.http.get('/api/usage').set('Authorization', root).set('X-Tenant-ID', String(id)),
      )) as unknown as Usage;
      expect(theirs.records.customers).toEqual({ count: 0, limit: 7 });
    });
  });

  describe('usage', () => {
    it('counts records exactly after creates, deletes, a batch, an import and a merge', async () => {
      const { admin } = await tenantWith();
      const [a, b] = [
        await created(admin.post('/api/customers', { first_name: 'a' })),
        await created(admin.post('/api/customers', { first_name: 'b' })),
        await created(admin.post('/api/customers', { first_name: 'c' })),
      ];
      expect((await usageOf(admin)).records.customers.count).toBe(3);
      await dataOf(admin.delete(`/api/customers/${b.id}`));
      expect((await usageOf(admin)).records.customers.count).toBe(2);
      const batch = await admin.post('/api/customers/batch', {
        items: [{ external_id: 'u1' }, { external_id: 'u2' }, { external_id: 'u3' }, { email: 'bad' }],
      });
      expect(batch.body.meta).toMatchObject({ created: 3, failed: 1 });
      expect((await usageOf(admin)).records.customers.count).toBe(5);
      const upload = await t.http
        .post('/api/customers/imports')
        .set('Authorization', admin.token)
        .set('Content-Type', 'text/csv')
        .send('external_id,first_name\nu1,updated\ni1,new\ni2,new\n');
      expect(upload.status).toBe(202);
      await t.app.get(JobRunner).runOnce(IMPORT_QUEUE);
      expect((await usageOf(admin)).records.customers.count).toBe(7);
      const sources = (await dataOf(admin.get('/api/customers', { external_id: 'i1' }))) as Row[];
      await dataOf(admin.post(`/api/customers/${a.id}/merge`, { from: [sources[0].id] }));
      expect((await usageOf(admin)).records.customers.count).toBe(6);

      await created(admin.post('/api/audiences', { name: 'Everyone', rules: [] }));
      const hook = await admin.post('/api/webhooks', { url: 'https://hooks.invalid/x', events: ['*'] });
      expect(hook.status).toBe(201);
      const usage = await usageOf(admin);
      expect(usage.records).toEqual({
        customers: { count: 6, limit: null },
        audiences: { count: 1, limit: null },
        campaigns: { count: 0, limit: null },
        webhooks: { count: 1, limit: null },
      });
      const total = await admin.get('/api/customers', { with_total: true });
      expect(total.body.meta.total).toBe(6);
    });
  });

  describe('the daily quota', () => {
    it('counts every authenticated call, names itself in the RateLimit fields, and answers 429 past the limit', async () => {
      const { id, admin } = await tenantWith({ api_calls_per_day: 4 });
      // Making the tenant's admin was a call in the tenant already (a super-admin's, with X-Tenant-ID).
      const made = (await usageOf(admin)).api_calls;
      expect(made).toMatchObject({ used: 1, limit: 4 });
      const first = await admin.get('/api/customers');
      expect(first.status).toBe(200);
      expect(first.headers['ratelimit-policy']).toBe('"default";q=100000;w=60, "daily";q=4;w=86400');
      // Both are listed, the daily quota first: it is nearest exhaustion, 2 of 4 left.
      expect(first.headers.ratelimit).toMatch(/^"daily";r=2;t=\d+, "default";r=\d+;t=\d+$/);
      expect(first.headers.ratelimit).toContain(`"default";r=${first.headers['x-ratelimit-remaining']};`);
      const resetIn = Number(/t=(\d+)/.exec(first.headers.ratelimit)![1]);
      const midnight = new Date();
      midnight.setUTCHours(24, 0, 0, 0);
      expect(Math.abs(resetIn - (midnight.getTime() - Date.now()) / 1000)).toBeLessThan(5);
      for (let i = 0; i < 2; i++) expect((await admin.get('/api/customers')).status).toBe(200);
      // The usage answer is not a call of the quota.
      const usage = await usageOf(admin);
      expect(usage.api_calls).toEqual({ used: 4, limit: 4, resets_at: midnight.toISOString() });
      const over = await admin.get('/api/customers');
      expect(over.status).toBe(429);
      expect(over.body).toEqual({ message: 'The daily API quota of 4 calls is used up; it resets at 00:00 UTC.' });
      expect(Math.abs(Number(over.headers['retry-after']) - resetIn)).toBeLessThan(5);
      expect(over.headers.ratelimit).toMatch(/^"daily";r=0;t=\d+, "default";r=\d+;t=\d+$/);
      // Another tenant's calls are its own; a super-admin's in this tenant count here.
      const other = await tenantWith({ api_calls_per_day: 4 });
      expect((await other.admin.get('/api/customers')).status).toBe(200);
      expect(
        (await t.http.get('/api/customers').set('Authorization', root).set('X-Tenant-ID', String(id))).status,
      ).toBe(429);
      // Raising the limit lets calls through again at once.
      await setLimits(id, { api_calls_per_day: 100 });
      expect((await admin.get('/api/customers')).status).toBe(200);
    });

    it('counts every authenticated call once, the refused ones too: 403, 400, 413, 415, 404, 422', async () => {
      const { id, admin } = await tenantWith({ api_calls_per_day: 1000 });
      const viewer = client(t, (await newUser(t, root, ['viewer'], id)).token);
      const before = (await usageOf(admin)).api_calls.used;
      const send = (type: string, body: string) =>
        t.http.post('/api/customers').set('Authorization', admin.token).set('Content-Type', type).send(body);
      const forbidden = await viewer.post('/api/customers', { first_name: 'Ann' });
      expect(forbidden.headers['ratelimit-policy']).toContain('"daily";q=1000;w=86400');
      const answers = [
        forbidden.status,
        (await viewer.get('/api/customers')).status,
        (await send('application/json', '{"first_name": ')).status,
        (await send('application/json', JSON.stringify({ first_name: 'x'.repeat(1024 * 1024) }))).status,
        (await send('text/plain', 'first_name=Ann')).status,
        (await admin.get('/api/customers/999999999')).status,
        (await admin.post('/api/customers', { email: 'not an e-mail' })).status,
      ];
      expect(answers).toEqual([403, 200, 400, 413, 415, 404, 422]);
      expect((await usageOf(admin)).api_calls.used).toBe(before + answers.length);
    });

    it('answers 429 past the quota before telling a caller what it may not do', async () => {
      const { id, admin } = await tenantWith({ api_calls_per_day: 4 });
      const viewer = client(t, (await newUser(t, root, ['viewer'], id)).token);
      // Making the admin and the viewer were two calls of the tenant.
      expect((await usageOf(admin)).api_calls.used).toBe(2);
      expect((await viewer.post('/api/customers', {})).status).toBe(403);
      expect((await viewer.post('/api/customers', {})).status).toBe(403);
      const over = await viewer.post('/api/customers', {});
      expect(over.status).toBe(429);
      expect(over.body).toEqual({ message: 'The daily API quota of 4 calls is used up; it resets at 00:00 UTC.' });
      expect(over.headers.ratelimit).toMatch(/^"daily";r=0;t=\d+, "default";r=\d+;t=\d+$/);
    });

    it("counts a super-admin's call with X-Tenant-ID in that tenant, a refused one too; one naming no tenant in none", async () => {
      const { id, admin } = await tenantWith({ api_calls_per_day: 1000 });
      const ownCalls = async () => (await usageOf(client(t, root))).api_calls.used;
      const own = await ownCalls();
      const before = (await usageOf(admin)).api_calls.used;
      const inside = (tenant: string) =>
        t.http.post('/api/customers').set('Authorization', root).set('X-Tenant-ID', tenant);
      expect((await inside(String(id)).set('Content-Type', 'application/json').send('{"first_name": ')).status).toBe(
        400,
      );
      expect((await inside(String(id)).send({ first_name: 'Ann' })).status).toBe(201);
      expect((await inside('999999999').send({ first_name: 'Ann' })).status).toBe(404);
      expect((await usageOf(admin)).api_calls.used).toBe(before + 2);
      expect(await ownCalls()).toBe(own);
    });

    it('announces 80 % and 100 % of the day in the feed, once each', async () => {
      const { id, admin } = await tenantWith({ api_calls_per_day: 10 });
      for (let i = 0; i < 11; i++) await admin.get('/api/customers');
      // Unlimited again, so that the feed can be read.
      await setLimits(id, { api_calls_per_day: null });
      let events: Row[] = [];
      for (let tries = 0; tries < 50 && events.length < 2; tries++) {
        events = await eventsOf(admin, 'tenant.usage_threshold');
        if (events.length < 2) await new Promise((r) => setTimeout(r, 50));
      }
      expect(events.map((event) => event.data)).toEqual([
        { resource: 'api_calls', count: 8, limit: 10, percentage: 80 },
        { resource: 'api_calls', count: 10, limit: 10, percentage: 100 },
      ]);
    });
  });

  describe('record caps', () => {
    it('refuse a create past the cap with 403 naming the resource and limit; a lowered limit deletes nothing', async () => {
      const { id, admin } = await tenantWith({ audiences: 2 });
      await created(admin.post('/api/audiences', { name: 'one', rules: [] }));
      const second = await created(admin.post('/api/audiences', { name: 'two', rules: [] }));
      const third = await admin.post('/api/audiences', { name: 'three', rules: [] });
      expect(third.status).toBe(403);
      expect(third.body).toEqual({
        message: 'The plan allows 2 audiences; delete some, or ask for a higher limit.',
      });
      expect((await usageOf(admin)).records.audiences).toEqual({ count: 2, limit: 2 });
      await setLimits(id, { audiences: 1 });
      expect(((await dataOf(admin.get('/api/audiences'))) as Row[]).length).toBe(2);
      expect((await admin.post('/api/audiences', { name: 'x', rules: [] })).status).toBe(403);
      await dataOf(admin.delete(`/api/audiences/${second.id}`));
      expect((await admin.post('/api/audiences', { name: 'x', rules: [] })).status).toBe(403);
      expect((await usageOf(admin)).records.audiences).toEqual({ count: 1, limit: 1 });
    });

    it('let a batch create up to the cap: the items beyond fail, updates still apply', async () => {
      const { admin } = await tenantWith({ customers: 3 });
      await created(admin.post('/api/customers', { external_id: 'kept', first_name: 'old' }));
      const res = await admin.post('/api/customers/batch', {
        items: [
          { external_id: 'n1' },
          { external_id: 'kept', first_name: 'new' },
          { external_id: 'n2' },
          { external_id: 'n3' },
          { external_id: 'n4' },
        ],
      });
      expect(res.status).toBe(200);
      const results = res.body.data as Row[];
      expect(results.map((r) => r.status)).toEqual(['created', 'updated', 'created', 'failed', 'failed']);
      expect(results[3].errors).toEqual({
        limit: ['The plan allows 3 customers; delete some, or ask for a higher limit.'],
      });
      expect((await usageOf(admin)).records.customers).toEqual({ count: 3, limit: 3 });
    });

    it('count a batch that took room for more creates than it made exactly', async () => {
      const { admin } = await tenantWith({ customers: 1000 });
      await created(admin.post('/api/customers', { external_id: 'a' }));
      await created(admin.post('/api/customers', { external_id: 'b' }));
      const items = [
        { external_id: 'a', first_name: 'A' },
        { external_id: 'b', first_name: 'B' },
        { external_id: 'c' },
        { external_id: 'd' },
        { external_id: 'e' },
      ];
      const first = await admin.post('/api/customers/batch', { items });
      expect((first.body.data as Row[]).map((r) => r.status)).toEqual([
        'updated',
        'updated',
        'created',
        'created',
        'created',
      ]);
      expect((await usageOf(admin)).records.customers).toEqual({ count: 5, limit: 1000 });
      // The same batch again changes and creates nothing: the room it took goes back all the same.
      const again = await admin.post('/api/customers/batch', { items });
      expect((again.body.data as Row[]).every((r) => r.status === 'unchanged')).toBe(true);
      expect((await usageOf(admin)).records.customers).toEqual({ count: 5, limit: 1000 });
      await created(admin.post('/api/customers', { external_id: 'f' }));
      expect((await usageOf(admin)).records.customers).toEqual({ count: 6, limit: 1000 });
    });

    it('let an import create up to the cap, failing the rows beyond on their lines', async () => {
      const { admin } = await tenantWith({ customers: 2 });
      const upload = await t.http
        .post('/api/customers/imports')
        .set('Authorization', admin.token)
        .set('Content-Type', 'text/csv')
        .send('external_id\nr1\nr2\nr3\nr1\n');
      await t.app.get(JobRunner).runOnce(IMPORT_QUEUE);
      const job = await dataOf(admin.get(`/api/customers/imports/${upload.body.data.id}`));
      expect(job).toMatchObject({ status: 'completed', created: 2, failed: 2 });
      const errors = (await dataOf(admin.get(`/api/customers/imports/${job.id}/errors`))) as Row[];
      expect(errors.map((e) => [e.line, e.field])).toEqual([
        [4, 'limit'],
        [5, 'external_id'],
      ]);
      expect((await usageOf(admin)).records.customers.count).toBe(2);
    });

    it('announce 80 % and 100 % of a cap once per crossing and day', async () => {
      const { admin } = await tenantWith({ campaigns: 5 });
      const campaigns: Row[] = [];
      for (let i = 0; i < 5; i++) campaigns.push(await newCampaign(admin));
      await dataOf(admin.delete(`/api/campaigns/${campaigns[4].id}`));
      await dataOf(admin.delete(`/api/campaigns/${campaigns[3].id}`));
      await newCampaign(admin);
      await newCampaign(admin);
      const events = await eventsOf(admin, 'tenant.usage_threshold');
      expect(events.map((event) => event.data)).toEqual([
        { resource: 'campaigns', count: 4, limit: 5, percentage: 80 },
        { resource: 'campaigns', count: 5, limit: 5, percentage: 100 },
      ]);
      expect(events[0]).toMatchObject({ resource: 'tenant', causer: expect.anything() });
    });

    it('announce a threshold passed on an earlier day again when the count falls below it and comes back', async () => {
      const { id, admin } = await tenantWith({ campaigns: 10 });
      const campaigns: Row[] = [];
      for (let i = 0; i < 9; i++) campaigns.push(await newCampaign(admin));
      // The day turns: what was announced, and the room handed out, were yesterday's.
      const db = t.app.get(Database);
      await db.run("UPDATE tenant_usage SET warned_80_on = '2000-01-01' WHERE tenant_id = ?", [id]);
      await db.run("UPDATE tenant_usage_shares SET granted_on = '2000-01-01' WHERE tenant_id = ?", [id]);
      for (const campaign of campaigns.slice(0, 3)) await dataOf(admin.delete(`/api/campaigns/${campaign.id}`));
      await newCampaign(admin);
      await newCampaign(admin);
      const warnings = await eventsOf(admin, 'tenant.usage_threshold');
      expect(warnings.map((event) => event.data)).toEqual([
        { resource: 'campaigns', count: 8, limit: 10, percentage: 80 },
        { resource: 'campaigns', count: 8, limit: 10, percentage: 80 },
      ]);
      expect((await usageOf(admin)).records.campaigns).toEqual({ count: 8, limit: 10 });
    });

    describe('across two instances', () => {
      // One second instance for these tests: passport's strategies are process-wide, so the last
      // instance started authenticates for both, and closing it early would close that for the rest.
      let second: TestApp;
      beforeAll(async () => {
        second = await createTestApp({ sharedWith: t, config: { rateLimitPerMinute: 100_000 } });
      });
      afterAll(() => second.app.close());

      /** A tenant capped at `limit` customers holding `before`, then `racing` creates at once through both instances: their statuses, sorted. */
      async function race(
        limit: number,
        before: number,
        racing: number,
      ): Promise<{ admin: Client; statuses: number[] }> {
        const { admin } = await tenantWith({ customers: limit });
        for (let i = 0; i < before; i++) await created(admin.post('/api/customers', { first_name: `pre ${i}` }));
        const other = client(second, admin.token);
        const answers = await Promise.all(
          Array.from({ length: racing }, (_, i) =>
            (i % 2 ? admin : other).post('/api/customers', { first_name: `race ${i}` }),
          ),
        );
        return { admin, statuses: answers.map((res) => res.status).sort() };
      }

      /** Six batches at once through both instances, each updating one customer of its own and bringing twenty new ones. */
      async function raceBatches(limit: number): Promise<{ admin: Client; statuses: unknown[] }> {
        const { admin } = await tenantWith({ customers: limit });
        for (let b = 0; b < 6; b++) await created(admin.post('/api/customers', { external_id: `u${b}` }));
        const other = client(second, admin.token);
        const answers = await Promise.all(
          Array.from({ length: 6 }, (_, b) =>
            (b % 2 ? admin : other).post('/api/customers/batch', {
              items: [
                { external_id: `u${b}`, first_name: `batch ${b}` },
                ...Array.from({ length: 20 }, (_, i) => ({ external_id: `n${b}-${i}` })),
              ],
            }),
          ),
        );
        return { admin, statuses: answers.flatMap((res) => (res.body.data as Row[]).map((r) => r.status)) };
      }

      it('hold exactly, and announce each threshold once, when sixty concurrent creates share thirty places', async () => {
        const { admin, statuses } = await race(40, 10, 60);
        expect(statuses).toEqual([...Array(30).fill(201), ...Array(30).fill(403)]);
        expect((await usageOf(admin)).records.customers).toEqual({ count: 40, limit: 40 });
        expect((await admin.get('/api/customers', { with_total: true })).body.meta.total).toBe(40);
        const warnings = await eventsOf(admin, 'tenant.usage_threshold');
        expect(warnings.map((event) => event.data)).toEqual([
          { resource: 'customers', count: 32, limit: 40, percentage: 80 },
          { resource: 'customers', count: 40, limit: 40, percentage: 100 },
        ]);
      });

      it('count six batches racing through two instances with room to spare exactly', async () => {
        const { admin, statuses } = await raceBatches(10_000);
        expect(statuses.filter((s) => s === 'created')).toHaveLength(120);
        expect(statuses.filter((s) => s === 'updated')).toHaveLength(6);
        expect((await usageOf(admin)).records.customers).toEqual({ count: 126, limit: 10_000 });
      });

      it('hold exactly when six batches race through two instances for fewer places than they bring', async () => {
        const { admin, statuses } = await raceBatches(100);
        expect(statuses.filter((s) => s === 'updated')).toHaveLength(6);
        expect(statuses.filter((s) => s === 'created')).toHaveLength(94);
        expect(statuses.filter((s) => s === 'failed')).toHaveLength(26);
        expect((await usageOf(admin)).records.customers).toEqual({ count: 100, limit: 100 });
        expect((await admin.get('/api/customers', { with_total: true })).body.meta.total).toBe(100);
        const warnings = await eventsOf(admin, 'tenant.usage_threshold');
        expect(warnings.map((event) => event.data)).toEqual([
          { resource: 'customers', count: expect.any(Number), limit: 100, percentage: 80 },
          { resource: 'customers', count: expect.any(Number), limit: 100, percentage: 100 },
        ]);
        expect(warnings[1].data).toMatchObject({ count: 100 });
      });

      it('hold exactly under twenty concurrent creates from two instances', async () => {
        const { admin, statuses } = await race(5, 4, 20);
        expect(statuses).toEqual([201, ...Array(19).fill(403)]);
        expect((await usageOf(admin)).records.customers).toEqual({ count: 5, limit: 5 });
        expect((await admin.get('/api/customers', { with_total: true })).body.meta.total).toBe(5);
      });
    });
  });
});
