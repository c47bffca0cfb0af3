import { login } from './support/auth.js';
import {
  ISO,
  MISSING_IDS,
  created,
  dataOf,
  invalidOn,
  listAll,
  newWorkspace,
  outcome,
  snapshot,
  startApp,
  type Body,
  type Client,
  type Query,
  type Row,
  type Workspace,
} from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';

const ATTRIBUTES = '{"tier" : "gold", "tags":["vip","€","🎯"], "score": 1.50 }';

const customerBody = (overrides: Body = {}): Body => ({
  external_id: 'crm-1042',
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  phone: '+31 20 123 4567',
  attributes: ATTRIBUTES,
  is_active: true,
  ...overrides,
});

/** A valid e-mail address of exactly `length` characters (local part `ada`, long domain labels). */
function emailOfLength(length: number): string {
  let domain = '';
  const target = length - 'ada@'.length - '.com'.length;
  while (domain.length < target) {
    const room = target - domain.length - (domain ? 1 : 0);
    domain += (domain ? '.' : '') + 'd'.repeat(Math.min(60, room));
  }
  return `ada@${domain}.com`;
}

describe('customers', () => {
  let t: TestApp;
  let root: string;
  let a: Workspace;
  let b: Workspace;
  let api: Client;

  beforeAll(async () => {
    t = await startApp();
    root = await login(t);
    a = await newWorkspace(t, root);
    b = await newWorkspace(t, root);
    api = a.manager;
  });
  afterAll(() => t.close());

  describe('createCustomer, getCustomer, listCustomers, updateCustomer, deleteCustomer: every route of /api/customers', () => {
    it('creates, reads, lists, updates and deletes a customer', async () => {
      const customer = await created(
        api.post(
          '/api/customers',
          // unsubscribed_at is read-only (an unsubscribe link sets it): ignored like the other fields a client may not set.
          customerBody({
            id: 4242,
            tenant_id: b.tenantId,
            updated_at: '2001-01-01',
            unsubscribed_at: '2001-01-01',
            x: 1,
          }),
        ),
      );
      expect(customer).toEqual({
        id: expect.any(Number),
        tenant_id: a.tenantId,
        external_id: 'crm-1042',
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.com',
        phone: '+31 20 123 4567',
        attributes: ATTRIBUTES,
        is_active: true,
        unsubscribed_at: null,
        created_at: ISO,
        updated_at: ISO,
      });
      expect(customer.id).not.toBe(4242);
      expect(await dataOf(api.get(`/api/customers/${customer.id}`))).toEqual(customer);
      const list = await api.get('/api/customers', { external_id: 'crm-1042' });
      expect(list.body.data).toEqual([customer]);
      expect(list.body.meta).toEqual({ limit: 25, next_cursor: null, has_more: false });

      const updated = await api.put(`/api/customers/${customer.id}`, { first_name: 'Augusta Ada', is_active: false });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ code: 200, message: expect.any(String) });
      expect(updated.body.data).toEqual({ ...customer, first_name: 'Augusta Ada', is_active: false, updated_at: ISO });

      const deleted = await api.delete(`/api/customers/${customer.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ code: 200, message: expect.any(String), data: null });
      expect((await api.get(`/api/customers/${customer.id}`)).status).toBe(404);
      expect((await api.delete(`/api/customers/${customer.id}`)).status).toBe(404);
      expect((await api.put(`/api/customers/${customer.id}`, {})).status).toBe(404);
    });
  });

  describe('createCustomer: POST /api/customers', () => {
    it('creates a customer from an empty object and from no body at all', async () => {
      const blank = {
        id: expect.any(Number),
        tenant_id: a.tenantId,
        external_id: null,
        first_name: null,
        last_name: null,
        email: null,
        phone: null,
        attributes: null,
        is_active: true,
        unsubscribed_at: null,
        created_at: ISO,
        updated_at: ISO,
      };
      expect(await created(api.post('/api/customers', {}))).toEqual(blank);
      const noBody = await t.http
        .post('/api/customers')
        .set('Authorization', api.token)
        .set('Content-Type', 'application/json')
        .set('Accept', 'application/json');
      expect(noBody.status).toBe(201);
      expect(noBody.body.data).toEqual(blank);
      const noType = await t.http.post('/api/customers').set('Authorization', api.token);
      expect(noType.status).toBe(201);
      expect(noType.body.data).toEqual(blank);
      // Every nullable field accepts null.
      const nulls = await created(
        api.post('/api/customers', {
          external_id: null,
          first_name: null,
          last_name: null,
          email: null,
          phone: null,
          attributes: null,
        }),
      );
      expect(nulls).toEqual(blank);
    });

    it('accepts the boolean forms of is_active and refuses others', async () => {
      const accepted: [unknown, boolean][] = [
        [true, true],
        [false, false],
        [1, true],
        [0, false],
        ['1', true],
        ['0', false],
        ['true', true],
        ['false', false],
      ];
      for (const [value, stored] of accepted) {
        const customer = await created(api.post('/api/customers', { is_active: value }));
        expect({ value, is_active: customer.is_active }).toEqual({ value, is_active: stored });
      }
    });

    it('keeps external_id unique under concurrent creates (one 201, the rest 422 on external_id)', async () => {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => api.post('/api/customers', { external_id: 'race-1', first_name: `R${i}` })),
      );
      expect(answers.map(outcome).sort((x, y) => x.status - y.status)).toEqual([
        { status: 201, keys: [] },
        ...Array.from({ length: 5 }, () => invalidOn('external_id')),
      ]);
      expect(await dataOf(api.get('/api/customers', { external_id: 'race-1' }))).toHaveLength(1);
    });
  });

  describe('updateCustomer: PUT /api/customers/{id}', () => {
    it('updates only the fields a PUT sends; null clears a nullable field', async () => {
      const customer = await created(api.post('/api/customers', customerBody({ external_id: 'partial-1' })));
      const path = `/api/customers/${customer.id}`;
      expect(await dataOf(api.put(path, {}))).toEqual({ ...customer, updated_at: ISO });
      const noBody = await t.http.put(path).set('Authorization', api.token).set('Content-Type', 'application/json');
      expect(noBody.status).toBe(200);
      expect(noBody.body.data).toEqual({ ...customer, updated_at: ISO });

      const steps: [Body, Body][] = [
        [{ last_name: 'King' }, { last_name: 'King' }],
        [{ email: null }, { email: null }],
        [
          { phone: null, attributes: '[]' },
          { phone: null, attributes: '[]' },
        ],
        [{ external_id: null }, { external_id: null }],
        [{ is_active: 'false' }, { is_active: false }],
        [
          { first_name: null, is_active: 1 },
          { first_name: null, is_active: true },
        ],
      ];
      let expected: Body = { ...customer };
      for (const [body, change] of steps) {
        expected = { ...expected, ...change };
        const res = await api.put(path, body);
        expect({ body, status: res.status, data: res.body.data }).toEqual({
          body,
          status: 200,
          data: { ...expected, updated_at: ISO },
        });
        expect(await dataOf(api.get(path))).toEqual({ ...expected, updated_at: ISO });
      }
    });
  });

  describe('createCustomer, updateCustomer: POST /api/customers, PUT /api/customers/{id}', () => {
    it('answers 422 on the right key for every field rule, on create and update, writing nothing', async () => {
      const existing = await created(api.post('/api/customers', customerBody({ external_id: 'rules-1' })));
      const accepted = await created(
        api.post('/api/customers', {
          external_id: 'e'.repeat(255),
          first_name: 'f'.repeat(255),
          last_name: 'ł'.repeat(255),
          // RFC 5321 caps an address at 254 characters, below the column's 255.
          email: emailOfLength(254),
          phone: '☎'.repeat(255),
        }),
      );
      expect(accepted).toMatchObject({ external_id: 'e'.repeat(255), last_name: 'ł'.repeat(255) });
      expect(accepted.email).toHaveLength(254);

      const cases: [string, Body, string][] = [
        ['external_id 256', { external_id: 'e'.repeat(256) }, 'external_id'],
        ['external_id a number', { external_id: 1042 }, 'external_id'],
        ['first_name 256', { first_name: 'f'.repeat(256) }, 'first_name'],
        ['first_name 256 emoji', { first_name: '🎯'.repeat(256) }, 'first_name'],
        ['first_name a number', { first_name: 42 }, 'first_name'],
        ['last_name 256', { last_name: 'ł'.repeat(256) }, 'last_name'],
        ['last_name an object', { last_name: { a: 1 } }, 'last_name'],
        ['phone 256', { phone: 'p'.repeat(256) }, 'phone'],
        ['phone a number', { phone: 31201234567 }, 'phone'],
        ['email 255', { email: emailOfLength(255) }, 'email'],
        ['email 256', { email: emailOfLength(256) }, 'email'],
        ['email format', { email: 'not-an-email' }, 'email'],
        ['email without domain', { email: 'ada@' }, 'email'],
        ['email a number', { email: 7 }, 'email'],
        ['attributes invalid JSON', { attributes: '{tier: gold}' }, 'attributes'],
        ['attributes truncated JSON', { attributes: '{"tier":' }, 'attributes'],
        ['attributes an object', { attributes: { tier: 'gold' } }, 'attributes'],
        ['attributes an array', { attributes: ['gold'] }, 'attributes'],
        ['attributes a number', { attributes: 5 }, 'attributes'],
        ['is_active yes', { is_active: 'yes' }, 'is_active'],
        ['is_active null', { is_active: null }, 'is_active'],
        ['is_active 2', { is_active: 2 }, 'is_active'],
        ['is_active an array', { is_active: [true] }, 'is_active'],
      ];
      const before = await snapshot(api, '/api/customers');
      for (const [name, body, key] of cases) {
        const post = await api.post('/api/customers', body);
        expect({ name, method: 'POST', ...outcome(post) }).toEqual({ name, method: 'POST', ...invalidOn(key) });
        expect(post.body.message).toEqual(expect.any(String));
        expect(post.headers['cache-control']).toBe('no-cache, private');
        const put = await api.put(`/api/customers/${existing.id}`, { first_name: 'Changed', ...body });
        expect({ name, method: 'PUT', ...outcome(put) }).toEqual({ name, method: 'PUT', ...invalidOn(key) });
      }
      expect(await snapshot(api, '/api/customers')).toEqual(before);
      expect(await dataOf(api.get(`/api/customers/${existing.id}`))).toEqual(existing);

      const several = await api.post('/api/customers', { email: 'x', is_active: 'yes', phone: 1 });
      expect(several.status).toBe(422);
      expect(Object.keys(several.body.errors).sort()).toEqual(['email', 'is_active', 'phone']);
      expect(several.body.message).toMatch(/ \(and 2 more errors\)$/);
    });

    it('keeps external_id unique within a tenant, not across tenants', async () => {
      const first = await created(api.post('/api/customers', customerBody({ external_id: 'dup-7' })));
      const before = await snapshot(api, '/api/customers');
      const taken = await api.post('/api/customers', { external_id: 'dup-7', first_name: 'Other' });
      expect(outcome(taken)).toEqual(invalidOn('external_id'));
      expect(taken.body.errors.external_id[0]).toMatch(/taken/);
      expect(await snapshot(api, '/api/customers')).toEqual(before);

      // Another tenant may use the same external id.
      const theirs = await created(b.manager.post('/api/customers', { external_id: 'dup-7' }));
      expect(theirs.tenant_id).toBe(b.tenantId);

      // Updating a customer while keeping its own external id is fine.
      const kept = await dataOf(api.put(`/api/customers/${first.id}`, { external_id: 'dup-7', first_name: 'Ada L.' }));
      expect(kept).toMatchObject({ external_id: 'dup-7', first_name: 'Ada L.' });

      // Taking another customer's external id on update is not.
      const second = await created(api.post('/api/customers', { external_id: 'dup-8' }));
      const stolen = await api.put(`/api/customers/${second.id}`, { external_id: 'dup-7' });
      expect(outcome(stolen)).toEqual(invalidOn('external_id'));
      expect((await dataOf(api.get(`/api/customers/${second.id}`))).external_id).toBe('dup-8');

      // An empty external id is a value like any other.
      await created(api.post('/api/customers', { external_id: '' }));
      expect(outcome(await api.post('/api/customers', { external_id: '' }))).toEqual(invalidOn('external_id'));
      expect(outcome(await api.put(`/api/customers/${second.id}`, { external_id: '' }))).toEqual(
        invalidOn('external_id'),
      );

      // Customers without an external id do not collide; a freed external id can be taken.
      await created(api.post('/api/customers', { external_id: null }));
      await created(api.post('/api/customers', { external_id: null }));
      await dataOf(api.put(`/api/customers/${first.id}`, { external_id: null }));
      expect((await dataOf(api.put(`/api/customers/${second.id}`, { external_id: 'dup-7' }))).external_id).toBe(
        'dup-7',
      );
    });
  });

  describe('listCustomers: GET /api/customers, lists of a few hundred customers', () => {
    const COUNT = 300;
    const FIRST = ['Ada', 'Alan', 'Grace', 'Linus', 'Barbara', 'Edsger'];
    const LAST = ['Hopper', 'Lovelace', 'Turing', 'Knuth', 'Liskov', 'Dijkstra', 'Ritchie'];
    const pad = (n: number) => String(n).padStart(3, '0');
    let w: Workspace;
    let all: Row[];

    const body = (i: number): Body => ({
      external_id: i % 15 === 0 ? null : `ext-${pad(i)}`,
      first_name: FIRST[i % FIRST.length],
      last_name: i % 20 === 0 ? null : LAST[i % LAST.length],
      // Shared e-mails (ties the sort must break by id) and a few without one.
      email: i % 25 === 0 ? null : `c${pad(i % 120)}@example.com`,
      is_active: i % 3 !== 0,
    });

    beforeAll(async () => {
      w = await newWorkspace(t, root);
      all = [];
      for (let start = 0; start < COUNT; start += 25) {
        const batch = Array.from({ length: Math.min(25, COUNT - start) }, (_, n) => start + n);
        all.push(...(await Promise.all(batch.map((i) => created(w.manager.post('/api/customers', body(i)))))));
      }
      // Another tenant's customers never show up.
      await created(b.manager.post('/api/customers', body(1)));
    }, 120_000);

    type Sortable = string | number | null;
    const compare = (x: Sortable, y: Sortable) => {
      if (x === y) return 0;
      if (x === null) return -1;
      if (y === null) return 1;
      return x < y ? -1 : 1;
    };
    /** The expected order: the field (nulls first ascending), then id, the whole order reversed for `-field`. */
    const sorted = (rows: Row[], sort: string) => {
      const field = sort.replace(/^-/, '');
      const ordered = [...rows].sort(
        (x, y) => compare(x[field] as Sortable, y[field] as Sortable) || (x.id as number) - (y.id as number),
      );
      return (sort.startsWith('-') ? ordered.reverse() : ordered).map((r) => r.id);
    };

    it.each(['-id', 'id', 'last_name', '-last_name', 'email', '-email', 'created_at', '-created_at'])(
      'pages through %s with limit=50: no gaps, no repeats, the right order and total',
      async (sort) => {
        const pages = await listAll(w.manager, '/api/customers', { limit: 50, sort, with_total: true });
        const ids = pages.rows.map((r) => r.id);
        expect({ count: ids.length, unique: new Set(ids).size }).toEqual({ count: COUNT, unique: COUNT });
        expect(ids).toEqual(sorted(all, sort));
        expect(pages.pages).toBe(COUNT / 50);
        expect(pages.totals).toEqual(Array.from({ length: COUNT / 50 }, () => COUNT));
        // Every record in the list is the record itself.
        const byId = new Map(all.map((r) => [r.id, r]));
        expect(pages.rows.filter((r) => JSON.stringify(r) !== JSON.stringify(byId.get(r.id)))).toEqual([]);
      },
    );

    it('pages across customers without a last name or e-mail in either direction', async () => {
      // Page boundaries that fall among the rows whose sort value is null.
      const v = await newWorkspace(t, root);
      const rows: Row[] = [];
      for (const last_name of [null, null, null, 'Knuth', null, 'Hopper', null]) {
        rows.push(await created(v.manager.post('/api/customers', { last_name, email: null })));
      }
      for (const sort of ['last_name', '-last_name', 'email', '-email']) {
        for (const limit of [1, 2, 3]) {
          const pages = await listAll(v.manager, '/api/customers', { sort, limit });
          expect({ sort, limit, ids: pages.rows.map((r) => r.id) }).toEqual({ sort, limit, ids: sorted(rows, sort) });
        }
      }
    });

    it('defaults to 25 newest first, and has_more / next_cursor on each page', async () => {
      const first = await w.manager.get('/api/customers');
      expect(first.body.data.map((r: Row) => r.id)).toEqual(sorted(all, '-id').slice(0, 25));
      expect(first.body.meta).toEqual({ limit: 25, next_cursor: expect.any(String), has_more: true });
      const last = await w.manager.get('/api/customers', { limit: 100, cursor: first.body.meta.next_cursor });
      expect(last.body.meta.has_more).toBe(true);
      const rest = await listAll(w.manager, '/api/customers', { limit: 100, cursor: last.body.meta.next_cursor });
      expect(rest.rows.map((r) => r.id)).toEqual(sorted(all, '-id').slice(125));
    });

    it('filters by q over first name, last name, e-mail and external id', async () => {
      const matches = (q: string) =>
        all
          .filter((r) =>
            ['first_name', 'last_name', 'email', 'external_id'].some((f) =>
              String(r[f] ?? '')
                .toLowerCase()
                .includes(q.toLowerCase()),
            ),
          )
          .map((r) => r.id)
          .sort((x, y) => y - x);
      for (const q of ['Ada', 'ada', 'HOPP', 'ext-01', 'c011@', '@example', 'nobody', 'ovel', '%', '_']) {
        const rows = (await listAll(w.manager, '/api/customers', { q, limit: 50 })).rows;
        expect({ q, ids: rows.map((r) => r.id) }).toEqual({ q, ids: matches(q) });
      }
      // Sanity: each field alone is searched.
      expect(matches('Linus').length).toBeGreaterThan(0);
      expect(matches('Dijkstra').length).toBeGreaterThan(0);
      expect(matches('c011@')).toHaveLength(3);
      expect(matches('ext-29')).toHaveLength(10);
    });

    it('filters by exact email, exact external_id and is_active, alone and together, with paging', async () => {
      const expectIds = async (query: Query, keep: (r: Row) => boolean) => {
        const pages = await listAll(w.manager, '/api/customers', { limit: 50, with_total: true, ...query });
        const expected = all
          .filter(keep)
          .map((r) => r.id)
          .sort((x, y) => y - x);
        expect({ query, ids: pages.rows.map((r) => r.id) }).toEqual({ query, ids: expected });
        expect(new Set(pages.totals)).toEqual(new Set(pages.totals.length ? [expected.length] : []));
      };
      await expectIds({ email: 'c011@example.com' }, (r) => r.email === 'c011@example.com');
      await expectIds({ email: 'c011@example.co' }, () => false);
      await expectIds({ external_id: 'ext-011' }, (r) => r.external_id === 'ext-011');
      await expectIds({ external_id: 'ext-01' }, () => false);
      await expectIds({ is_active: true }, (r) => r.is_active === true);
      await expectIds({ is_active: 'false' }, (r) => r.is_active === false);
      await expectIds({ is_active: 0 }, (r) => r.is_active === false);
      await expectIds({ is_active: true, q: 'Grace' }, (r) => r.is_active === true && r.first_name === 'Grace');
      await expectIds(
        { is_active: false, email: 'c003@example.com' },
        (r) => r.is_active === false && r.email === 'c003@example.com',
      );
      const sortedActive = await listAll(w.manager, '/api/customers', { limit: 50, is_active: 1, sort: 'last_name' });
      expect(sortedActive.rows.map((r) => r.id)).toEqual(
        sorted(
          all.filter((r) => r.is_active),
          'last_name',
        ),
      );
    });

    it('answers 422 for bad list parameters', async () => {
      for (const query of [
        { limit: 0 },
        { limit: 101 },
        { limit: 'ten' },
        { sort: 'phone' },
        { sort: '-attributes' },
        { cursor: 'bogus' },
        { is_active: 'maybe' },
        { email: 'not-an-email' },
        { with_total: 'sometimes' },
      ] as Query[]) {
        const res = await w.manager.get('/api/customers', query);
        expect({ query, status: res.status }).toEqual({ query, status: 422 });
      }
      // A cursor of one sort does not serve another.
      const page = await w.manager.get('/api/customers', { sort: 'email', limit: 5 });
      const res = await w.manager.get('/api/customers', { sort: 'last_name', cursor: page.body.meta.next_cursor });
      expect(res.status).toBe(422);
    });
  });

  describe('getCustomer, updateCustomer, deleteCustomer: /api/customers/{id}', () => {
    it("answers 404 for unknown, malformed and other tenants' customer ids", async () => {
      const theirs = await created(b.manager.post('/api/customers', customerBody({ external_id: 'theirs-404' })));
      for (const id of [...MISSING_IDS, String(theirs.id)]) {
        for (const [method, res] of [
          ['get', await api.get(`/api/customers/${id}`)],
          ['put', await api.put(`/api/customers/${id}`, { first_name: 'Mallory' })],
          ['delete', await api.delete(`/api/customers/${id}`)],
        ] as const) {
          expect({ id, method, status: res.status }).toEqual({ id, method, status: 404 });
          expect(res.body).toEqual({ message: expect.any(String) });
        }
      }
      expect(await dataOf(b.manager.get(`/api/customers/${theirs.id}`))).toEqual(theirs);
      expect(await dataOf(api.get('/api/customers', { external_id: 'theirs-404' }))).toEqual([]);
    });
  });

  it('lets a viewer read customers and write nothing (403)', async () => {
    const customer = await created(api.post('/api/customers', customerBody({ external_id: 'viewed-1' })));
    expect(await dataOf(a.viewer.get(`/api/customers/${customer.id}`))).toEqual(customer);
    expect(await dataOf(a.viewer.get('/api/customers', { external_id: 'viewed-1' }))).toEqual([customer]);
    for (const res of [
      await a.viewer.post('/api/customers', {}),
      await a.viewer.post('/api/customers'),
      await a.viewer.put(`/api/customers/${customer.id}`, { first_name: 'Viewer' }),
      await a.viewer.delete(`/api/customers/${customer.id}`),
    ]) {
      expect({ status: res.status, body: res.body }).toEqual({
        status: 403,
        body: { message: 'This action is unauthorized.' },
      });
    }
    expect(await dataOf(api.get(`/api/customers/${customer.id}`))).toEqual(customer);
    expect((await t.http.post('/api/customers').send({})).status).toBe(401);
  });
});
