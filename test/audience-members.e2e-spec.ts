import { DataSource } from 'typeorm';
import { login } from './support/auth.js';
import {
  ISO,
  MISSING_IDS,
  created,
  dataOf,
  listAll,
  newAudience,
  newCampaign,
  newWorkspace,
  outcome,
  invalidOn,
  snapshot,
  startApp,
  type Body,
  type Client,
  type Query,
  type Row,
  type Workspace,
} from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';
import { newRole, seedCustomers, userWithRole, type CustomerSeed } from './audience-fixtures.js';

/**
 * What audiences and sub-audiences select, through the routes: counts, member lists, previews.
 * Runs on the suite's database (SQLite, or MariaDB with a mysql DATABASE_URL): the expected
 * members are worked out by hand, so both databases must give exactly these.
 */

const C = (external_id: string, fields: Body = {}): Body => ({ external_id, ...fields });

/** Fixed dates are years back, relative ones within the last 100 days, so "now" orders them the same on any day. */
const CUSTOMERS: CustomerSeed[] = [
  {
    body: C('c01', {
      first_name: 'Ana',
      last_name: 'García',
      email: 'ana@example.com',
      phone: '+31 6 1234',
      attributes:
        '{"country":"NL","plan":"pro","ltv":1200,"vip":true,"signup":"2025-06-01","address":{"city":"Amsterdam"}}',
    }),
    created: { daysAgo: 1 },
    touched: true,
  },
  {
    body: C('c02', {
      first_name: 'ANA',
      last_name: 'garcia',
      email: 'ana.b@example.org',
      is_active: false,
      attributes: '{"country":"nl","plan":"Pro","ltv":"1200","vip":"true"}',
    }),
    created: { daysAgo: 10 },
  },
  {
    body: C('c03', {
      first_name: 'Émile',
      last_name: 'Zola',
      email: 'emile@example.fr',
      phone: '0612',
      attributes: '{"country":"FR","ltv":99.5,"vip":false,"plan":null}',
    }),
    created: '2021-03-15 12:00:00',
  },
  { body: C('c04', { first_name: 'émile', last_name: 'zola' }), created: '2021-01-01 00:00:00' },
  {
    body: C('c05', {
      first_name: '50% off_deal',
      last_name: "O'Brien",
      email: 'x_y%z@percent.io',
      phone: '555_0100',
      attributes: '{"country":"DE","ltv":1e3,"discount":"50%","code":"a_b"}',
    }),
    created: '2020-06-15 08:00:00',
  },
  {
    body: C('c06', {
      first_name: 'Straße',
      last_name: 'STRASSE',
      email: 'strasse@example.com',
      is_active: false,
      attributes: '{"country":"de","ltv":-5,"score":"42","vip":1,"plan":"free"}',
    }),
    created: { daysAgo: 40 },
  },
  { body: C('c07', { email: 'nobody@example.com', attributes: '[1,2,3]' }), created: { daysAgo: 100 } },
  {
    body: C('c08', {
      first_name: '',
      last_name: 'Empty',
      email: 'e@x.io',
      phone: '',
      attributes: '{"signup":"2026-01-03","score":42}',
    }),
    created: '2021-12-31 23:59:59',
  },
];
const ALL = CUSTOMERS.map((c) => String(c.body.external_id));
const except = (...ids: string[]) => ALL.filter((id) => !ids.includes(id));

