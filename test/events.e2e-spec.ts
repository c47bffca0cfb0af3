import { eventId, NUMBERED_IN_WRITE, type FeedEvent as PublishedEvent } from '../src/common/events/change-feed.js';
import { randomBytes } from 'node:crypto';
import { Database } from '../src/common/persistence/database.js';
import { EventSequencer, type NumberedEvent } from '../src/common/events/event-sequencer.js';
import { RecordCaps } from '../src/common/usage/record-caps.js';
import { InsertIds } from '../src/common/persistence/insert-ids.js';
import { Tables } from '../src/common/persistence/tables.js';
import type { AuthContext } from '../src/common/auth/auth-context.js';
import { Customer } from '../src/modules/customer/entities/customer.entity.js';
import { DeliveryQueue } from '../src/modules/webhooks/delivery/delivery-queue.js';
import { createTestApp } from './support/test-app.js';
import { login } from './support/auth.js';
import {
  audienceBody,
  client,
  created,
  dataOf,
  destinationBody,
  newCampaign,
  newWorkspace,
  type Client,
  type Row,
} from './support/campaign-fixtures.js';
import { newTenant, newUser } from './support/factories.js';
import { newDeliveryDestination } from './support/destination-fixtures.js';
import { launch, runnableDates } from './support/run-fixtures.js';
import { goalBody, kpiBody, planBody, treatmentGroupBody, validationRuleBody } from './support/marketing-factories.js';
import type { TestApp } from './support/test-app.js';

const unique = () => randomBytes(3).toString('hex');

/** An event as the feed answers it, its data a record's answer (or a tombstone). */
type FeedEvent = Omit<PublishedEvent, 'data'> & { data: Row | null };

/** Every event after `cursor`, following `meta.next_cursor` until `has_more` is false; and the cursor to go on from. */
async function follow(
  api: Client,
  cursor?: string,
  query: Record<string, string | number> = {},
): Promise<{ events: FeedEvent[]; cursor: string }> {
  const events: FeedEvent[] = [];
  for (;;) {
    const res = await api.get('/api/events', { limit: 1000, ...query, ...(cursor ? { cursor } : {}) });
    if (res.status !== 200) throw new Error(`feed: ${res.status} ${JSON.stringify(res.body)}`);
    events.push(...(res.body.data as FeedEvent[]));
    expect(typeof res.body.meta.next_cursor).toBe('string');
    cursor = res.body.meta.next_cursor as string;
    if (!res.body.meta.has_more) return { events, cursor };
  }
}

/** Follows the feed from `cursor` while `writing()` holds, then once more: every event it saw, in feed order. */
async function followWhile(api: Client, cursor: string, writing: () => boolean): Promise<FeedEvent[]> {
  const seen: FeedEvent[] = [];
  while (writing() || seen.length === 0) {
    const page = await follow(api, cursor);
    seen.push(...page.events);
    cursor = page.cursor;
  }
  seen.push(...(await follow(api, cursor)).events);
  return seen;
}

