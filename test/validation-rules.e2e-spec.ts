import { DataSource } from 'typeorm';
import { login } from './support/auth.js';
import { newTenant, newUser, type TestUser } from './support/factories.js';
import { listAll, newValidationRule, validationRuleBody, type Body, type Row } from './support/marketing-factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('validation rules', () => {
  let t: TestApp;
  let root: string;
  let admin: TestUser;
  let viewer: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
    root = await login(t);
    const tenant = await newTenant(t, root);
    admin = await newUser(t, root, ['admin'], tenant.id);
    viewer = await newUser(t, root, ['viewer'], tenant.id);
    other = await newUser(t, root, ['admin'], (await newTenant(t, root)).id);
  });
  afterAll(() => t.close());

  const get = (path: string, token = admin.token) => t.http.get(path).set('Authorization', token);
  const post = (body: Body, token = admin.token) =>
    t.http.post('/api/validation-rules').set('Authorization', token).send(body);
  const put = (id: number | string, body: Body, token = admin.token) =>
    t.http.put(`/api/validation-rules/${id}`).set('Authorization', token).send(body);
  const del = (id: number | string, token = admin.token) =>
    t.http.delete(`/api/validation-rules/${id}`).set('Authorization', token);
  const all = async (token = admin.token) =>
    (await listAll(t, token, '/api/validation-rules', { limit: 100, sort: 'id' })).rows;

  describe('createValidationRule, getValidationRule, listValidationRules, updateValidationRule, deleteValidationRule: every route of /api/validation-rules', () => {
    it('creates, reads, lists, updates and deletes a rule with integer ids', async () => {
      const created = await post({
        name: 'Adults 😀',
        description: 'Age check',
        rule_definition: '{ "field" : "age",\n  "min": 18 }',
        id: 5000,
        tenant_id: other.tenant_id,
        deleted_at: '2020-01-01',
      }).expect(201);
      const rule = created.body.data as Row;
      expect(created.body).toEqual({
        code: 201,
        message: 'Created successfully.',
        data: {
          id: expect.any(Number),
          tenant_id: admin.tenant_id,
          name: 'Adults 😀',
          description: 'Age check',
          rule_definition: '{ "field" : "age",\n  "min": 18 }',
          is_active: true,
          created_at: expect.stringMatching(ISO),
          updated_at: expect.stringMatching(ISO),
        },
      });
      expect(Number.isInteger(rule.id)).toBe(true);
      expect(rule.id).not.toBe(5000);

      await get(`/api/validation-rules/${rule.id}`).expect(200, {
        code: 200,
        message: 'Retrieved successfully.',
        data: rule,
      });
      const list = await get('/api/validation-rules').expect(200);
      expect(list.body).toEqual({
        code: 200,
        message: 'Retrieved successfully.',
        data: [rule],
        meta: { limit: 25, next_cursor: null, has_more: false },
      });

      // description and is_active are optional: left out, they keep their values.
      await put(rule.id, { name: 'Adults', rule_definition: '[]', is_active: 'false' }).expect(200);
      const updated = await put(rule.id, { name: 'Grown-ups', rule_definition: ' {"min":21} ' }).expect(200);
      expect(updated.body).toEqual({
        code: 200,
        message: 'Updated successfully.',
        data: {
          ...rule,
          name: 'Grown-ups',
          rule_definition: ' {"min":21} ',
          is_active: false,
          updated_at: expect.stringMatching(ISO),
        },
      });
      const cleared = await put(rule.id, { name: 'Grown-ups', rule_definition: '{}', description: null }).expect(200);
      expect(cleared.body.data).toMatchObject({ description: null, is_active: false });

      await del(rule.id).expect(200, { code: 200, message: 'Deleted successfully.', data: null });
      expect(await all()).toEqual([]);
    });
  });

  describe('createValidationRule, updateValidationRule: POST /api/validation-rules, PUT /api/validation-rules/{id}', () => {
    it('answers 422 on the right field for every rule, writing nothing', async () => {
      const kept = await newValidationRule(t, admin.token);
      const before = await all();
      const cases: [string, Body, string][] = [
        ['name missing', { name: undefined }, 'name'],
        ['name null', { name: null }, 'name'],
        ['name blank', { name: '' }, 'name'],
        ['name a number', { name: 12 }, 'name'],
        ['name of 256 characters', { name: 'x'.repeat(256) }, 'name'],
        ['name of 256 emoji', { name: '😀'.repeat(256) }, 'name'],
        ['description a number', { description: 3 }, 'description'],
        ['rule_definition missing', { rule_definition: undefined }, 'rule_definition'],
        ['rule_definition null', { rule_definition: null }, 'rule_definition'],
        ['rule_definition empty', { rule_definition: '' }, 'rule_definition'],
        ['rule_definition not JSON', { rule_definition: '{field: age}' }, 'rule_definition'],
        ['rule_definition cut short', { rule_definition: '{"field":' }, 'rule_definition'],
        ['rule_definition two documents', { rule_definition: '{} {}' }, 'rule_definition'],
        ['rule_definition an object', { rule_definition: { field: 'age' } }, 'rule_definition'],
        ['rule_definition an array', { rule_definition: [1] }, 'rule_definition'],
        ['rule_definition a number', { rule_definition: 18 }, 'rule_definition'],
        ['rule_definition a boolean', { rule_definition: true }, 'rule_definition'],
        ['is_active "yes"', { is_active: 'yes' }, 'is_active'],
        ['is_active "TRUE"', { is_active: 'TRUE' }, 'is_active'],
        ['is_active 2', { is_active: 2 }, 'is_active'],
        ['is_active null', { is_active: null }, 'is_active'],
        ['is_active an array', { is_active: [true] }, 'is_active'],
      ];
      for (const [what, overrides, key] of cases) {
        for (const [verb, res] of [
          ['POST', await post(validationRuleBody(overrides))],
          ['PUT', await put(kept.id, validationRuleBody(overrides))],
        ] as const) {
          expect({ what, verb, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
            what,
            verb,
            status: 422,
            keys: [key],
          });
          expect(res.body.message).toBe(res.body.errors[key][0]);
        }
        expect(await all()).toEqual(before);
      }
    });

    it('accepts every boolean form of is_active, and JSON strings byte for byte', async () => {
      const forms: [unknown, boolean][] = [
        [true, true],
        [false, false],
        [1, true],
        [0, false],
        ['1', true],
        ['0', false],
        ['true', true],
        ['false', false],
      ];
      for (const [sent, stored] of forms) {
        const created = await post(validationRuleBody({ is_active: sent }));
        expect({ sent, status: created.status, is_active: created.body.data?.is_active }).toEqual({
          sent,
          status: 201,
          is_active: stored,
        });
        const updated = await put(created.body.data.id, validationRuleBody({ is_active: !stored ? 'true' : 0 }));
        expect({ sent, is_active: updated.body.data.is_active }).toEqual({ sent, is_active: !stored });
      }
      for (const text of ['{ "a" : 1 }', '"text"', '  null  ', '[1,\n 2]', '3.14e2', '{"k":"é😀\\u0041"}']) {
        const res = await post(validationRuleBody({ rule_definition: text })).expect(201);
        expect(res.body.data.rule_definition).toBe(text);
        expect((await get(`/api/validation-rules/${res.body.data.id}`).expect(200)).body.data.rule_definition).toBe(
          text,
        );
      }
      for (const name of ['x'.repeat(255), '😀'.repeat(255)]) {
        expect((await post(validationRuleBody({ name })).expect(201)).body.data.name).toBe(name);
      }
    });
  });

  describe('listValidationRules: GET /api/validation-rules', () => {
    it('lists, filters and pages', async () => {
      const tenant = await newTenant(t, root);
      const owner = await newUser(t, root, ['admin'], tenant.id);
      const rows: Row[] = [];
      for (let i = 0; i < 12; i++) {
        rows.push(
          await newValidationRule(t, owner.token, {
            name: ['gamma', 'alpha', 'beta'][i % 3],
            is_active: i % 4 !== 0,
          }),
        );
      }
      const ids = (list: Row[]) => list.map((r) => r.id);
      const pages = await listAll(t, owner.token, '/api/validation-rules', { limit: 5 });
      expect(pages.pages).toBe(3);
      expect(ids(pages.rows)).toEqual(ids(rows).reverse());
      const first = await get('/api/validation-rules?limit=5&with_total=true', owner.token).expect(200);
      expect(first.body.meta).toEqual({ limit: 5, next_cursor: expect.any(String), has_more: true, total: 12 });

      const byName = await listAll(t, owner.token, '/api/validation-rules', { limit: 5, sort: '-name' });
      const name = (r: Row) => String(r.name);
      const expected = [...rows].sort((a, b) => (name(a) < name(b) ? 1 : name(a) > name(b) ? -1 : b.id - a.id));
      expect(ids(byName.rows)).toEqual(ids(expected));

      for (const [value, active] of [
        ['false', false],
        ['0', false],
        ['true', true],
        ['1', true],
      ] as const) {
        const filtered = await listAll(t, owner.token, '/api/validation-rules', { is_active: value, limit: 4 });
        expect({ value, ids: ids(filtered.rows) }).toEqual({
          value,
          ids: ids(rows.filter((r) => r.is_active === active)).reverse(),
        });
      }
      const alpha = await listAll(t, owner.token, '/api/validation-rules', { q: 'lph' });
      expect(ids(alpha.rows)).toEqual(ids(rows.filter((r) => r.name === 'alpha')).reverse());

      for (const bad of [
        'limit=0',
        'limit=101',
        'sort=rule_definition',
        'cursor=%%%',
        'is_active=yes',
        'with_total=2',
      ]) {
        const res = await get(`/api/validation-rules?${bad}`, owner.token);
        expect({ bad, status: res.status }).toEqual({ bad, status: 422 });
      }
    });

    it('carries x-ratelimit-limit and a falling x-ratelimit-remaining on the list', async () => {
      const first = await get('/api/validation-rules').expect(200);
      const second = await get('/api/validation-rules').expect(200);
      expect(first.headers['x-ratelimit-limit']).toBe('100000');
      expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
    });
  });

  describe('deleteValidationRule: DELETE /api/validation-rules/{id}', () => {
    it('soft-deletes: the rule answers 404 and leaves the list, but its row stays with deleted_at set', async () => {
      const rule = await newValidationRule(t, admin.token);
      const survivor = await newValidationRule(t, admin.token);
      await del(rule.id).expect(200, { code: 200, message: 'Deleted successfully.', data: null });

      await get(`/api/validation-rules/${rule.id}`).expect(404);
      await put(rule.id, validationRuleBody()).expect(404);
      await del(rule.id).expect(404);
      const ids = (await all()).map((r) => r.id);
      expect(ids).toContain(survivor.id);
      expect(ids).not.toContain(rule.id);

      const db = t.app.get(DataSource);
      const [row] = (await db.query('SELECT id, name, tenant_id, deleted_at FROM validation_rules WHERE id = ?', [
        rule.id,
      ])) as { id: number; name: string; tenant_id: number; deleted_at: unknown }[];
      expect(row).toMatchObject({ name: rule.name });
      expect(Number(row.id)).toBe(rule.id);
      expect(Number(row.tenant_id)).toBe(admin.tenant_id);
      expect(row.deleted_at).not.toBeNull();
      expect(new Date(row.deleted_at as string).getTime()).not.toBeNaN();
      // The survivor's row is untouched.
      const [alive] = (await db.query('SELECT deleted_at FROM validation_rules WHERE id = ?', [survivor.id])) as {
        deleted_at: unknown;
      }[];
      expect(alive.deleted_at).toBeNull();
    });
  });

  describe('getValidationRule: GET /api/validation-rules/{id}', () => {
    it('answers 500 with the database error text when reading a rule fails', async () => {
      const rule = await newValidationRule(t, admin.token);
      const db = t.app.get(DataSource);
      await db.query('ALTER TABLE validation_rules RENAME TO validation_rules_gone');
      try {
        const res = await get(`/api/validation-rules/${rule.id}`);
        expect(res.status).toBe(500);
        expect(res.body).toEqual({
          code: 500,
          message: 'Failed to retrieve validation rule.',
          data: expect.stringContaining('validation_rules'),
        });
        expect(res.headers['cache-control']).toBe('no-cache, private');
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        // The list has the generic 500 body of INTERFACE.md.
        const list = await get('/api/validation-rules');
        expect({ status: list.status, body: list.body }).toEqual({ status: 500, body: { message: 'Server Error' } });
      } finally {
        await db.query('ALTER TABLE validation_rules_gone RENAME TO validation_rules');
      }
      await get(`/api/validation-rules/${rule.id}`).expect(200);
    });
  });

  describe('getValidationRule, updateValidationRule, deleteValidationRule: unknown, malformed and other-tenant ids', () => {
    it('answers 404 for unknown, malformed and other-tenant ids', async () => {
      const theirs = await newValidationRule(t, other.token);
      for (const id of ['abc', '0', '-1', '1.5', '1e3', '99999999', '99999999999999999999', String(theirs.id)]) {
        const answers = {
          get: (await get(`/api/validation-rules/${id}`)).status,
          put: (await put(id, validationRuleBody())).status,
          delete: (await del(id)).status,
        };
        expect({ id, ...answers }).toEqual({ id, get: 404, put: 404, delete: 404 });
      }
      await get(`/api/validation-rules/${theirs.id}`, other.token).expect(200, {
        code: 200,
        message: 'Retrieved successfully.',
        data: theirs,
      });
      expect((await all()).map((r) => r.id)).not.toContain(theirs.id);
    });
  });

  it('lets a viewer list and read, and refuses writes with 403', async () => {
    const rule = await newValidationRule(t, admin.token);
    await get(`/api/validation-rules/${rule.id}`, viewer.token).expect(200);
    expect((await all(viewer.token)).map((r) => r.id)).toContain(rule.id);
    const refused = { message: 'This action is unauthorized.' };
    await post(validationRuleBody(), viewer.token).expect(403, refused);
    await put(rule.id, validationRuleBody(), viewer.token).expect(403, refused);
    await del(rule.id, viewer.token).expect(403, refused);
    await get(`/api/validation-rules/${rule.id}`).expect(200, {
      code: 200,
      message: 'Retrieved successfully.',
      data: rule,
    });
  });
});

describe('listValidationRules: the rate limit of INTERFACE.md', () => {
  let t: TestApp;
  afterAll(() => t.close());

  it('answers x-ratelimit-limit 60 by default, remaining falling by one per call', async () => {
    t = await createTestApp();
    const token = await login(t);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await t.http.get('/api/validation-rules').set('Authorization', token));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(answers.map((res) => res.headers['x-ratelimit-limit'])).toEqual(['60', '60', '60']);
    const remaining = answers.map((res) => Number(res.headers['x-ratelimit-remaining']));
    expect(remaining).toEqual([remaining[0], remaining[0] - 1, remaining[0] - 2]);
  });
});