/** [field, operator, rule_value, the members]: every operator, on every kind of field. */
const CASES: [string, string, string, string[]][] = [
  ['first_name', 'equals', 'ana', ['c01', 'c02']],
  ['first_name', 'not_equals', 'ana', except('c01', 'c02')],
  ['first_name', 'equals', 'EMILE', []],
  ['first_name', 'contains', '%', ['c05']],
  ['first_name', 'not_contains', 'a', ['c03', 'c04', 'c07', 'c08']],
  ['last_name', 'starts_with', "o'b", ['c05']],
  ['last_name', 'ends_with', 'LA', ['c03', 'c04']],
  ['last_name', 'equals', 'strasse', ['c06']],
  ['external_id', 'in', '["c01", "C02"]', ['c01', 'c02']],
  ['external_id', 'not_in', '["c01"]', except('c01')],
  ['phone', 'exists', '-', ['c01', 'c03', 'c05', 'c08']],
  ['phone', 'not_exists', '-', ['c02', 'c04', 'c06', 'c07']],
  ['phone', 'contains', '_', ['c05']],
  ['email', 'ends_with', '@EXAMPLE.COM', ['c01', 'c06', 'c07']],
  ['email', 'equals', 'ANA@example.com', ['c01']],
  ['email', 'contains', '_', ['c05']],
  ['email', 'not_exists', '-', ['c04']],
  ['is_active', 'equals', 'true', except('c02', 'c06')],
  ['is_active', 'not_equals', '1', ['c02', 'c06']],
  ['is_active', 'exists', '-', ALL],
  ['created_at', 'within_last_days', '30', ['c01', 'c02']],
  ['created_at', 'within_last_days', '60', ['c01', 'c02', 'c06']],
  ['created_at', 'gt', '2021-03-15', ['c01', 'c02', 'c06', 'c07', 'c08']],
  ['created_at', 'gte', '2021-03-15', ['c01', 'c02', 'c03', 'c06', 'c07', 'c08']],
  ['created_at', 'lt', '2021-01-01', ['c05']],
  ['created_at', 'lte', '2021-01-01', ['c04', 'c05']],
  ['created_at', 'between', '["2021-01-01", "2021-03-15"]', ['c03', 'c04']],
  ['created_at', 'equals', '2021-03-15', ['c03']],
  ['created_at', 'equals', '2021-03-15T12:00:00Z', ['c03']],
  ['created_at', 'not_equals', '2021-03-15', except('c03')],
  ['created_at', 'not_exists', '-', []],
  ['updated_at', 'within_last_days', '1', ['c01']],
  ['attributes.country', 'equals', 'nl', ['c01', 'c02']],
  ['attributes.country', 'not_equals', 'NL', except('c01', 'c02')],
  ['attributes.country', 'in', '["de", "fr"]', ['c03', 'c05', 'c06']],
  ['attributes.country', 'starts_with', 'N', ['c01', 'c02']],
  ['attributes.plan', 'contains', 'pro', ['c01', 'c02']],
  ['attributes.plan', 'not_contains', 'pro', except('c01', 'c02')],
  ['attributes.plan', 'exists', '-', ['c01', 'c02', 'c06']],
  ['attributes.plan', 'not_exists', '-', ['c03', 'c04', 'c05', 'c07', 'c08']],
  ['attributes.ltv', 'equals', '1200', ['c01', 'c02']],
  ['attributes.ltv', 'equals', '1000', ['c05']],
  ['attributes.ltv', 'gt', '99.5', ['c01', 'c05']],
  ['attributes.ltv', 'gte', '99.5', ['c01', 'c03', 'c05']],
  ['attributes.ltv', 'lt', '0', ['c06']],
  ['attributes.ltv', 'lte', '99.5', ['c03', 'c06']],
  ['attributes.ltv', 'between', '[-10, 100]', ['c03', 'c06']],
  ['attributes.ltv', 'not_in', '[1200]', except('c01', 'c02')],
  ['attributes.vip', 'equals', 'true', ['c01', 'c02']],
  ['attributes.vip', 'equals', '1', ['c01', 'c06']],
  ['attributes.score', 'gt', '41', ['c08']],
  ['attributes.signup', 'gt', '2025-06-01', ['c08']],
  ['attributes.signup', 'lte', '2025-06-01', ['c01']],
  ['attributes.signup', 'between', '["2025-01-01", "2025-12-31"]', ['c01']],
  ['attributes.signup', 'within_last_days', '36500', ['c01', 'c08']],
  ['attributes.address.city', 'ends_with', 'DAM', ['c01']],
  ['attributes.discount', 'ends_with', '%', ['c05']],
  ['attributes.code', 'equals', 'A_B', ['c05']],
  ['attributes.0', 'not_exists', '-', ALL],
];

const rule = (field: string, operator: string, rule_value: string): Body => ({
  rule_type: field,
  rule_value,
  field,
  operator,
});