describe('listEvents, getEvent, listEventTypes: the change feed', () => {
  let t: TestApp;
  let root: string;
  let admin: Client;
  let adminId: number;
  let tenantId: number;

  beforeAll(async () => {
    t = await createTestApp({
      config: {
        rateLimitPerMinute: 100_000,
        authAttemptsPerMinute: 100_000,
        // Webhooks to a name the operator allowed, which never resolves: their deliveries just fail.
        webhooks: { allowedHosts: 'hooks.invalid', worker: false },
        // A run stays queued: its one update is the route's (a cancel), not the runner's progress.
        runs: { runner: false },
      },
    });
    root = await login(t);
    const tenant = await newTenant(t, root);
    tenantId = tenant.id;
    const user = await newUser(t, root, ['admin'], tenant.id);
    adminId = user.id;
    admin = client(t, user.token);
  });
  afterAll(() => t.close());

  const head = async () => (await follow(admin)).cursor;

  describe('listEventTypes: GET /api/events/types', () => {
    it('lists created, updated and deleted of every record kind, links without updated', async () => {
      const types = (await dataOf(admin.get('/api/events/types'))) as unknown as { type: string; resource: string }[];
      const names = types.map((type) => type.type);
      for (const resource of [
        'marketing_program',
        'campaign_group',
        'campaign',
        'treatment_group',
        'campaign_kpi',
        'customer_goal',
        'validation_rule',
        'audience',
        'sub_audience',
        'customer',
        'destination',
        'user',
        'tenant',
      ]) {
        for (const action of ['created', 'updated', 'deleted']) expect(names).toContain(`${resource}.${action}`);
      }
      expect(names).toEqual(expect.arrayContaining(['campaign_audience.created', 'campaign_audience.deleted']));
      expect(names).toEqual(
        expect.arrayContaining(['campaign_destination.updated', 'campaign_validation_rule.deleted']),
      );
      expect(names).not.toContain('campaign_audience.updated');
      expect(names).toEqual([...names].sort());
    });
  });

  /**
   * For every type of GET /api/events/types, the change that makes it, and the record it is about.
   * Each runs after the feed's head, and exactly one event of that type about that record follows.
   */
  describe('one event per change of every type', () => {
    type Made = { match: (event: FeedEvent) => boolean; expect?: (event: FeedEvent) => void; before: string };
    const campaign = () => newCampaign(admin);
    const withCampaign = async (path: (c: Row) => string, body: object) => {
      const c = await campaign();
      return { campaign: c, row: await created(admin.post(path(c), body)) };
    };
    const recordRoutes: Record<string, { create: () => Promise<Row>; path: string; update: object }> = {
      marketing_program: {
        create: () => created(admin.post('/api/marketing-programs', planBody())),
        path: '/api/marketing-programs',
        update: planBody({ name: 'Renamed' }),
      },
      campaign_group: {
        create: async () => {
          const program = await created(admin.post('/api/marketing-programs', planBody()));
          return created(admin.post(`/api/marketing-programs/${program.id}/campaign-groups`, planBody()));
        },
        path: '/api/campaign-groups',
        update: planBody({ name: 'Renamed' }),
      },
      campaign: { create: campaign, path: '/api/campaigns', update: planBody({ name: 'Renamed' }) },
      treatment_group: {
        create: async () =>
          (await withCampaign((c) => `/api/campaigns/${c.id}/treatment-groups`, treatmentGroupBody())).row,
        path: '/api/treatment-groups',
        update: treatmentGroupBody({ name: 'Renamed' }),
      },
      campaign_kpi: {
        create: async () => (await withCampaign((c) => `/api/campaigns/${c.id}/kpis`, kpiBody())).row,
        path: '/api/campaign-kpis',
        update: kpiBody({ name: 'Renamed' }),
      },
      customer_goal: {
        create: async () => (await withCampaign((c) => `/api/campaigns/${c.id}/customer-goals`, goalBody())).row,
        path: '/api/customer-goals',
        update: goalBody({ name: 'Renamed' }),
      },
      validation_rule: {
        create: () => created(admin.post('/api/validation-rules', validationRuleBody())),
        path: '/api/validation-rules',
        update: validationRuleBody({ name: 'Renamed' }),
      },
      audience: {
        create: () => created(admin.post('/api/audiences', audienceBody())),
        path: '/api/audiences',
        update: audienceBody({ name: 'Renamed' }),
      },
      sub_audience: {
        create: async () => {
          const audience = await created(admin.post('/api/audiences', audienceBody()));
          return (
            await withCampaign((c) => `/api/campaigns/${c.id}/sub-audiences`, {
              audience_id: audience.id,
              name: 'Sub',
              segment_definition: '{"min_orders":2}',
            })
          ).row;
        },
        path: '/api/sub-audiences',
        update: { name: 'Renamed', segment_definition: '{"min_orders":3}' },
      },
      webhook: {
        create: () => created(admin.post('/api/webhooks', { url: 'https://hooks.invalid/a', events: ['*'] })),
        path: '/api/webhooks',
        update: { url: 'https://hooks.invalid/b', events: ['customer.created'] },
      },
      customer: {
        create: () => created(admin.post('/api/customers', { email: `c-${unique()}@example.com` })),
        path: '/api/customers',
        update: { first_name: 'Renamed' },
      },
      destination: {
        create: () => created(admin.post('/api/destinations', destinationBody())),
        path: '/api/destinations',
        update: destinationBody({ name: 'Renamed' }),
      },
      user: {
        create: () =>
          created(
            admin.post('/api/admin/users', {
              name: 'Someone',
              email: `u-${unique()}@example.com`,
              password: 'password-123',
              roles: ['viewer'],
            }),
          ),
        path: '/api/admin/users',
        update: { name: 'Renamed', email: `renamed-${unique()}@example.com`, roles: ['viewer'] },
      },
    };
    const linkRoutes: Record<string, () => Promise<{ row: Row; remove: () => Promise<unknown> }>> = {
      campaign_audience: async () => {
        const audience = await created(admin.post('/api/audiences', audienceBody()));
        const c = await campaign();
        const row = await created(admin.post(`/api/campaigns/${c.id}/audiences`, { audience_id: audience.id }));
        return {
          row: { ...row, campaign_id: c.id },
          remove: () => admin.delete(`/api/campaigns/${c.id}/audiences/${audience.id}`),
        };
      },
      campaign_validation_rule: async () => {
        const rule = await created(admin.post('/api/validation-rules', validationRuleBody()));
        const c = await campaign();
        const row = await created(
          admin.post(`/api/campaigns/${c.id}/validation-rules`, { validation_rule_id: rule.id }),
        );
        return {
          row: { ...row, campaign_id: c.id },
          remove: () => admin.delete(`/api/campaigns/${c.id}/validation-rules/${rule.id}`),
        };
      },
      campaign_destination: async () => {
        const destination = await created(admin.post('/api/destinations', destinationBody()));
        const c = await campaign();
        const row = await created(
          admin.post(`/api/campaigns/${c.id}/destinations`, {
            destination_id: destination.id,
            attribute_mapping: '{}',
          }),
        );
        return { row, remove: () => admin.delete(`/api/campaign-destinations/${row.id}`) };
      },
    };

    /** A queued run of a campaign over nobody, to a file destination (the runner is off). */
    const queuedRun = async () => {
      const c = await newCampaign(admin, { status: 'active', ...runnableDates() });
      const destination = await newDeliveryDestination(admin, 'file', { format: 'csv' });
      await created(
        admin.post(`/api/campaigns/${c.id}/destinations`, { destination_id: destination.id, attribute_mapping: '{}' }),
      );
      return launch(admin, c.id as number);
    };

    /** The type's change, made after the head: the record's id and what its one event must show. */
    async function make(type: string): Promise<Made> {
      const [resource, action] = type.split('.');
      if (resource === 'campaign_run') {
        const before = action === 'created' ? await head() : undefined;
        const run = await queuedRun();
        if (before)
          return { match: (e) => e.resource_id === run.id, expect: (e) => expect(e.data).toEqual(run), before };
        const cursor = await head();
        const cancelled = await dataOf(admin.post(`/api/campaign-runs/${run.id}/cancel`, {}));
        return {
          match: (e) => e.resource_id === run.id,
          expect: (e) => {
            expect(e.data).toEqual(cancelled);
            expect(e.changes).toContain('status');
          },
          before: cursor,
        };
      }
      if (type === 'webhook.test' || type === 'webhook.disabled') {
        const webhook = await recordRoutes.webhook.create();
        const before = await head();
        if (type === 'webhook.test') expect((await admin.post(`/api/webhooks/${webhook.id}/test`)).status).toBe(202);
        else await t.app.get(DeliveryQueue).disable(tenantId, webhook.id, 'gone');
        return {
          match: (e) => e.resource_id === webhook.id,
          expect: (e) => expect(e.causer).toEqual(type === 'webhook.test' ? { type: 'user', id: adminId } : null),
          before,
        };
      }
      if (recordRoutes[resource]) {
        const route = recordRoutes[resource];
        if (action === 'created') {
          const before = await head();
          const row = await route.create();
          // The record as its GET answers it (a webhook's create answer alone shows its secret).
          const { secret: _secret, ...record } = row;
          return { match: (e) => e.resource_id === row.id, expect: (e) => expect(e.data).toEqual(record), before };
        }
        const row = await route.create();
        const before = await head();
        if (action === 'updated') {
          const answer = await dataOf(admin.put(`${route.path}/${row.id}`, route.update));
          const field = Object.keys(route.update)[0];
          return {
            match: (e) => e.resource_id === row.id,
            expect: (e) => {
              expect(e.data).toEqual(answer);
              expect(e.changes).toContain(field);
            },
            before,
          };
        }
        await dataOf(admin.delete(`${route.path}/${row.id}`));
        return {
          match: (e) => e.resource_id === row.id,
          expect: (e) => expect(e.data).toEqual({ id: row.id, deleted_at: expect.stringMatching(/Z$/) }),
          before,
        };
      }
      // A link's list item may be its target record (a campaign audience): its events are found by the link's ends.
      const link = linkRoutes[resource];
      const ends = (row: Row) => (e: FeedEvent) =>
        resource === 'campaign_destination' ? e.resource_id === row.id : e.data?.campaign_id === row.campaign_id;
      if (action === 'created') {
        const before = await head();
        const { row } = await link();
        return {
          match: ends(row),
          expect: (e) => expect(e.data).toEqual({ campaign_id: row.campaign_id, ...row }),
          before,
        };
      }
      const { row, remove } = await link();
      if (action === 'updated') {
        // A destination link loses the treatment group it named when the group is deleted.
        const group = await created(
          admin.post(`/api/campaigns/${row.campaign_id}/treatment-groups`, treatmentGroupBody()),
        );
        const linked = await created(
          admin.post(`/api/campaigns/${row.campaign_id}/destinations`, {
            destination_id: row.destination_id,
            treatment_group_id: group.id,
            attribute_mapping: '{}',
          }),
        );
        const before = await head();
        await dataOf(admin.delete(`/api/treatment-groups/${group.id}`));
        return {
          match: (e) => e.resource_id === linked.id,
          expect: (e) => {
            expect(e.data).toMatchObject({ id: linked.id, treatment_group_id: null });
            expect(e.changes).toEqual(['treatment_group_id']);
          },
          before,
        };
      }
      const before = await head();
      await remove();
      return {
        match: ends(row),
        expect: (e) => expect(e.data).toMatchObject({ campaign_id: row.campaign_id }),
        before,
      };
    }

    it('gives every listed type exactly one event about its record, in the tenant it belongs to', async () => {
      const types = ((await dataOf(admin.get('/api/events/types'))) as unknown as { type: string }[]).map(
        (x) => x.type,
      );
      for (const type of types) {
        const [resource, action] = type.split('.');
        if (resource === 'tenant') continue; // a tenant's events are in that tenant's feed: the next test
        const made = await make(type);
        const events = (await follow(admin, made.before)).events.filter((e) => e.type === type && made.match(e));
        expect({ type, count: events.length }).toEqual({ type, count: 1 });
        const [event] = events;
        expect(event).toEqual({
          id: expect.stringMatching(/^evt_\d+$/),
          sequence: expect.any(Number),
          type,
          occurred_at: expect.stringMatching(/Z$/),
          resource,
          resource_id: expect.any(Number),
          data:
            action === 'deleted'
              ? expect.objectContaining({ deleted_at: expect.stringMatching(/Z$/) })
              : expect.any(Object),
          changes: action === 'updated' ? expect.any(Array) : [],
          causer: type === 'webhook.disabled' ? null : { type: 'user', id: adminId },
          request_id: expect.any(String),
        });
        made.expect?.(event);
        expect(await dataOf(admin.get(`/api/events/${event.id}`))).toEqual(event);
      }
    });

    it("records a tenant's own changes in that tenant's feed", async () => {
      const tenant = await created(
        t.http
          .post('/api/admin/tenants')
          .set('Authorization', root)
          .send({ name: `T ${unique()}` }),
      );
      await dataOf(
        t.http
          .put(`/api/admin/tenants/${tenant.id}`)
          .set('Authorization', root)
          .send({ name: `U ${unique()}` }),
      );
      const events = (await follow(client(t, root))).events;
      expect(events.some((e) => e.resource === 'tenant' && e.resource_id === tenant.id)).toBe(false);
      const feed = (id: number) =>
        t.http.get('/api/events').set('Authorization', root).set('X-Tenant-ID', String(id)).query({ limit: 100 });
      const inTenant = (await dataOf(feed(tenant.id))) as unknown as FeedEvent[];
      expect(inTenant.map((e) => [e.type, e.resource_id, e.changes])).toEqual([
        ['tenant.created', tenant.id, []],
        ['tenant.updated', tenant.id, ['name']],
      ]);
      await dataOf(t.http.delete(`/api/admin/tenants/${tenant.id}`).set('Authorization', root));
      // The tenant is gone, and with it the way to name it in X-Tenant-ID: its tombstone is in its rows.
      const [row] = await t.app
        .get(Database)
        .query<{ type: string }>('SELECT type FROM events WHERE tenant_id = ? ORDER BY id DESC LIMIT 1', [tenant.id]);
      expect(row.type).toBe('tenant.deleted');
    });
  });

  describe('listEvents: GET /api/events', () => {
    it('gives a deleted record a tombstone, and a cascade one event per record it took along', async () => {
      const c = await newCampaign(admin);
      const group = await created(admin.post(`/api/campaigns/${c.id}/treatment-groups`, treatmentGroupBody()));
      const kpi = await created(admin.post(`/api/campaigns/${c.id}/kpis`, kpiBody()));
      const before = await head();
      await dataOf(admin.delete(`/api/campaigns/${c.id}`));
      const events = (await follow(admin, before)).events;
      expect(events.map((e) => [e.type, e.resource_id])).toEqual([
        ['treatment_group.deleted', group.id],
        ['campaign_kpi.deleted', kpi.id],
        ['campaign.deleted', c.id],
      ]);
      for (const event of events) expect(Object.keys(event.data!).sort()).toEqual(['deleted_at', 'id']);
    });

    it('writes no event for a PUT that changes nothing', async () => {
      const customer = await created(admin.post('/api/customers', { first_name: 'Same' }));
      const before = await head();
      await dataOf(admin.put(`/api/customers/${customer.id}`, { first_name: 'Same' }));
      expect((await follow(admin, before)).events).toEqual([]);
    });

    it('writes no event for a write that rolls back', async () => {
      const before = await head();
      const auth = { user: { id: adminId }, tenantId, tenantChosen: false, requestId: 'rollback' } as AuthContext;
      await expect(
        t.app.get(Tables).write(auth, async (tx) => {
          await tx.table(Customer).insert({ first_name: 'Never' });
          throw new Error('rolled back on purpose');
        }),
      ).rejects.toThrow('rolled back on purpose');
      expect((await follow(admin, before)).events).toEqual([]);
    });

    it('gives each record of a batch upsert its own event, with the request id', async () => {
      const before = await head();
      const res = await admin.post('/api/customers/batch', {
        items: [
          { external_id: `b-${unique()}` },
          { external_id: `b-${unique()}`, first_name: 'Two' },
          { email: 'not an e-mail' },
        ],
      });
      expect(res.status).toBe(200);
      const events = (await follow(admin, before)).events;
      expect(events.map((e) => e.type)).toEqual(['customer.created', 'customer.created']);
      expect(events.map((e) => e.resource_id)).toEqual(res.body.data.slice(0, 2).map((r: Row) => r.id));
      expect(new Set(events.map((e) => e.request_id)).size).toBe(1);
      expect(events[1].data).toMatchObject({ first_name: 'Two' });
    });

    it('gives each row of a CSV import its own event, without a causer (a job)', async () => {
      const before = await head();
      const csv = `external_id,first_name\ni-${unique()},One\ni-${unique()},Two\n`;
      const res = await t.http
        .post('/api/customers/imports')
        .set('Authorization', admin.token)
        .set('Content-Type', 'text/csv')
        .send(csv);
      expect(res.status).toBe(202);
      for (let i = 0; i < 100; i++) {
        const job = await dataOf(admin.get(`/api/customers/imports/${res.body.data.id}`));
        if (job.status === 'completed') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const events = (await follow(admin, before)).events.filter((e) => e.resource === 'customer');
      expect(events.map((e) => [e.type, (e.data as Row).first_name, e.causer])).toEqual([
        ['customer.created', 'One', null],
        ['customer.created', 'Two', null],
      ]);
    });

    it('numbers events 1, 2, 3, ... per tenant, and pages by cursor with no gap or repeat', async () => {
      const { manager } = await newWorkspace(t, root);
      const tenantAdmin = client(
        t,
        (await newUser(t, root, ['admin'], (await dataOf(manager.get('/api/user'))).tenant_id as number)).token,
      );
      for (let i = 0; i < 7; i++) await created(manager.post('/api/customers', { first_name: `N${i}` }));
      const pages: FeedEvent[][] = [];
      let cursor: string | undefined;
      for (;;) {
        const res = await tenantAdmin.get('/api/events', { limit: 3, ...(cursor ? { cursor } : {}) });
        pages.push(res.body.data);
        expect(res.body.meta).toEqual({ limit: 3, next_cursor: expect.any(String), has_more: expect.any(Boolean) });
        cursor = res.body.meta.next_cursor;
        if (!res.body.meta.has_more) break;
      }
      const all = pages.flat();
      // The tenant's creation and its users first (newWorkspace, then this admin), then the customers.
      expect(all.map((e) => e.sequence)).toEqual(all.map((_, i) => i + 1));
      expect(all.filter((e) => e.type === 'customer.created').map((e) => (e.data as Row).first_name)).toEqual([
        'N0',
        'N1',
        'N2',
        'N3',
        'N4',
        'N5',
        'N6',
      ]);
      // The last page's cursor is the place to poll from: empty now, the next event later.
      const empty = await tenantAdmin.get('/api/events', { cursor: cursor! });
      expect(empty.body).toMatchObject({ data: [], meta: { next_cursor: cursor, has_more: false } });
      await created(manager.post('/api/customers', { first_name: 'Later' }));
      const later = await tenantAdmin.get('/api/events', { cursor: cursor! });
      expect(later.body.data.map((e: FeedEvent) => (e.data as Row).first_name)).toEqual(['Later']);
    });

    it('filters by types, resource and resource_id, and starts at since', async () => {
      const one = await created(admin.post('/api/customers', { first_name: 'Filter' }));
      await dataOf(admin.put(`/api/customers/${one.id}`, { first_name: 'Filtered' }));
      const program = await created(admin.post('/api/marketing-programs', planBody()));
      const history = (await follow(admin, undefined, { resource: 'customer', resource_id: one.id })).events;
      expect(history.map((e) => e.type)).toEqual(['customer.created', 'customer.updated']);
      expect(history[1].changes).toEqual(['first_name']);
      const programs = (await follow(admin, undefined, { types: 'marketing_program.created' })).events;
      expect(programs.map((e) => e.resource_id)).toContain(program.id);
      expect(new Set(programs.map((e) => e.type))).toEqual(new Set(['marketing_program.created']));
      const byResource = (await follow(admin, undefined, { resource: 'marketing_program' })).events;
      expect(byResource.every((e) => e.resource === 'marketing_program')).toBe(true);
      const since = (await follow(admin, undefined, { since: history[1].occurred_at })).events;
      expect(since[0].sequence).toBeLessThanOrEqual(history[1].sequence);
      expect(since.map((e) => e.id)).toContain(history[1].id);
      expect((await follow(admin, undefined, { since: '2999-01-01T00:00:00Z' })).events).toEqual([]);
    });

    it('answers 422 for a bad limit, cursor, type, resource_id alone, or since with a cursor', async () => {
      const { cursor } = await follow(admin);
      for (const [query, field] of [
        [{ limit: 1001 }, 'limit'],
        [{ limit: 0 }, 'limit'],
        [{ cursor: 'bm90LWEtY3Vyc29y' }, 'cursor'],
        [{ types: 'customer.exploded' }, 'types'],
        [{ resource_id: 5 }, 'resource_id'],
        [{ since: '2026-02-30' }, 'since'],
        [{ since: '2026-01-01', cursor }, 'since'],
      ] as [Record<string, string | number>, string][]) {
        const res = await admin.get('/api/events', query);
        expect({ query, status: res.status, errors: Object.keys(res.body.errors ?? {}) }).toEqual({
          query,
          status: 422,
          errors: [field],
        });
      }
    });

    it("keeps tenants apart: another tenant's events are not in the feed and answer 404", async () => {
      const other = await newWorkspace(t, root);
      const theirs = await created(other.manager.post('/api/customers', { first_name: 'Theirs' }));
      const mine = (await follow(admin)).events;
      expect(mine.some((e) => e.resource === 'customer' && e.resource_id === theirs.id)).toBe(false);
      const otherAdmin = client(t, (await newUser(t, root, ['admin'], other.tenantId)).token);
      const [event] = (await follow(otherAdmin, undefined, { resource: 'customer', resource_id: theirs.id })).events;
      expect((await admin.get(`/api/events/${event.id}`)).status).toBe(404);
      for (const id of ['evt_0', 'evt_x', '12', 'evt_99999999999'])
        expect((await admin.get(`/api/events/${id}`)).status).toBe(404);
    });

    it('needs events.view: a manager and a viewer are refused, a super-admin reads X-Tenant-ID', async () => {
      const { manager, viewer } = await newWorkspace(t, root);
      for (const api of [manager, viewer]) {
        expect((await api.get('/api/events')).status).toBe(403);
        expect((await api.get('/api/events/types')).status).toBe(403);
      }
      const res = await t.http
        .get('/api/events')
        .set('Authorization', root)
        .set('X-Tenant-ID', String(tenantId))
        .query({ limit: 1 });
      expect(res.status).toBe(200);
    });
  });

  it('answers 410 to a cursor or since behind what retention removed', async () => {
    const { manager, tenantId: id } = await newWorkspace(t, root);
    const reader = client(t, (await newUser(t, root, ['admin'], id)).token);
    await created(manager.post('/api/customers', { first_name: 'Old' }));
    const first = await reader.get('/api/events', { limit: 1 });
    const early = first.body.meta.next_cursor as string;
    const { cursor: head } = await follow(reader);
    // Retention as it will run 31 days from now: everything written so far is past it.
    await t.app.get(EventSequencer).purge(Date.now() + 31 * 24 * 60 * 60 * 1000);
    expect((await follow(reader)).events).toEqual([]);
    // Retention ran up to a day from now: a start before that instant has lost events.
    const queries: Record<string, string>[] = [
      { cursor: early },
      { since: '2020-01-01T00:00:00Z' },
      { since: new Date().toISOString() },
    ];
    for (const query of queries) {
      const res = await reader.get('/api/events', query);
      expect({ query, status: res.status }).toEqual({ query, status: 410 });
      expect(res.body).toEqual({ message: expect.stringContaining('no longer holds') });
    }
    // The newest position before the purge is still good: nothing after it was removed.
    await created(manager.post('/api/customers', { first_name: 'After' }));
    expect((await follow(reader, head)).events.map((e) => (e.data as Row).first_name)).toEqual(['After']);
  });

  it('never skips or repeats an event while 8 writers race a reader following the cursor', async () => {
    const { tenantId: id } = await newWorkspace(t, root);
    const writers = await Promise.all(Array.from({ length: 8 }, () => newUser(t, root, ['manager'], id)));
    const reader = client(t, (await newUser(t, root, ['admin'], id)).token);
    let writing = true;
    const reading = followWhile(reader, (await follow(reader)).cursor, () => writing);
    const writes = await Promise.all(
      writers.map(async (writer) => {
        const api = client(t, writer.token);
        const customer = await created(api.post('/api/customers', { first_name: 'v0' }));
        for (let v = 1; v <= 6; v++) await dataOf(api.put(`/api/customers/${customer.id}`, { first_name: `v${v}` }));
        return customer.id as number;
      }),
    );
    writing = false;
    const seen = await reading;
    const ids = new Set(seen.map((e) => e.id));
    expect(ids.size).toBe(seen.length);
    const sequences = seen.map((e) => e.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(sequences).toEqual(sequences.map((_, i) => sequences[0] + i));
    for (const customerId of writes) {
      const history = seen.filter((e) => e.resource === 'customer' && e.resource_id === customerId);
      expect(history.map((e) => (e.data as Row).first_name)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6']);
    }
  });

  it('records each update of a record as stored, while PUTs and batches change its fields at once', async () => {
    const { manager, tenantId: id } = await newWorkspace(t, root);
    const reader = client(t, (await newUser(t, root, ['admin'], id)).token);
    const start = (await follow(reader)).cursor;
    const customer = await created(
      manager.post('/api/customers', { external_id: `race-${unique()}`, first_name: 'p0' }),
    );
    for (let round = 1; round <= 25; round++) {
      await Promise.all([
        dataOf(manager.put(`/api/customers/${customer.id}`, { first_name: `p${round}` })),
        dataOf(
          manager.post('/api/customers/batch', {
            items: [{ external_id: customer.external_id, last_name: `b${round}` }],
          }),
        ),
      ]);
    }
    const history = (await follow(reader, start)).events.filter((e) => e.resource_id === customer.id);
    expect(history).toHaveLength(51);
    // Each event differs from the one before only in the fields it names: none shows a field as it was before another write.
    for (let i = 1; i < history.length; i++) {
      const [before, after] = [history[i - 1].data as Row, history[i].data as Row];
      const moved = Object.keys(after).filter((field) => field !== 'updated_at' && after[field] !== before[field]);
      expect({ event: i, moved }).toEqual({ event: i, moved: history[i].changes });
    }
    expect(history[history.length - 1].data).toEqual(await dataOf(manager.get(`/api/customers/${customer.id}`)));
  });

  it('never skips or repeats while batches that number their own events race single writers and a reader', async () => {
    const { tenantId: id } = await newWorkspace(t, root);
    const singles = await Promise.all(Array.from({ length: 4 }, () => newUser(t, root, ['manager'], id)));
    const batchers = await Promise.all(Array.from({ length: 4 }, () => newUser(t, root, ['manager'], id)));
    const reader = client(t, (await newUser(t, root, ['admin'], id)).token);
    let writing = true;
    const reading = followWhile(reader, (await follow(reader)).cursor, () => writing);
    // The single writers' customers, which every batch also updates (last_name) while they are PUT.
    const shared = await Promise.all(
      singles.map((_, n) =>
        created(client(t, singles[n].token).post('/api/customers', { external_id: `shared-${n}`, first_name: 'v0' })),
      ),
    );
    const size = NUMBERED_IN_WRITE + 20;
    await Promise.all([
      ...singles.map(async (writer, n) => {
        const api = client(t, writer.token);
        for (let v = 1; v <= 6; v++) await dataOf(api.put(`/api/customers/${shared[n].id}`, { first_name: `v${v}` }));
      }),
      ...batchers.map(async (writer, b) => {
        const api = client(t, writer.token);
        for (let v = 0; v < 4; v++) {
          const items = [
            ...Array.from({ length: size }, (_, n) => ({ external_id: `b${b}-${n}`, first_name: `v${v}` })),
            ...shared.map((_, n) => ({ external_id: `shared-${n}`, last_name: `b${b}v${v}` })),
          ];
          const answer = await dataOf(api.post('/api/customers/batch', { items }));
          expect((answer as Row[]).filter((item) => item.status === 'failed')).toEqual([]);
        }
      }),
    ]);
    writing = false;
    const seen = await reading;
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    const sequences = seen.map((e) => e.sequence);
    expect(sequences).toEqual(sequences.map((_, i) => sequences[0] + i));
    const customers = seen.filter((e) => e.resource === 'customer');
    for (let b = 0; b < batchers.length; b++) {
      for (let n = 0; n < size; n += 37) {
        const history = customers.filter((e) => (e.data as Row).external_id === `b${b}-${n}`);
        expect(history.map((e) => [e.type, (e.data as Row).first_name])).toEqual([
          ['customer.created', 'v0'],
          ['customer.updated', 'v1'],
          ['customer.updated', 'v2'],
          ['customer.updated', 'v3'],
        ]);
      }
    }
    // A record written by both kinds of writes: its events in the order of its writes, the last one
    // its current state, and each single writer's values in the order it wrote them.
    for (const customer of shared) {
      const history = customers.filter((e) => e.resource_id === customer.id);
      expect(history).toHaveLength(1 + 6 + 4 * batchers.length);
      expect(history[history.length - 1].data).toEqual(await dataOf(reader.get(`/api/customers/${customer.id}`)));
      const names = history.map((e) => (e.data as Row).first_name);
      expect(names.filter((name, i) => i === 0 || name !== names[i - 1])).toEqual([
        'v0',
        'v1',
        'v2',
        'v3',
        'v4',
        'v5',
        'v6',
      ]);
    }
  });
});

describe("the change feed: who numbers a write's events", () => {
  let t: TestApp;
  let manager: Client;
  let reader: Client;
  let tenantId: number;

  beforeAll(async () => {
    // Without background passes, an event is numbered by its own write or by a feed read.
    t = await createTestApp({ config: { events: { background: false }, webhooks: { worker: false } } });
    const root = await login(t);
    const workspace = await newWorkspace(t, root);
    ({ manager, tenantId } = workspace);
    reader = client(t, (await newUser(t, root, ['admin'], tenantId)).token);
  });
  afterAll(() => t.close());

  const unnumbered = async () =>
    Number(
      (
        await t.app
          .get(Database)
          .query<{ n: number | string }>('SELECT COUNT(*) AS n FROM events WHERE tenant_id = ? AND sequence IS NULL', [
            tenantId,
          ])
      )[0].n,
    );
  const batch = (tag: string, size: number) =>
    dataOf(
      manager.post('/api/customers/batch', {
        items: Array.from({ length: size }, (_, n) => ({ external_id: `${tag}-${n}`, first_name: tag })),
      }),
    );

  it('a bulk write numbers its events in its transaction, after the ones committed before it; a small write leaves them to a pass', async () => {
    const start = (await follow(reader)).cursor; // numbers what making the workspace wrote
    const single = await created(manager.post('/api/customers', { first_name: 'single' }));
    await batch('small', NUMBERED_IN_WRITE - 1);
    expect(await unnumbered()).toBe(NUMBERED_IN_WRITE);
    // The bulk write numbers the events committed before its own, then its own after them.
    await batch('bulk', NUMBERED_IN_WRITE);
    expect(await unnumbered()).toBe(0);
    const { events } = await follow(reader, start);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => events[0].sequence + i));
    expect(events.map((e) => (e.data as Row).first_name)).toEqual([
      'single',
      ...Array<string>(NUMBERED_IN_WRITE - 1).fill('small'),
      ...Array<string>(NUMBERED_IN_WRITE).fill('bulk'),
    ]);
    expect(events[0].resource_id).toBe(single.id);
  });

  it.each([
    ['follow from the first one', undefined],
    ['are read back by sequence where they may interleave (Galera, MySQL 8)', null],
  ])('hands the numbering listeners (webhooks, usage) the ids its rows got: ids that %s', async (_, step) => {
    const handed: NumberedEvent[] = [];
    // The numbering's listener (the plan's counts), watched as the sequencer calls it.
    const caps = t.app.get(RecordCaps);
    const numbered = caps.numbered.bind(caps);
    const watched = jest.spyOn(caps, 'numbered').mockImplementation(async (sql, events) => {
      handed.push(...events);
      return numbered(sql, events);
    });
    if (step === null) jest.spyOn(t.app.get(InsertIds), 'consecutiveStep').mockResolvedValueOnce(null);
    const start = (await follow(reader)).cursor;
    handed.length = 0;
    await batch(`ids${String(step)}`, NUMBERED_IN_WRITE + 5);
    const { events } = await follow(reader, start);
    expect(events).toHaveLength(NUMBERED_IN_WRITE + 5);
    expect(handed.map((event) => [eventId(event.id), event.sequence, event.type, event.resourceId])).toEqual(
      events.map((event) => [event.id, event.sequence, event.type, event.resource_id]),
    );
    watched.mockRestore();
  });
});
