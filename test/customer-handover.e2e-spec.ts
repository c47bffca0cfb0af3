import { DataSource } from 'typeorm';
import { TreatmentAssignmentsService } from '../src/modules/audience/treatment-assignments.service.js';
import { CustomerHandoverService } from '../src/modules/privacy/handover/customer-handover.service.js';
import { newRole, stamp, userWithRole } from './audience-fixtures.js';
import { login } from './support/auth.js';
import {
  MISSING_IDS,
  client,
  created,
  dataOf,
  listAll,
  newAudience,
  newCampaign,
  newTreatmentGroup,
  newWorkspace,
  startApp,
  type Body,
  type Client,
  type Row,
  type Workspace,
} from './support/campaign-fixtures.js';
import { newUser } from './support/factories.js';
import type { TestApp } from './support/test-app.js';

const rule = (field: string, operator: string, rule_value: string): Body => ({
  rule_type: field,
  rule_value,
  field,
  operator,
});

/** Rows per multi-row INSERT of the seeded history (12 parameters a row stays under SQLite's limit). */
const ROWS_PER_INSERT = 500;
const SEEDED = 3000;

/** A customer's events as GET /api/events answers them, following `meta.next_cursor` while `has_more`. */
async function feedOf(api: Client, customerId: number): Promise<Row[]> {
  const events: Row[] = [];
  let cursor: string | undefined;
  for (;;) {
    const query = { resource: 'customer', resource_id: customerId, limit: 1000, ...(cursor ? { cursor } : {}) };
    const res = await api.get('/api/events', query);
    if (res.status !== 200) throw new Error(`feed: ${res.status} ${JSON.stringify(res.body)}`);
    events.push(...(res.body.data as Row[]));
    cursor = res.body.meta.next_cursor as string;
    if (!res.body.meta.has_more) return events;
  }
}