describe('audience members through the API', () => {
  let t: TestApp;
  let root: string;
  let a: Workspace;
  let b: Workspace;
  let api: Client;
  /** external_id by customer id (tenant A). */
  const names = new Map<number, string>();
  const idOf = (externalId: string) => [...names].find(([, name]) => name === externalId)![0];

  beforeAll(async () => {
    t = await startApp();
    root = await login(t);
    a = await newWorkspace(t, root);
    b = await newWorkspace(t, root);
    api = a.manager;
    for (const [externalId, customer] of await seedCustomers(t, api, CUSTOMERS)) names.set(customer.id, externalId);
    // Tenant B has customers that every rule above would select: none may show up in tenant A.
    await seedCustomers(t, b.manager, CUSTOMERS);
  });
  afterAll(() => t.close());

  const ids = (rows: Row[]) => rows.map((row) => names.get(row.id) ?? `?${row.id}`);
  const sorted = (list: string[]) => [...list].sort();

  /** Count, every page of the member list, and the preview of the same rules. */
  async function members(path: string, selection?: Body) {
    const count = await dataOf(api.get(`${path}/count`));
    const list = await listAll(api, `${path}/customers`, { limit: 3 });
    const preview = selection ? await dataOf(api.post('/api/audiences/preview', selection)) : undefined;
    return { count, rows: list.rows, preview };
  }

  describe("countAudience, listAudienceCustomers, previewAudience: the members an audience's rules select", () => {
    it('selects the hand-worked customers for every operator (count, member list and preview agree)', async () => {
      const problems: string[] = [];
      for (const [field, operator, value, expected] of CASES) {
        const name = `${field} ${operator} ${value}`;
        const selection = { rules: [rule(field, operator, value)] };
        const audience = await newAudience(api, { name, ...selection });
        const { count, rows, preview } = await members(`/api/audiences/${audience.id}`, selection);
        const listed = ids(rows);
        if (listed.join() !== sorted(expected).reverse().join()) {
          problems.push(`${name}: listed [${listed.join()}], expected [${sorted(expected).reverse().join()}]`);
        }
        if (count.count !== expected.length || !count.evaluable) {
          problems.push(`${name}: count ${JSON.stringify(count)}, expected ${expected.length}`);
        }
        const previewed = ids(preview!.customers as Row[]);
        if (preview!.count !== expected.length || previewed.join() !== listed.join()) {
          problems.push(`${name}: preview ${preview!.count} [${previewed.join()}]`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('answers the count with evaluable and computed_at, and customer records newest first', async () => {
      const audience = await newAudience(api, { rules: [rule('email', 'ends_with', '@example.com')] });
      const before = Date.now();
      const count = await dataOf(api.get(`/api/audiences/${audience.id}/count`));
      expect(count).toEqual({ count: 3, evaluable: true, computed_at: ISO });
      expect(Date.parse(String(count.computed_at))).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(String(count.computed_at))).toBeLessThanOrEqual(Date.now() + 1000);

      const res = await api.get(`/api/audiences/${audience.id}/customers`);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ limit: 25, next_cursor: null, has_more: false });
      const ana = await dataOf(api.get(`/api/customers/${idOf('c01')}`));
      expect(res.body.data.map((r: Row) => r.id)).toEqual([idOf('c07'), idOf('c06'), idOf('c01')]);
      expect(res.body.data[2]).toEqual(ana);
    });

    it('matches all or any of the evaluable rules; descriptive rules take no part; none selects nobody', async () => {
      const two = [rule('attributes.country', 'equals', 'NL'), rule('attributes.ltv', 'gt', '100')];
      const cases: [string, Body, string[], boolean][] = [
        ['all (default)', { rules: two }, ['c01'], true],
        ['all', { rules: two, match: 'all' }, ['c01'], true],
        ['any', { rules: two, match: 'any' }, ['c01', 'c02', 'c05'], true],
        [
          'with a descriptive rule',
          { rules: [{ rule_type: 'note', rule_value: 'VIP' }, two[0]] },
          ['c01', 'c02'],
          true,
        ],
        [
          'any of two negative rules',
          { rules: [rule('first_name', 'not_exists', '-'), rule('email', 'not_exists', '-')], match: 'any' },
          ['c04', 'c07'],
          true,
        ],
        ['descriptive only', { rules: [{ rule_type: 'note', rule_value: 'VIP' }] }, [], false],
        ['descriptive only (any)', { rules: [{ rule_type: 'note', rule_value: 'VIP' }], match: 'any' }, [], false],
        ['no rules', { rules: [] }, [], false],
      ];
      for (const [name, selection, expected, evaluable] of cases) {
        const audience = await newAudience(api, { name, ...selection });
        const { count, rows, preview } = await members(`/api/audiences/${audience.id}`, selection);
        expect({ name, count: count.count, evaluable: count.evaluable, members: sorted(ids(rows)) }).toEqual({
          name,
          count: expected.length,
          evaluable,
          members: sorted(expected),
        });
        expect({ name, preview: preview!.count, evaluable: preview!.evaluable }).toEqual({
          name,
          preview: expected.length,
          evaluable,
        });
      }
    });

    it('follows a changed rule set at once', async () => {
      const audience = await newAudience(api, { rules: [rule('email', 'equals', 'ana@example.com')] });
      expect((await dataOf(api.get(`/api/audiences/${audience.id}/count`))).count).toBe(1);
      await dataOf(
        api.put(`/api/audiences/${audience.id}`, { name: audience.name, rules: [rule('email', 'contains', 'ana')] }),
      );
      expect((await dataOf(api.get(`/api/audiences/${audience.id}/count`))).count).toBe(2);
      await dataOf(api.put(`/api/audiences/${audience.id}`, { name: audience.name, rules: [] }));
      expect(await dataOf(api.get(`/api/audiences/${audience.id}/count`))).toMatchObject({
        count: 0,
        evaluable: false,
      });
    });
  });

  describe('countSubAudience, listSubAudienceCustomers: sub-audiences', () => {
    it("narrow their audience by a condition tree; any other JSON keeps the audience's members", async () => {
      const campaign = await newCampaign(api);
      const audience = await newAudience(api, {
        rules: [rule('created_at', 'within_last_days', '365'), rule('is_active', 'exists', '-')],
      });
      const subs = `/api/campaigns/${campaign.id}/sub-audiences`;
      const cases: [string, unknown, string[]][] = [
        ['a leaf', { field: 'attributes.country', operator: 'equals', value: 'NL' }, ['c01', 'c02']],
        [
          'all / not',
          {
            all: [
              { field: 'is_active', operator: 'equals', value: true },
              { not: { field: 'email', operator: 'ends_with', value: '.org' } },
            ],
          },
          ['c01', 'c07'],
        ],
        [
          'any with a nested all',
          {
            any: [
              { field: 'attributes.ltv', operator: 'lt', value: 0 },
              {
                all: [
                  { field: 'created_at', operator: 'within_last_days', value: 5 },
                  { field: 'phone', operator: 'exists' },
                ],
              },
            ],
          },
          ['c01', 'c06'],
        ],
        [
          'a leaf with JSON values',
          { field: 'attributes.ltv', operator: 'in', value: [1200, '-5'] },
          ['c01', 'c02', 'c06'],
        ],
        ['a tree outside the audience', { field: 'created_at', operator: 'lt', value: '2022-01-01' }, []],
        ['opaque: other keys', { min_orders: 2 }, ['c01', 'c02', 'c06', 'c07']],
        ['opaque: an array', [{ field: 'email' }], ['c01', 'c02', 'c06', 'c07']],
        ['opaque: a string', 'everyone', ['c01', 'c02', 'c06', 'c07']],
      ];
      for (const [name, definition, expected] of cases) {
        const sub = await created(
          api.post(subs, { audience_id: audience.id, name, segment_definition: JSON.stringify(definition) }),
        );
        const { count, rows } = await members(`/api/sub-audiences/${sub.id}`);
        expect({ name, count, members: ids(rows) }).toEqual({
          name,
          count: { count: expected.length, evaluable: true, computed_at: ISO },
          members: sorted(expected).reverse(),
        });
      }
      // A sub-audience of an audience that selects nobody selects nobody.
      const tags = await newAudience(api, { rules: [{ rule_type: 'note', rule_value: 'VIP' }] });
      const sub = await created(
        api.post(subs, {
          audience_id: tags.id,
          name: 'x',
          segment_definition: '{"field":"email","operator":"exists"}',
        }),
      );
      expect(await dataOf(api.get(`/api/sub-audiences/${sub.id}/count`))).toMatchObject({ count: 0, evaluable: false });
      expect(await dataOf(api.get(`/api/sub-audiences/${sub.id}/customers`))).toEqual([]);
      // A PUT of the definition changes the selection.
      const first = (await dataOf(api.get(subs, { q: 'a leaf', sort: 'id' })))[0];
      await dataOf(
        api.put(`/api/sub-audiences/${first.id}`, {
          name: first.name,
          segment_definition: '{"field":"attributes.country","operator":"equals","value":"de"}',
        }),
      );
      expect(ids(await dataOf(api.get(`/api/sub-audiences/${first.id}/customers`)))).toEqual(['c06']);

      // A definition stored before trees were checked, using the tree keys without being a tree,
      // cannot be evaluated: it selects nobody rather than the whole audience.
      await t.app
        .get(DataSource)
        .query('UPDATE sub_audiences SET segment_definition = ? WHERE id = ?', [
          '{"field":"age","operator":">=","value":18}',
          first.id,
        ]);
      expect(await dataOf(api.get(`/api/sub-audiences/${first.id}/count`))).toMatchObject({
        count: 0,
        evaluable: false,
      });
      expect(await dataOf(api.get(`/api/sub-audiences/${first.id}/customers`))).toEqual([]);
      expect((await dataOf(api.get(`/api/sub-audiences/${first.id}`))).segment_definition).toBe(
        '{"field":"age","operator":">=","value":18}',
      );
    });
  });

  describe('listAudienceCustomers, listSubAudienceCustomers: member lists', () => {
    /** A second tenant with 30 customers whose created_at does not follow their ids. */
    let w: Workspace;
    let recent: string[];
    const order = new Map<number, string>();

    beforeAll(async () => {
      w = await newWorkspace(t, root);
      const seeds: CustomerSeed[] = Array.from({ length: 30 }, (_, i) => ({
        body: C(`m${String(i).padStart(2, '0')}`, { email: `m${i}@example.com` }),
        // Every third customer is recent (the newer half of them from yesterday), the others old.
        created: i % 3 === 0 ? { daysAgo: i < 15 ? 20 : 1 } : { daysAgo: 200 + i },
      }));
      for (const [externalId, customer] of await seedCustomers(t, w.manager, seeds)) order.set(customer.id, externalId);
      recent = seeds.filter((_, i) => i % 3 === 0).map((s) => String(s.body.external_id));
    });

    const pageIds = (rows: Row[]) => rows.map((r) => order.get(r.id));

    it('pages through the members with limit and cursor, newest first, each member once', async () => {
      const audience = await newAudience(w.manager, { rules: [rule('created_at', 'within_last_days', '30')] });
      const path = `/api/audiences/${audience.id}/customers`;
      const all = await listAll(w.manager, path, { limit: 3, with_total: true });
      expect(all.pages).toBe(4);
      expect(all.totals).toEqual([10, 10, 10, 10]);
      expect(pageIds(all.rows)).toEqual([...recent].reverse());
      const ascending = await listAll(w.manager, path, { limit: 4, sort: 'id' });
      expect(pageIds(ascending.rows)).toEqual(recent);
      expect((await listAll(w.manager, path, { limit: 100 })).pages).toBe(1);

      const first = await w.manager.get(path, { limit: 3 });
      expect(first.body.meta).toEqual({ limit: 3, next_cursor: expect.any(String), has_more: true });
      // The cursor carries the id floor of the implied created_at range.
      const [sort, floor] = JSON.parse(Buffer.from(first.body.meta.next_cursor, 'base64url').toString());
      expect(sort).toBe('-id');
      expect(floor).toMatch(/^\d+@\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(Number(floor.split('@')[0])).toBe(Math.min(...all.rows.map((r) => r.id)));

      const everyone = await newAudience(w.manager, { rules: [rule('email', 'ends_with', '@example.com')] });
      const each = await listAll(w.manager, `/api/audiences/${everyone.id}/customers`, { limit: 7 });
      expect(each.rows).toHaveLength(30);
      expect(new Set(each.rows.map((r) => r.id)).size).toBe(30);
      expect(each.rows.map((r) => r.id)).toEqual([...each.rows.map((r) => r.id)].sort((x, y) => y - x));
    });

    it('keeps every member when the rules reach further back than the cursor knew', async () => {
      const audience = await newAudience(w.manager, { rules: [rule('created_at', 'within_last_days', '3')] });
      const path = `/api/audiences/${audience.id}/customers`;
      // Once the instance knows the window's id floor (here from the count), cursors carry it.
      expect((await dataOf(w.manager.get(`/api/audiences/${audience.id}/count`))).count).toBe(5);
      const first = await w.manager.get(path, { limit: 1 });
      expect(first.body.meta.has_more).toBe(true);
      expect(JSON.parse(Buffer.from(first.body.meta.next_cursor, 'base64url').toString())[1]).toMatch(/^\d+@/);
      await dataOf(
        w.manager.put(`/api/audiences/${audience.id}`, {
          name: audience.name,
          rules: [rule('created_at', 'within_last_days', '30')],
        }),
      );
      const rest = await listAll(w.manager, path, { limit: 3, cursor: first.body.meta.next_cursor });
      const expected = recent.filter((id) => Number(id.slice(1)) < Number(order.get(first.body.data[0].id)!.slice(1)));
      expect(pageIds(rest.rows)).toEqual([...expected].reverse());
    });

    it('answers 422 for a bad limit, sort or cursor', async () => {
      const audience = await newAudience(w.manager, { rules: [rule('created_at', 'within_last_days', '30')] });
      const sub = await created(
        w.manager.post(`/api/campaigns/${(await newCampaign(w.manager)).id}/sub-audiences`, {
          audience_id: audience.id,
          name: 's',
          segment_definition: '{}',
        }),
      );
      const cursorOf = (value: unknown, sort = '-id') =>
        Buffer.from(JSON.stringify([sort, value, 5])).toString('base64url');
      const bad: [Query, string][] = [
        [{ limit: 0 }, 'limit'],
        [{ limit: 101 }, 'limit'],
        [{ limit: 'ten' }, 'limit'],
        [{ sort: 'name' }, 'sort'],
        [{ sort: 'created_at' }, 'sort'],
        [{ cursor: 'nope!' }, 'cursor'],
        [{ cursor: cursorOf(null, 'name') }, 'cursor'],
        [{ cursor: cursorOf(null, 'id') }, 'cursor'],
        [{ cursor: cursorOf('12') }, 'cursor'],
        [{ cursor: cursorOf(12) }, 'cursor'],
        [{ cursor: cursorOf('0@2026-01-01 00:00:00') }, 'cursor'],
        [{ cursor: cursorOf('12@2026-01-01') }, 'cursor'],
        [{ with_total: 'maybe' }, 'with_total'],
      ];
      for (const path of [`/api/audiences/${audience.id}/customers`, `/api/sub-audiences/${sub.id}/customers`]) {
        for (const [query, key] of bad) {
          expect({ path, query, ...outcome(await w.manager.get(path, query)) }).toEqual({
            path,
            query,
            ...invalidOn(key),
          });
        }
      }
    });
  });

  describe('previewAudience: POST /api/audiences/preview', () => {
    it('counts and shows the first 10 members, newest first, saving nothing', async () => {
      const before = await snapshot(api, '/api/audiences');
      const res = await api.post('/api/audiences/preview', {
        rules: [rule('email', 'exists', '-'), { rule_type: 'note', rule_value: 'tag' }],
        match: 'all',
        name: 'ignored',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ code: 200, message: 'Preview computed.', data: expect.any(Object) });
      const preview = res.body.data;
      expect(preview).toEqual({ count: 7, evaluable: true, customers: expect.any(Array) });
      expect(ids(preview.customers)).toEqual(sorted(except('c04')).reverse());
      expect(preview.customers[0]).toEqual(await dataOf(api.get(`/api/customers/${idOf('c08')}`)));
      expect(await snapshot(api, '/api/audiences')).toEqual(before);

      const many = await newWorkspace(t, root);
      await seedCustomers(
        t,
        many.manager,
        Array.from({ length: 12 }, (_, i) => ({ body: C(`p${i}`), created: { daysAgo: 1 } })),
      );
      const twelve = await dataOf(
        many.manager.post('/api/audiences/preview', { rules: [rule('external_id', 'starts_with', 'p')] }),
      );
      expect(twelve.count).toBe(12);
      expect((twelve.customers as Row[]).map((r) => r.external_id)).toEqual(
        Array.from({ length: 10 }, (_, i) => `p${11 - i}`),
      );
      // Without rules, or with descriptive ones only: nobody, not evaluable.
      expect(await dataOf(api.post('/api/audiences/preview', {}))).toEqual({
        count: 0,
        evaluable: false,
        customers: [],
      });
      expect(
        await dataOf(api.post('/api/audiences/preview', { rules: [{ rule_type: 'a', rule_value: 'b' }] })),
      ).toEqual({
        count: 0,
        evaluable: false,
        customers: [],
      });
    });

    it('validates the body as an audience (422 on match and rules.N.*)', async () => {
      const cases: [Body, string][] = [
        [{ match: 'most' }, 'match'],
        [{ rules: 'email' }, 'rules'],
        [{ rules: [{ rule_type: 'x' }] }, 'rules.0.rule_value'],
        [{ rules: [rule('email', 'gt', 'a')] }, 'rules.0.operator'],
        [{ rules: [rule('shoe_size', 'gt', '4')] }, 'rules.0.field'],
        [{ rules: [rule('attributes.n', 'between', '[2, 1]')] }, 'rules.0.rule_value'],
      ];
      for (const [body, key] of cases) {
        expect({ body, ...outcome(await api.post('/api/audiences/preview', body)) }).toEqual({
          body,
          ...invalidOn(key),
        });
      }
    });
  });

  describe('countAudience, listAudienceCustomers, countSubAudience, listSubAudienceCustomers, previewAudience: not found, other tenants, permissions', () => {
    it("answers 404 for unknown, malformed and other tenants' audiences and sub-audiences", async () => {
      const theirAudience = await newAudience(b.manager, { rules: [rule('email', 'exists', '-')] });
      const theirSub = await created(
        b.manager.post(`/api/campaigns/${(await newCampaign(b.manager)).id}/sub-audiences`, {
          audience_id: theirAudience.id,
          name: 'theirs',
          segment_definition: '{}',
        }),
      );
      for (const [kind, id] of [
        ...MISSING_IDS.flatMap((id) => [
          ['audiences', id],
          ['sub-audiences', id],
        ]),
        ['audiences', String(theirAudience.id)],
        ['sub-audiences', String(theirSub.id)],
      ]) {
        for (const route of ['count', 'customers']) {
          const res = await api.get(`/api/${kind}/${id}/${route}`);
          expect({ kind, id, route, status: res.status, body: res.body }).toEqual({
            kind,
            id,
            route,
            status: 404,
            body: { message: expect.any(String) },
          });
        }
      }
      // Their owner reads them.
      expect((await dataOf(b.manager.get(`/api/audiences/${theirAudience.id}/count`))).count).toBe(7);
    });

    it('needs audiences.view (403 without it, 401 without a token)', async () => {
      const campaign = await newCampaign(api);
      const audience = await newAudience(api, { rules: [rule('email', 'exists', '-')] });
      const sub = await created(
        api.post(`/api/campaigns/${campaign.id}/sub-audiences`, {
          audience_id: audience.id,
          name: 's',
          segment_definition: '{}',
        }),
      );
      await newRole(t, 'marketing-viewer', ['marketing.view', 'customers.view']);
      const outsider = await userWithRole(t, root, 'marketing-viewer', a.tenantId);
      const routes: [string, string, Body?][] = [
        ['get', `/api/audiences/${audience.id}/count`],
        ['get', `/api/audiences/${audience.id}/customers`],
        ['get', `/api/sub-audiences/${sub.id}/count`],
        ['get', `/api/sub-audiences/${sub.id}/customers`],
        ['post', '/api/audiences/preview', { rules: [rule('email', 'exists', '-')] }],
      ];
      for (const [method, path, body] of routes) {
        const refused = method === 'get' ? await outsider.get(path) : await outsider.post(path, body);
        expect({ path, status: refused.status, body: refused.body }).toEqual({
          path,
          status: 403,
          body: { message: 'This action is unauthorized.' },
        });
        const viewer = method === 'get' ? await a.viewer.get(path) : await a.viewer.post(path, body);
        expect({ path, status: viewer.status }).toEqual({ path, status: 200 });
        const anonymous = await (method === 'get' ? t.http.get(path) : t.http.post(path).send(body));
        expect({ path, status: anonymous.status }).toEqual({ path, status: 401 });
      }
    });
  });
});
