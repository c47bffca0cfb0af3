import type { FeedEvent as PublishedEvent } from '../src/common/events/change-feed.js';
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { login } from './support/auth.js';
import {
  ISO,
  MISSING_IDS,
  client,
  created,
  dataOf,
  invalidOn,
  outcome,
  type Body,
  type Client,
  type Row,
} from './support/campaign-fixtures.js';
import { newTenant, newUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const unique = () => randomBytes(4).toString('hex');

/** An event as the feed answers it, its data a record's answer (or a tombstone). */
type FeedEvent = Omit<PublishedEvent, 'data'> & { data: Row | null };

interface Entry {
  id: number;
  event: string;
  description: string;
  subject_type: string;
  subject_id: number;
  causer_id: number | null;
  properties: { attributes: Record<string, unknown>; old: Record<string, unknown> | null };
}

/** Every event after `cursor`, following `meta.next_cursor` until `has_more` is false; and the cursor to go on from. */
async function follow(api: Client, cursor?: string): Promise<{ events: FeedEvent[]; cursor: string }> {
  const events: FeedEvent[] = [];
  for (;;) {
    const res = await api.get('/api/events', { limit: 1000, ...(cursor ? { cursor } : {}) });
    if (res.status !== 200) throw new Error(`feed: ${res.status} ${JSON.stringify(res.body)}`);
    events.push(...(res.body.data as FeedEvent[]));
    cursor = res.body.meta.next_cursor as string;
    if (!res.body.meta.has_more) return { events, cursor };
  }
}

/** The events of a list as `type id` lines, sorted: what happened, to which records. */
const kinds = (events: FeedEvent[]) => events.map((e) => `${e.type} ${e.resource_id}`).sort();

describe('mergeCustomers: POST /api/customers/{id}/merge', () => {
  let t: TestApp;
  let root: string;
  let admin: Client;
  let adminId: number;
  let manager: Client;
  let viewer: Client;
  /** An admin of another tenant. */
  let other: Client;

  beforeAll(async () => {
    t = await createTestApp({
      config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000, webhooks: { worker: false } },
    });
    root = await login(t);
    const tenant = await newTenant(t, root);
    const user = await newUser(t, root, ['admin'], tenant.id);
    adminId = user.id;
    admin = client(t, user.token);
    manager = client(t, (await newUser(t, root, ['manager'], tenant.id)).token);
    viewer = client(t, (await newUser(t, root, ['viewer'], tenant.id)).token);
    const otherTenant = await newTenant(t, root);
    other = client(t, (await newUser(t, root, ['admin'], otherTenant.id)).token);
  });
  afterAll(() => t.close());

  const customer = (body: Body = {}, api: Client = admin) => created(api.post('/api/customers', body));
  /** Customers made by one batch upsert (the same fields as one by one), in the order given. */
  const customers = async (items: Body[]): Promise<number[]> => {
    const results = (await dataOf(admin.post('/api/customers/batch', { items }))) as unknown as Row[];
    expect(results.map((r) => r.status)).toEqual(items.map(() => 'created'));
    return results.map((r) => r.id as number);
  };
  const merge = (id: number | string, body: object, api: Client = admin) =>
    api.post(`/api/customers/${id}/merge`, body);
  /** The answer of a merge that must succeed. */
  const merged = async (res: Response | Promise<Response>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`expected 200, got ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as { code: number; message: string; data: Row; meta: { merged: number[] } };
  };
  const get = (id: number, api: Client = admin) => api.get(`/api/customers/${id}`);
  const head = async (api: Client = admin) => (await follow(api)).cursor;
  const log = async (id: number, api: Client = admin) =>
    (await dataOf(
      api.get('/api/admin/activity-log', { subject_type: 'Customer', subject_id: id, limit: 100 }),
    )) as unknown as Entry[];
  /** What a merge that writes nothing leaves as it was: each record's GET and its activity entries. */
  const stateOf = (ids: number[]) =>
    Promise.all(
      ids.map(async (id) => {
        const res = await get(id);
        return { id, status: res.status, data: res.body.data ?? null, log: (await log(id)).map((e) => e.id) };
      }),
    );

  describe('the merged values', () => {
    it("fills the survivor's empty fields from the first source that has a value, keeps its own on conflict, deletes the sources", async () => {
      const u = unique();
      const survivor = await customer({
        first_name: 'Ada',
        last_name: '',
        email: null,
        phone: null,
        attributes: '{"tier":"gold","score":1.50,"note":""}',
        is_active: true,
      });
      const first = await customer({
        external_id: `m1-${u}`,
        first_name: 'Augusta',
        last_name: '',
        email: 'augusta@example.com',
        attributes: '{"tier":"silver","note":"from the first","city":"London"}',
        is_active: false,
      });
      const second = await customer({
        external_id: `m2-${u}`,
        last_name: 'Lovelace',
        email: 'ada.lovelace@example.com',
        phone: '+44 20 7946 0000',
        attributes: '{"city":"Paris","lang":"en","note":"from the second"}',
      });
      const before = await head();

      const answer = await merged(merge(survivor.id, { from: [first.id, second.id], prefer: 'target' }));
      const now = await dataOf(get(survivor.id));
      expect(answer).toEqual({
        code: 200,
        message: expect.any(String),
        data: now,
        meta: { merged: [first.id, second.id] },
      });
      expect(now).toEqual({
        ...survivor,
        last_name: 'Lovelace',
        email: 'augusta@example.com',
        phone: '+44 20 7946 0000',
        // The first source's external id moves to the survivor, which had none; is_active keeps the survivor's.
        external_id: `m1-${u}`,
        attributes: expect.any(String),
        updated_at: ISO,
      });
      expect(JSON.parse(now.attributes as string)).toEqual({
        tier: 'gold',
        score: 1.5,
        note: 'from the first',
        city: 'London',
        lang: 'en',
      });
      for (const source of [first, second]) {
        const res = await get(source.id);
        expect({ id: source.id, status: res.status }).toEqual({ id: source.id, status: 404 });
      }
      expect(await dataOf(admin.get('/api/customers', { external_id: `m1-${u}` }))).toEqual([now]);
      expect(await dataOf(admin.get('/api/customers', { external_id: `m2-${u}` }))).toEqual([]);

      // The feed: one update of the survivor (as its GET shows it), one tombstone per source.
      const events = (await follow(admin, before)).events;
      expect(kinds(events)).toEqual(
        [`customer.updated ${survivor.id}`, `customer.deleted ${first.id}`, `customer.deleted ${second.id}`].sort(),
      );
      const update = events.find((e) => e.type === 'customer.updated')!;
      expect(update.data).toEqual(now);
      expect([...update.changes].sort()).toEqual(['attributes', 'email', 'external_id', 'last_name', 'phone']);
      for (const source of [first, second]) {
        const deletion = events.find((e) => e.type === 'customer.deleted' && e.resource_id === source.id)!;
        expect(deletion.data).toEqual({
          id: source.id,
          deleted_at: expect.stringMatching(/Z$/),
          reason: 'merged',
          merged_into: survivor.id,
        });
      }
      expect(events.map((e) => e.causer)).toEqual(events.map(() => ({ type: 'user', id: adminId })));
      expect(new Set(events.map((e) => e.request_id)).size).toBe(1);

      // The activity log: one new entry per record.
      const [entry, ...older] = await log(survivor.id);
      expect(older.map((e) => e.event)).toEqual(['created']);
      expect(entry).toMatchObject({
        event: 'updated',
        description: 'merged',
        subject_type: 'Customer',
        subject_id: survivor.id,
        causer_id: adminId,
      });
      expect(entry.properties).toEqual({
        attributes: {
          last_name: 'Lovelace',
          email: 'augusta@example.com',
          phone: '+44 20 7946 0000',
          external_id: `m1-${u}`,
          attributes: now.attributes,
        },
        old: { last_name: '', email: null, phone: null, external_id: null, attributes: survivor.attributes },
      });
      for (const source of [first, second]) {
        const entries = await log(source.id);
        expect({ id: source.id, entries: entries.map((e) => [e.event, e.description]) }).toEqual({
          id: source.id,
          entries: [
            ['deleted', 'merged'],
            ['created', 'created'],
          ],
        });
      }

      // The second source's external id is free again; a new customer may take it.
      expect((await customer({ external_id: `m2-${u}` })).external_id).toBe(`m2-${u}`);
    });

    it("with prefer: source, a conflict takes the first source's non-empty value, but external_id never replaces the survivor's", async () => {
      const u = unique();
      const survivor = await customer({
        external_id: `keep-${u}`,
        first_name: 'Ada',
        last_name: 'King',
        email: 'ada.king@example.com',
        phone: '',
        attributes: '{"tier":"gold","score":1,"kept":"yes"}',
        is_active: true,
      });
      const first = await customer({
        external_id: `src1-${u}`,
        first_name: '',
        last_name: 'Lovelace',
        email: null,
        attributes: '{"tier":"","score":2}',
        is_active: false,
      });
      const second = await customer({
        external_id: `src2-${u}`,
        first_name: 'Augusta',
        email: 'augusta@example.com',
        phone: '+44 1',
        attributes: '{"tier":"platinum","extra":true,"score":3}',
      });
      const answer = await merged(merge(survivor.id, { from: [first.id, second.id], prefer: 'source' }));
      const now = await dataOf(get(survivor.id));
      expect(answer.data).toEqual(now);
      expect(now).toEqual({
        ...survivor,
        first_name: 'Augusta',
        last_name: 'Lovelace',
        email: 'augusta@example.com',
        phone: '+44 1',
        is_active: false,
        attributes: expect.any(String),
        updated_at: ISO,
      });
      expect(JSON.parse(now.attributes as string)).toEqual({ tier: 'platinum', score: 2, kept: 'yes', extra: true });
      // The sources' external ids went with them.
      for (const key of [`src1-${u}`, `src2-${u}`]) {
        expect(await dataOf(admin.get('/api/customers', { external_id: key }))).toEqual([]);
      }
    });

    it('keeps an external_id that is an empty string (a value, not none), and moves the first one a source has', async () => {
      const u = unique();
      const empty = await customer({ external_id: '' });
      const source = await customer({ external_id: `e-${u}`, first_name: 'Moved' });
      const kept = await merged(merge(empty.id, { from: [source.id], prefer: 'source' }));
      expect(kept.data).toMatchObject({ id: empty.id, external_id: '', first_name: 'Moved' });

      const none = await customer({ external_id: null });
      const without = await customer({ external_id: null, first_name: 'No key' });
      const withKey = await customer({ external_id: `second-${u}` });
      const answer = await merged(merge(none.id, { from: [without.id, withKey.id] }));
      expect(answer.data).toMatchObject({ external_id: `second-${u}`, first_name: 'No key' });
    });

    it("keeps the survivor's attributes text byte for byte when no key changes, and still records the merge", async () => {
      const ATTRIBUTES = '{"tier" : "gold", "tags":["vip","€","🎯"], "score": 1.50 }';
      const survivor = await customer({ first_name: 'Ada', attributes: ATTRIBUTES });
      // Conflicts only, the survivor preferred: nothing of the survivor changes.
      const conflicting = await customer({ first_name: 'Other', attributes: '{"tier":"silver","score":2,"tags":[]}' });
      let before = await head();
      let answer = await merged(merge(survivor.id, { from: [conflicting.id] }));
      let now = await dataOf(get(survivor.id));
      expect(answer.data).toEqual(now);
      expect(now).toEqual({ ...survivor, updated_at: ISO });
      expect(now.attributes).toBe(ATTRIBUTES);
      let events = (await follow(admin, before)).events;
      expect(kinds(events)).toEqual([`customer.deleted ${conflicting.id}`, `customer.updated ${survivor.id}`].sort());
      expect(events.find((e) => e.type === 'customer.updated')!.data).toEqual(now);
      expect((await log(survivor.id)).map((e) => [e.event, e.description])).toEqual([
        ['updated', 'merged'],
        ['created', 'created'],
      ]);

      // The source preferred, with the same values written differently: no key changes either.
      const same = await customer({ attributes: '{"score":1.5,"tags":["vip","€","🎯"],"tier":"gold"}' });
      before = await head();
      answer = await merged(merge(survivor.id, { from: [same.id], prefer: 'source' }));
      now = await dataOf(get(survivor.id));
      expect(answer.data).toEqual(now);
      expect(now.attributes).toBe(ATTRIBUTES);
      events = (await follow(admin, before)).events;
      expect(kinds(events)).toEqual([`customer.deleted ${same.id}`, `customer.updated ${survivor.id}`].sort());
      expect((await log(survivor.id)).map((e) => e.description)).toEqual(['merged', 'merged', 'created']);

      // A survivor without attributes takes a source's object.
      const bare = await customer({ attributes: null });
      const rich = await customer({ attributes: '{"tier":"bronze","tags":["€"]}' });
      answer = await merged(merge(bare.id, { from: [rich.id] }));
      expect(JSON.parse(answer.data.attributes as string)).toEqual({ tier: 'bronze', tags: ['€'] });
    });

    // Fails today (merge-plan.ts, mergedAttributes): a source's text that is no object is skipped, so the
    // survivor keeps its empty attributes and the source's value is deleted with the source.
    it("gives a survivor without attributes a source's attributes that are no object (the field as a whole)", async () => {
      const texts = ['["vip","newsletter"]', '"vip"', '42'];
      const results = [];
      for (const attributes of texts) {
        const survivor = await customer({ first_name: 'Kept', attributes: null });
        const source = await customer({ attributes });
        const preview = await merged(merge(survivor.id, { from: [source.id], dry_run: true }));
        await merged(merge(survivor.id, { from: [source.id] }));
        const stored = (await dataOf(get(survivor.id))).attributes;
        results.push({ attributes, preview: preview.data.attributes, stored });
      }
      expect(results).toEqual(texts.map((attributes) => ({ attributes, preview: attributes, stored: attributes })));
    });

    // Fails today (merge-plan.ts, mergedAttributes): `base[key]` reads inherited members (a survivor without
    // the key "has" Object.prototype.constructor), and `merged[key] = value` with "__proto__" sets the prototype.
    it('takes attribute keys named like members of every object (constructor, toString, __proto__) from the sources', async () => {
      const keys = '{"constructor":"ACME Builders","toString":"x","__proto__":{"a":1},"plain":true}';
      const entries = (text: unknown) => (text === null ? null : Object.entries(JSON.parse(text as string)).sort());
      const cases: [string | null, string][] = [
        ['{"tier":"gold"}', 'target'],
        [null, 'target'],
        ['{"tier":"gold"}', 'source'],
      ];
      const results = [];
      for (const [attributes, prefer] of cases) {
        const survivor = await customer({ attributes });
        const source = await customer({ attributes: keys });
        const answer = await merged(merge(survivor.id, { from: [source.id], prefer }));
        results.push({ attributes, prefer, merged: entries(answer.data.attributes) });
      }
      expect(results).toEqual(
        cases.map(([attributes, prefer]) => ({
          attributes,
          prefer,
          merged: [
            ...(attributes ? [['tier', 'gold']] : []),
            ['__proto__', { a: 1 }],
            ['constructor', 'ACME Builders'],
            ['plain', true],
            ['toString', 'x'],
          ].sort(),
        })),
      );
    });

    it('merges 50 sources, each taking its turn in the order given', async () => {
      const u = unique();
      const survivor = await customer({});
      const ids = await customers(
        Array.from({ length: 50 }, (_, i) => ({
          external_id: `fifty-${u}-${i}`,
          first_name: i % 2 ? `F${i}` : null,
          last_name: i === 7 ? 'Seven' : null,
          email: `s${i}@example.com`,
          phone: i >= 40 ? `+31 ${i}` : '',
          attributes: JSON.stringify({ [`k${i}`]: i, shared: `s${i}` }),
        })),
      );
      const before = await head();
      const answer = await merged(merge(survivor.id, { from: ids }));
      const now = await dataOf(get(survivor.id));
      expect(answer).toEqual({ code: 200, message: expect.any(String), data: now, meta: { merged: ids } });
      expect(now).toEqual({
        ...survivor,
        external_id: `fifty-${u}-0`,
        first_name: 'F1',
        last_name: 'Seven',
        email: 's0@example.com',
        phone: '+31 40',
        attributes: expect.any(String),
        updated_at: ISO,
      });
      expect(JSON.parse(now.attributes as string)).toEqual({
        shared: 's0',
        ...Object.fromEntries(ids.map((_, i) => [`k${i}`, i])),
      });
      const events = (await follow(admin, before)).events;
      expect(kinds(events)).toEqual(
        [`customer.updated ${survivor.id}`, ...ids.map((id) => `customer.deleted ${id}`)].sort(),
      );
      const gone = await Promise.all(ids.map(async (id) => (await get(id)).status));
      expect(gone).toEqual(ids.map(() => 404));
    });
  });

  describe('tracked events', () => {
    it("moves the sources' tracked events to the survivor, ids and names as they were", async () => {
      const [survivor, first, second] = await customers([{}, {}, {}]);
      const track = (customerId: number, message: string, event: string) => ({
        message_id: `merge-${message}-${unique()}`,
        customer_id: customerId,
        event,
      });
      const res = await admin.post('/api/track', {
        events: [track(survivor, 's', 'login'), track(first, 'f', 'purchase'), track(second, 'g', 'purchase')],
      });
      expect(res.body.meta.accepted).toBe(3);
      const ids = (res.body.data as Row[]).map((r) => r.id as number);
      const names = await dataOf(admin.get('/api/event-names', { sort: 'name' }));
      await merged(merge(survivor, { from: [first, second] }));
      const events = (await dataOf(admin.get(`/api/customers/${survivor}/events`, { sort: 'timestamp' }))) as Row[];
      expect(events.map((e) => e.id).sort()).toEqual([...ids].sort());
      expect(events.every((e) => e.customer_id === survivor)).toBe(true);
      expect(await dataOf(admin.get('/api/event-names', { sort: 'name' }))).toEqual(names);
      // The sources are gone, and so is the list of their events.
      expect((await admin.get(`/api/customers/${first}/events`)).status).toBe(404);
    });
  });

  describe('dry_run', () => {
    it('answers what the survivor would become and writes nothing', async () => {
      const u = unique();
      const survivor = await customer({ first_name: null, last_name: 'Hopper', attributes: '{"a":1}' });
      const source = await customer({
        external_id: `dry-${u}`,
        first_name: 'Grace',
        last_name: 'Murray',
        attributes: '{"a":2,"b":3}',
      });
      const state = await stateOf([survivor.id, source.id]);
      const before = await head();
      const previews: Record<string, Row> = {};
      for (const prefer of [undefined, 'target', 'source']) {
        const res = await merge(survivor.id, { from: [source.id], dry_run: true, ...(prefer ? { prefer } : {}) });
        expect({ prefer, status: res.status }).toEqual({ prefer, status: 200 });
        expect(res.body).toEqual({
          code: 200,
          message: expect.any(String),
          data: {
            ...survivor,
            first_name: 'Grace',
            last_name: prefer === 'source' ? 'Murray' : 'Hopper',
            external_id: `dry-${u}`,
            attributes: expect.any(String),
            updated_at: ISO,
          },
          meta: { merged: [source.id] },
        });
        expect(JSON.parse(res.body.data.attributes)).toEqual(prefer === 'source' ? { a: 2, b: 3 } : { a: 1, b: 3 });
        previews[prefer ?? 'default'] = res.body.data;
      }
      // Nothing written: the survivor as it was, the source still there, no entry, no event.
      expect(await stateOf([survivor.id, source.id])).toEqual(state);
      expect((await follow(admin, before)).events).toEqual([]);

      // The merge itself makes the survivor what the dry run showed.
      const answer = await merged(merge(survivor.id, { from: [source.id], prefer: 'source', dry_run: false }));
      expect(answer.data).toEqual({ ...previews.source, updated_at: ISO });
      expect((await get(source.id)).status).toBe(404);
    });
  });

  describe('refusals', () => {
    it('answers 422 on from for the survivor itself, a missing, deleted or foreign source, a repeat, 0 or 51 ids, a non-integer', async () => {
      const survivor = await customer({ first_name: 'Kept' });
      const source = await customer({ first_name: 'Source' });
      const theirs = await customer({ first_name: 'Theirs' }, other);
      const gone = await customer();
      await dataOf(admin.delete(`/api/customers/${gone.id}`));
      const fiftyOne = await customers(Array.from({ length: 51 }, (_, i) => ({ first_name: `Many ${i}` })));
      const state = await stateOf([survivor.id, source.id, ...fiftyOne.slice(0, 3)]);
      const before = await head();

      const cases: [string, Body][] = [
        ['the survivor itself', { from: [survivor.id] }],
        ['the survivor among others', { from: [source.id, survivor.id] }],
        ['the survivor as a digit string', { from: [String(survivor.id)] }],
        ['a missing customer', { from: [source.id, 999999999] }],
        ['a deleted customer', { from: [gone.id] }],
        ["another tenant's customer", { from: [source.id, theirs.id] }],
        ['a source listed twice', { from: [source.id, source.id] }],
        ['a source twice, once as a digit string', { from: [source.id, String(source.id)] }],
        ['an empty list', { from: [] }],
        ['51 customers', { from: fiftyOne }],
        ['a fraction', { from: [1.5] }],
        ['a fraction as a string', { from: ['1.5'] }],
        ['a word', { from: ['abc'] }],
        ['null', { from: [null] }],
        ['zero', { from: [0] }],
        ['a negative id', { from: [-source.id] }],
        ['a boolean', { from: [true] }],
        ['a nested list', { from: [[source.id]] }],
        ['an id beyond 2^53', { from: [2 ** 53 + 2] }],
        ['one id, not a list', { from: source.id }],
        ['from null', { from: null }],
        ['no from', {}],
        ['the survivor itself, dry run', { from: [survivor.id], dry_run: true }],
        ['a missing customer, dry run', { from: [999999999], dry_run: true }],
        ["another tenant's customer, dry run", { from: [theirs.id], dry_run: true }],
      ];
      for (const [name, body] of cases) {
        const res = await merge(survivor.id, body);
        expect({ name, ...outcome(res) }).toEqual({ name, ...invalidOn('from') });
        expect(res.body.errors.from).toEqual([expect.any(String)]);
      }
      for (const [body, key] of [
        [{ from: [source.id], prefer: 'both' }, 'prefer'],
        [{ from: [source.id], prefer: null }, 'prefer'],
        [{ from: [source.id], dry_run: 'maybe' }, 'dry_run'],
      ] as [Body, string][]) {
        expect({ body, ...outcome(await merge(survivor.id, body)) }).toEqual({ body, ...invalidOn(key) });
      }
      expect(await stateOf([survivor.id, source.id, ...fiftyOne.slice(0, 3)])).toEqual(state);
      expect(await dataOf(get(theirs.id, other))).toEqual(theirs);
      expect((await follow(admin, before)).events).toEqual([]);
    });

    it("answers 404 for an unknown or malformed survivor id and for another tenant's, merged away there or not", async () => {
      const mine = await customer({ first_name: 'Mine' });
      const theirs = await customer({ first_name: 'Theirs' }, other);
      const theirSource = await customer({ first_name: 'Their source' }, other);
      const theirMerged = await customer({ first_name: 'Merged there' }, other);
      await merged(merge(theirSource.id, { from: [theirMerged.id] }, other));
      const deleted = await customer({ first_name: 'Deleted' });
      await dataOf(admin.delete(`/api/customers/${deleted.id}`));
      const state = await stateOf([mine.id]);
      const before = await head();
      const cases: [string, Body][] = [
        [String(deleted.id), { from: [mine.id] }],
        [String(theirs.id), { from: [mine.id] }],
        [String(theirs.id), { from: [theirSource.id] }],
        [String(theirs.id), { from: [mine.id], dry_run: true }],
        // Merged away in the other tenant: no 409 that would tell of it.
        [String(theirMerged.id), { from: [mine.id] }],
        ...MISSING_IDS.map((id): [string, Body] => [id, { from: [mine.id] }]),
      ];
      for (const [id, body] of cases) {
        const res = await merge(id, body);
        expect({ id, body, status: res.status }).toEqual({ id, body, status: 404 });
        expect(res.body).toEqual({ message: expect.any(String) });
      }
      expect(await stateOf([mine.id])).toEqual(state);
      expect(await dataOf(get(theirs.id, other))).toEqual(theirs);
      expect((await dataOf(get(theirSource.id, other))).first_name).toBe('Their source');
      expect((await follow(admin, before)).events).toEqual([]);
    });

    it('answers 409 naming the survivor for a merge into a customer merged away; as a source it is a 422', async () => {
      const survivor = await customer({ first_name: 'Survivor' });
      const source = await customer({ last_name: 'Source' });
      const third = await customer({ email: 'third@example.com' });
      await merged(merge(survivor.id, { from: [source.id] }));
      const state = await stateOf([survivor.id, third.id]);
      const before = await head();
      for (const body of [{ from: [survivor.id] }, { from: [third.id] }, { from: [third.id], dry_run: true }]) {
        const res = await merge(source.id, body);
        expect({ body, status: res.status }).toEqual({ body, status: 409 });
        expect(res.body).toEqual({ message: expect.stringMatching(new RegExp(`\\b${survivor.id}\\b`)) });
      }
      expect(outcome(await merge(third.id, { from: [source.id] }))).toEqual(invalidOn('from'));
      for (const res of [
        await get(source.id),
        await admin.put(`/api/customers/${source.id}`, { first_name: 'Back' }),
        await admin.delete(`/api/customers/${source.id}`),
      ]) {
        expect(res.status).toBe(404);
      }
      expect(await stateOf([survivor.id, third.id])).toEqual(state);
      expect((await follow(admin, before)).events).toEqual([]);
    });

    it("answers 422 on email when the survivor would take a source's e-mail address that an erasure has suppressed since, and changes nothing", async () => {
      const u = unique();
      const email = `suppressed-${u}@example.com`;
      const survivor = await customer({ first_name: 'Survivor' });
      const source = await customer({ first_name: 'Source', email });
      // Another customer with the same address is erased: the address is on the suppression list now.
      const erased = await customer({ first_name: 'Erased', email });
      expect((await admin.post(`/api/customers/${erased.id}/erase`)).status).toBe(202);
      const before = await stateOf([survivor.id as number, source.id as number]);
      const res = await merge(survivor.id as number, { from: [source.id] });
      expect({ status: res.status, errors: res.body.errors }).toEqual({
        status: 422,
        errors: { email: ['The email is suppressed by an erasure request.'] },
      });
      expect(await stateOf([survivor.id as number, source.id as number])).toEqual(before);
    });

    it('needs customers.manage: a viewer gets 403, no token 401; a manager may merge', async () => {
      const survivor = await customer({ first_name: null });
      const source = await customer({ first_name: 'Managed' });
      const state = await stateOf([survivor.id, source.id]);
      for (const body of [{ from: [source.id] }, { from: [source.id], dry_run: true }]) {
        const res = await merge(survivor.id, body, viewer);
        expect({ body, status: res.status, answer: res.body }).toEqual({
          body,
          status: 403,
          answer: { message: 'This action is unauthorized.' },
        });
        expect((await t.http.post(`/api/customers/${survivor.id}/merge`).send(body)).status).toBe(401);
      }
      expect(await stateOf([survivor.id, source.id])).toEqual(state);
      const answer = await merged(merge(survivor.id, { from: [source.id] }, manager));
      expect(answer.data).toMatchObject({ id: survivor.id, first_name: 'Managed' });
    });
  });

  describe('Idempotency-Key', () => {
    const post = (id: number, body: object, key: string) =>
      t.http
        .post(`/api/customers/${id}/merge`)
        .set('Authorization', admin.token)
        .set('Idempotency-Key', key)
        .send(body);

    it('replays the first answer, meta included, and changes nothing', async () => {
      const survivor = await customer({ first_name: null });
      const source = await customer({ first_name: 'Once', external_id: `idem-${unique()}` });
      const key = `merge-${unique()}`;
      const first = await post(survivor.id, { from: [source.id] }, key);
      expect(first.status).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(first.body.meta).toEqual({ merged: [source.id] });
      const state = await stateOf([survivor.id, source.id]);
      const before = await head();

      const again = await post(survivor.id, { from: [source.id] }, key);
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await stateOf([survivor.id, source.id])).toEqual(state);
      expect((await follow(admin, before)).events).toEqual([]);

      // The key with another request is refused; the request without a key finds the source gone.
      const reused = await post(survivor.id, { from: [source.id], prefer: 'source' }, key);
      expect(outcome(reused)).toEqual(invalidOn('Idempotency-Key'));
      expect(outcome(await merge(survivor.id, { from: [source.id] }))).toEqual(invalidOn('from'));
      expect(await stateOf([survivor.id, source.id])).toEqual(state);
    });
  });

  describe('racing merges', () => {
    /** Exactly one 200, the others 409 or 422 (never a 500); the index of the winner. */
    const oneWinner = (answers: Response[]) => {
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      for (const res of answers.filter((r) => r.status !== 200)) {
        const refusal = { status: res.status, errors: Object.keys(res.body.errors ?? {}) };
        expect([
          { status: 409, errors: [] },
          { status: 422, errors: ['from'] },
        ]).toContainEqual(refusal);
      }
      return statuses.indexOf(200);
    };

    it('of merges into different survivors of one source, one wins; the others change nothing', async () => {
      for (let round = 0; round < 4; round++) {
        const survivors = [
          await customer({ first_name: null }),
          await customer({ first_name: null }),
          ...(round % 2 ? [await customer({ first_name: null })] : []),
        ];
        const source = await customer({ first_name: `C${round}`, external_id: `race-${unique()}` });
        const before = await head();
        const answers = await Promise.all(survivors.map((s) => merge(s.id, { from: [source.id] })));
        const winner = survivors[oneWinner(answers)];
        const losers = survivors.filter((s) => s !== winner);
        const won = await dataOf(get(winner.id));
        expect(won).toMatchObject({ first_name: `C${round}`, external_id: source.external_id });
        for (const loser of losers) expect(await dataOf(get(loser.id))).toEqual(loser);
        expect((await get(source.id)).status).toBe(404);
        const events = (await follow(admin, before)).events;
        expect(kinds(events)).toEqual([`customer.deleted ${source.id}`, `customer.updated ${winner.id}`].sort());
        expect(events.find((e) => e.type === 'customer.deleted')!.data).toMatchObject({ merged_into: winner.id });
        expect((await log(source.id)).map((e) => e.event)).toEqual(['deleted', 'created']);
        for (const loser of losers) expect((await log(loser.id)).map((e) => e.event)).toEqual(['created']);
      }
    });

    it("of A←[B] and B←[A] at once, one wins with both records' values; the other record is deleted once", async () => {
      for (let round = 0; round < 4; round++) {
        const a = await customer({ first_name: `A${round}`, email: null });
        const b = await customer({ first_name: null, email: `b${round}-${unique()}@example.com` });
        const before = await head();
        const answers = await Promise.all([merge(a.id, { from: [b.id] }), merge(b.id, { from: [a.id] })]);
        const [winner, loser] = oneWinner(answers) === 0 ? [a, b] : [b, a];
        expect(await dataOf(get(winner.id))).toMatchObject({ first_name: `A${round}`, email: b.email });
        expect((await get(loser.id)).status).toBe(404);
        const events = (await follow(admin, before)).events;
        expect(kinds(events)).toEqual([`customer.deleted ${loser.id}`, `customer.updated ${winner.id}`].sort());
        expect(events.find((e) => e.type === 'customer.deleted')!.data).toMatchObject({ merged_into: winner.id });
        expect((await log(loser.id)).map((e) => e.event)).toEqual(['deleted', 'created']);
        expect((await log(winner.id)).map((e) => e.description)).toEqual(['merged', 'created']);
      }
    });

    it('of A←[C, D] and B←[D, C] at once, one takes both sources, each deleted once', async () => {
      for (let round = 0; round < 4; round++) {
        const a = await customer({ last_name: null });
        const b = await customer({ last_name: null });
        const c = await customer({ last_name: `C${round}` });
        const d = await customer({ last_name: `D${round}`, phone: `+1 ${round}` });
        const before = await head();
        const answers = await Promise.all([merge(a.id, { from: [c.id, d.id] }), merge(b.id, { from: [d.id, c.id] })]);
        const first = oneWinner(answers) === 0;
        const [winner, loser] = first ? [a, b] : [b, a];
        expect(await dataOf(get(winner.id))).toMatchObject({
          last_name: first ? `C${round}` : `D${round}`,
          phone: `+1 ${round}`,
        });
        expect(await dataOf(get(loser.id))).toEqual(loser);
        const events = (await follow(admin, before)).events;
        expect(kinds(events)).toEqual(
          [`customer.deleted ${c.id}`, `customer.deleted ${d.id}`, `customer.updated ${winner.id}`].sort(),
        );
      }
    });
    it('of A←[B] and B←[C] at once, either order is a whole one: nothing of C is lost, nothing deleted twice', async () => {
      for (let round = 0; round < 4; round++) {
        const a = await customer({ first_name: null, phone: null });
        const b = await customer({ first_name: `B${round}`, phone: null });
        const c = await customer({ first_name: `C${round}`, phone: `+2 ${round}` });
        const before = await head();
        const [intoA, intoB] = await Promise.all([merge(a.id, { from: [b.id] }), merge(b.id, { from: [c.id] })]);
        // A←[B] always finds B; B←[C] either ran first (200, and B brought C's values into A) or found B merged away (409).
        expect(intoA.status).toBe(200);
        expect([200, 409]).toContain(intoB.status);
        const events = (await follow(admin, before)).events;
        const deletions = events.filter((e) => e.type === 'customer.deleted');
        expect(new Set(deletions.map((e) => e.resource_id)).size).toBe(deletions.length);
        expect((await get(b.id)).status).toBe(404);
        if (intoB.status === 200) {
          expect(await dataOf(get(a.id))).toMatchObject({ first_name: `B${round}`, phone: `+2 ${round}` });
          expect((await get(c.id)).status).toBe(404);
          expect(deletions.map((e) => [e.resource_id, e.data!.merged_into]).sort()).toEqual(
            [
              [b.id, a.id],
              [c.id, b.id],
            ].sort(),
          );
        } else {
          expect(intoB.body.message).toMatch(new RegExp(`\\b${a.id}\\b`));
          expect(await dataOf(get(a.id))).toMatchObject({ first_name: `B${round}`, phone: null });
          expect(await dataOf(get(c.id))).toEqual(c);
          expect(deletions.map((e) => [e.resource_id, e.data!.merged_into])).toEqual([[b.id, a.id]]);
        }
      }
    });
  });

  describe('tenants', () => {
    it('shows the other tenant nothing of a merge', async () => {
      const u = unique();
      const theirs = await customer({ external_id: `shared-${u}`, first_name: 'Theirs' }, other);
      const survivor = await customer({ first_name: null });
      const source = await customer({ external_id: `shared-${u}`, first_name: 'Mine' });
      const theirBefore = await head(other);
      await merged(merge(survivor.id, { from: [source.id] }));
      expect((await follow(other, theirBefore)).events).toEqual([]);
      for (const id of [survivor.id, source.id]) {
        expect((await get(id, other)).status).toBe(404);
        expect(await log(id, other)).toEqual([]);
      }
      expect(await dataOf(get(theirs.id, other))).toEqual(theirs);
      expect(await dataOf(other.get('/api/customers', { external_id: `shared-${u}` }))).toEqual([theirs]);
      // Nor can it merge the tenant's records, into its own or into them.
      expect((await merge(survivor.id, { from: [theirs.id] }, other)).status).toBe(404);
      expect(outcome(await merge(theirs.id, { from: [survivor.id] }, other))).toEqual(invalidOn('from'));
      expect(await dataOf(get(theirs.id, other))).toEqual(theirs);
    });
  });
});