describe('exportCustomerData: GET /api/customers/{id}/export', () => {
  let t: TestApp;
  let root: string;
  let a: Workspace;
  let b: Workspace;
  /** An admin of tenant a: reads the activity log and the change feed to compare with. */
  let admin: Client;
  let customer: Row;
  /** The audiences whose rules select the customer, by id. */
  let selecting: Row[];
  let campaigns: Row[];
  let group: Row;

  beforeAll(async () => {
    t = await startApp();
    root = await login(t);
    a = await newWorkspace(t, root);
    b = await newWorkspace(t, root);
    admin = client(t, (await newUser(t, root, ['admin'], a.tenantId)).token);
    const api = a.manager;
    customer = await created(
      api.post('/api/customers', {
        external_id: 'hand-1',
        email: 'ada@handover.example',
        attributes: '{"plan":"pro"}',
      }),
    );
    await dataOf(api.put(`/api/customers/${customer.id}`, { first_name: 'Ada', phone: '+31 20' }));
    customer = await dataOf(api.get(`/api/customers/${customer.id}`));
    // Another customer of the tenant, so that the audiences select someone else too.
    await created(api.post('/api/customers', { external_id: 'hand-2', email: 'bob@other.example' }));

    const byEmail = await newAudience(api, { rules: [rule('email', 'ends_with', '@handover.example')] });
    await newAudience(api, { rules: [rule('email', 'ends_with', '@other.example')] });
    // A descriptive rule names no field: nothing to evaluate, the audience selects nobody.
    await newAudience(api, { rules: [{ rule_type: 'note', rule_value: 'no field' }] });
    const either = await newAudience(api, {
      match: 'any',
      rules: [rule('attributes.plan', 'equals', 'free'), rule('external_id', 'equals', 'hand-1')],
    });
    await newAudience(api, {
      match: 'all',
      rules: [rule('attributes.plan', 'equals', 'free'), rule('external_id', 'equals', 'hand-1')],
    });
    selecting = [byEmail, either];

    const grouped = await newCampaign(api);
    group = await newTreatmentGroup(api, grouped.id, { name: 'Everyone', allocation_percentage: 100 });
    await created(api.post(`/api/campaigns/${grouped.id}/audiences`, { audience_id: selecting[0].id }));
    const bare = await newCampaign(api);
    campaigns = [grouped, bare];
    // Tenant b's records are not a's.
    await newAudience(b.manager, { rules: [rule('email', 'ends_with', '@handover.example')] });
    await newCampaign(b.manager);
  });
  afterAll(() => t.close());

  const exportOf = (api: Client, id: number | string) => api.get(`/api/customers/${id}/export`);

  it("answers the record, its audiences, treatment groups, activity and events in the conventions' envelope", async () => {
    const res = await exportOf(a.manager, customer.id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="customer-${customer.id}.json"`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ code: 200, message: 'Retrieved successfully.' });
    expect(Object.keys(res.body)).toEqual(['code', 'message', 'data']);
    const data = res.body.data;
    expect(Object.keys(data)).toEqual([
      'customer',
      'audiences',
      'treatment_groups',
      'activity',
      'events',
      'customer_events',
    ]);

    expect(data.customer).toEqual(customer);

    expect(data.audiences).toEqual(selecting.map((x) => ({ id: x.id, name: x.name })));

    const expected = [];
    for (const campaign of campaigns) {
      const assignment = await dataOf(a.manager.get(`/api/campaigns/${campaign.id}/assignments/${customer.id}`));
      expected.push({
        campaign_id: campaign.id,
        eligible: assignment.eligible,
        treatment_group_id: assignment.treatment_group_id,
      });
    }
    expect(expected).toEqual([
      { campaign_id: campaigns[0].id, eligible: true, treatment_group_id: group.id },
      { campaign_id: campaigns[1].id, eligible: false, treatment_group_id: null },
    ]);
    expect(data.treatment_groups).toEqual(expected);

    const log = (
      await listAll(admin, '/api/admin/activity-log', {
        subject_type: 'Customer',
        subject_id: customer.id,
        sort: 'id',
        limit: 100,
      })
    ).rows;
    expect(log.map((entry) => entry.event)).toEqual(['created', 'updated']);
    expect(data.activity).toEqual(log);

    const feed = await feedOf(admin, customer.id);
    expect(feed.map((event) => event.type)).toEqual(['customer.created', 'customer.updated']);
    expect(data.events).toEqual(feed);
  });

  it("hands over the customer's tracked events, oldest first, as GET /api/customer-events/{id} answers each", async () => {
    const other = await created(a.manager.post('/api/customers', { external_id: 'hand-events' }));
    const now = Date.now();
    const res = await a.manager.post('/api/track', {
      events: [3, 1, 2].map((days) => ({
        message_id: `hand-event-${days}`,
        customer_id: other.id,
        event: `day ${days}`,
        properties: { days },
        timestamp: new Date(now - days * 86_400_000).toISOString(),
      })),
    });
    expect(res.body.meta.accepted).toBe(3);
    const data = (await dataOf(exportOf(a.manager, other.id as number))) as unknown as { customer_events: Row[] };
    const expected = [];
    for (const id of (res.body.data as Row[]).map((r) => r.id)) {
      expected.push(await dataOf(a.manager.get(`/api/customer-events/${id}`)));
    }
    expect(data.customer_events).toEqual([expected[0], expected[2], expected[1]]);
    expect(data.customer_events.map((e) => e.event)).toEqual(['day 3', 'day 2', 'day 1']);
  });

  it('may be read by a viewer (customers.view), and by a super-admin inside the tenant (X-Tenant-ID)', async () => {
    const res = await exportOf(a.viewer, customer.id);
    expect(res.status).toBe(200);
    expect(res.body.data.customer).toEqual(customer);
    const path = `/api/customers/${customer.id}/export`;
    expect((await t.http.get(path).set('Authorization', root)).status).toBe(404);
    const inside = await t.http.get(path).set('Authorization', root).set('X-Tenant-ID', String(a.tenantId));
    expect(inside.status).toBe(200);
    expect(inside.body.data).toEqual(res.body.data);
  });

  it("answers 404 for another tenant's customer and for ids that name none", async () => {
    const theirs = await created(b.manager.post('/api/customers', { email: 'ada@handover.example' }));
    const res = await exportOf(a.manager, theirs.id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'No query results for customer.' });
    expect(res.headers['cache-control']).toBe('no-cache, private');
    for (const id of MISSING_IDS) expect((await exportOf(a.manager, id)).status).toBe(404);
    // And tenant b's own customer is b's to export.
    expect((await exportOf(b.manager, theirs.id)).status).toBe(200);
  });

  it('answers 401 without a token and 403 without customers.view', async () => {
    expect((await t.http.get(`/api/customers/${customer.id}/export`)).status).toBe(401);
    await newRole(t, 'audiences-only', ['audiences.view', 'marketing.view']);
    const res = await exportOf(await userWithRole(t, root, 'audiences-only', a.tenantId), customer.id);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'This action is unauthorized.' });
  });

  it('ends the answer early, never as a complete document, when a read fails after the first byte', async () => {
    const assignment = jest
      .spyOn(t.app.get(TreatmentAssignmentsService), 'assignment')
      .mockRejectedValue(new Error('the database went away'));
    try {
      const outcome = await exportOf(a.manager, customer.id).then(
        (res) => `answered ${res.status}`,
        (error: Error) => error.message,
      );
      expect(outcome).toBe('aborted');
    } finally {
      assignment.mockRestore();
    }
    expect((await exportOf(a.manager, customer.id)).status).toBe(200);
  });

  describe('a long history', () => {
    let long: Row;
    let other: Row;

    /** SEEDED activity entries and events about `about`, every fourth row about `also` instead, written by SQL. */
    async function seedHistory(about: Row, also: Row): Promise<void> {
      const db = t.app.get(DataSource);
      const at = stamp(new Date());
      for (let start = 0; start < SEEDED; start += ROWS_PER_INSERT) {
        const activity: unknown[] = [];
        const events: unknown[] = [];
        for (let i = start; i < start + ROWS_PER_INSERT; i++) {
          const subject = i % 4 === 3 ? also : about;
          activity.push(
            ...['default', 'updated', 'Customer', subject.id, 'updated', null, null],
            JSON.stringify({ attributes: { first_name: `n${i}` }, old: { first_name: `n${i - 1}` } }),
            `seed-${i}`,
            a.tenantId,
            at,
            at,
          );
          events.push(
            a.tenantId,
            'customer.updated',
            'customer',
            subject.id,
            JSON.stringify({ id: subject.id, first_name: `n${i}` }),
            '["first_name"]',
            null,
            `seed-${i}`,
            Date.now(),
          );
        }
        await db.query(
          `INSERT INTO activity_log (log_name, description, subject_type, subject_id, event, causer_type, causer_id,
             properties, batch_uuid, tenant_id, created_at, updated_at)
           VALUES ${Array(ROWS_PER_INSERT).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          activity,
        );
        // Without a sequence, as a write stores them: the export numbers them before it reads (catch-up).
        await db.query(
          `INSERT INTO events (tenant_id, type, resource, resource_id, data, changes, causer_id, request_id, occurred_at)
           VALUES ${Array(ROWS_PER_INSERT).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          events,
        );
      }
      // The same ids in tenant b's rows are not a's history.
      await db.query(
        `INSERT INTO activity_log (log_name, description, subject_type, subject_id, event, tenant_id, created_at, updated_at)
         VALUES ('default', 'updated', 'Customer', ?, 'updated', ?, ?, ?)`,
        [about.id, b.tenantId, at, at],
      );
      await db.query(
        `INSERT INTO events (tenant_id, type, resource, resource_id, data, changes, occurred_at)
         VALUES (?, 'customer.updated', 'customer', ?, '{}', '[]', ?)`,
        [b.tenantId, about.id, Date.now()],
      );
    }

    beforeAll(async () => {
      long = await created(a.manager.post('/api/customers', { external_id: 'long' }));
      other = await created(a.manager.post('/api/customers', { external_id: 'interleaved' }));
      await seedHistory(long, other);
    });

    const ascending = (ids: number[]) => ids.every((id, i) => i === 0 || id > ids[i - 1]);

    it('exports every entry and event, oldest first, across several batches', async () => {
      expect(t.app.get(CustomerHandoverService).historyRows).toBe(1000);
      const { activity, events } = (await dataOf(exportOf(a.manager, long.id))) as unknown as {
        activity: Row[];
        events: Row[];
      };
      const mine = SEEDED - SEEDED / 4;
      expect(activity).toHaveLength(1 + mine);
      expect(activity[0]).toMatchObject({ event: 'created', subject_id: long.id });
      expect(activity.every((entry) => entry.subject_type === 'Customer' && entry.subject_id === long.id)).toBe(true);
      expect(ascending(activity.map((entry) => entry.id))).toBe(true);
      expect(activity.slice(1).map((entry) => entry.batch_uuid)).toEqual(
        Array.from({ length: SEEDED }, (_, i) => i)
          .filter((i) => i % 4 !== 3)
          .map((i) => `seed-${i}`),
      );
      expect(activity[activity.length - 1]).toMatchObject({
        properties: { attributes: { first_name: `n${SEEDED - 2}` }, old: { first_name: `n${SEEDED - 3}` } },
      });

      expect(events).toHaveLength(1 + mine);
      expect(events[0]).toMatchObject({ type: 'customer.created', resource_id: long.id });
      expect(events.every((event) => event.resource === 'customer' && event.resource_id === long.id)).toBe(true);
      expect(ascending(events.map((event) => Number(String(event.id).slice(4))))).toBe(true);
      // Numbered by the export's catch-up, in the order of their ids.
      expect(ascending(events.map((event) => event.sequence as number))).toBe(true);
      expect(events.slice(1).map((event) => event.request_id)).toEqual(activity.slice(1).map((e) => e.batch_uuid));

      // The feed agrees on every event.
      expect(events).toEqual(await feedOf(admin, long.id));
    });

    it('merges the histories of the customers merged into it, in id order', async () => {
      const service = t.app.get(CustomerHandoverService);
      service.historyRows = 700;
      try {
        const merged = await a.manager.post(`/api/customers/${long.id}/merge`, { from: [other.id] });
        expect(merged.status).toBe(200);
        const {
          customer: record,
          activity,
          events,
        } = (await dataOf(exportOf(a.manager, long.id))) as unknown as {
          customer: Row;
          activity: Row[];
          events: Row[];
        };
        expect(record.id).toBe(long.id);
        // Both creations, the seeded rows, and the merge: the survivor's update and the source's deletion.
        expect(activity).toHaveLength(4 + SEEDED);
        expect(ascending(activity.map((entry) => entry.id))).toBe(true);
        expect(activity.map((entry) => entry.batch_uuid).filter((id) => String(id).startsWith('seed-'))).toEqual(
          Array.from({ length: SEEDED }, (_, i) => `seed-${i}`),
        );
        expect(new Set(activity.map((entry) => entry.subject_id))).toEqual(new Set([long.id, other.id]));
        expect(activity.slice(-2).map((entry) => [entry.subject_id, entry.description])).toEqual(
          expect.arrayContaining([
            [long.id, 'merged'],
            [other.id, 'merged'],
          ]),
        );
        expect(events).toHaveLength(4 + SEEDED);
        expect(ascending(events.map((event) => Number(String(event.id).slice(4))))).toBe(true);
        expect(events.map((event) => event.request_id).filter((id) => String(id).startsWith('seed-'))).toEqual(
          Array.from({ length: SEEDED }, (_, i) => `seed-${i}`),
        );
        expect(events.find((event) => event.type === 'customer.deleted')).toMatchObject({
          resource_id: other.id,
          data: { id: other.id, reason: 'merged', merged_into: long.id },
        });
      } finally {
        service.historyRows = 1000;
      }
    });
  });
});
