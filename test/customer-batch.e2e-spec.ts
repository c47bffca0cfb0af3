import { Database, LOAD_DATA_MIN_ROWS } from '../src/common/persistence/database.js';
import { InsertIds } from '../src/common/persistence/insert-ids.js';
import { login } from './support/auth.js';
import { client, dataOf, newWorkspace, startApp, type Body, type Workspace } from './support/campaign-fixtures.js';
import { newUser } from './support/factories.js';
import type { TestApp } from './support/test-app.js';

const item = (external_id: string | null, overrides: Body = {}): Body => ({
  external_id,
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: `${external_id ?? 'none'}@example.com`,
  ...overrides,
});

describe('upsertCustomerBatch: POST /api/customers/batch', () => {
  let t: TestApp;
  let root: string;
  let a: Workspace;
  let b: Workspace;
  let db: Database;

  beforeAll(async () => {
    t = await startApp();
    root = await login(t);
    a = await newWorkspace(t, root);
    b = await newWorkspace(t, root);
    db = t.app.get(Database);
  });
  afterAll(() => t.close());

  const batch = (w: Workspace, items: unknown, requestId?: string) => {
    const req = t.http.post('/api/customers/batch').set('Authorization', w.manager.token);
    if (requestId) req.set('x-request-id', requestId);
    return req.send(items === undefined ? {} : { items });
  };
  const byExternalId = async (w: Workspace, externalId: string) =>
    dataOf(w.manager.get('/api/customers', { external_id: externalId, limit: 100 }));

  it('creates, updates, leaves unchanged and fails, one result per item in order', async () => {
    const existing = await dataOf(a.manager.post('/api/customers', item('b-upd', { phone: '+1 555' })), 201);
    const same = await dataOf(a.manager.post('/api/customers', item('b-same')), 201);
    // The same key in another tenant is not ours: it is created here.
    await dataOf(b.manager.post('/api/customers', item('b-other')), 201);

    const res = await batch(a, [
      item('b-new', { attributes: '{"tier":"gold"}', is_active: '0' }),
      { external_id: 'b-upd', last_name: 'King' },
      item('b-same'),
      { external_id: 'b-bad', email: 'not-an-e-mail', attributes: '{' },
      item(null),
      7,
      item('b-other'),
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      message: expect.any(String),
      data: [
        { index: 0, status: 'created', id: expect.any(Number) },
        { index: 1, status: 'updated', id: existing.id },
        { index: 2, status: 'unchanged', id: same.id },
        {
          index: 3,
          status: 'failed',
          id: null,
          errors: {
            email: ['The email field must be a valid email address.'],
            attributes: ['The attributes field must be a valid JSON string.'],
          },
        },
        { index: 4, status: 'created', id: expect.any(Number) },
        { index: 5, status: 'failed', id: null, errors: { item: ['The item must be an object.'] } },
        { index: 6, status: 'created', id: expect.any(Number) },
      ],
      meta: { created: 3, updated: 1, unchanged: 1, failed: 2 },
    });
    const [created] = await byExternalId(a, 'b-new');
    expect(created).toMatchObject({
      id: res.body.data[0].id,
      tenant_id: a.tenantId,
      first_name: 'Ada',
      email: 'b-new@example.com',
      attributes: '{"tier":"gold"}',
      is_active: false,
    });
    // An update changes only what the item sent (as PUT does).
    const [updated] = await byExternalId(a, 'b-upd');
    expect(updated).toEqual({ ...existing, last_name: 'King', updated_at: expect.any(String) });
    expect(await byExternalId(a, 'b-bad')).toEqual([]);
    expect((await dataOf(a.manager.get(`/api/customers/${res.body.data[4].id}`))).external_id).toBeNull();
    expect(await byExternalId(b, 'b-other')).toHaveLength(1);
    expect((await byExternalId(a, 'b-other'))[0].id).toBe(res.body.data[6].id);
  });

  it('answers 422 on items, writing nothing, for a missing, non-array, empty or too long list', async () => {
    const cases: [unknown, string][] = [
      [undefined, 'The items field is required.'],
      ['x', 'The items field must be an array.'],
      [{ external_id: 'x' }, 'The items field must be an array.'],
      [[], 'The items field must have at least 1 items.'],
      [
        Array.from({ length: 1001 }, (_, i) => item(`too-many-${i}`)),
        'The items field must not have more than 1000 items.',
      ],
    ];
    for (const [items, message] of cases) {
      const res = await batch(a, items);
      expect({ items: JSON.stringify(items)?.slice(0, 40), status: res.status, body: res.body }).toEqual({
        items: JSON.stringify(items)?.slice(0, 40),
        status: 422,
        body: { message, errors: { items: [message] } },
      });
    }
    expect(await byExternalId(a, 'too-many-0')).toEqual([]);
    // Exactly 1,000 is fine.
    const full = await batch(
      a,
      Array.from({ length: 1000 }, (_, i) => item(`full-${i}`)),
    );
    expect(full.status).toBe(200);
    expect(full.body.meta).toEqual({ created: 1000, updated: 0, unchanged: 0, failed: 0 });
  });

  it('fails the later of two items with the same external id', async () => {
    const res = await batch(a, [
      item('dup-1', { first_name: 'First' }),
      item('dup-2'),
      item('dup-1', { first_name: 'Second' }),
    ]);
    expect(res.body.data).toEqual([
      { index: 0, status: 'created', id: expect.any(Number) },
      { index: 1, status: 'created', id: expect.any(Number) },
      {
        index: 2,
        status: 'failed',
        id: null,
        errors: { external_id: ['The external id field has a duplicate value.'] },
      },
    ]);
    const [kept] = await byExternalId(a, 'dup-1');
    expect(kept.first_name).toBe('First');
    // Also when the key exists already: the first item updates, the second fails.
    const again = await batch(a, [item('dup-1', { first_name: 'Third' }), item('dup-1', { first_name: 'Fourth' })]);
    expect(again.body.data.map((r: Body) => r.status)).toEqual(['updated', 'failed']);
    expect((await byExternalId(a, 'dup-1'))[0].first_name).toBe('Third');
  });

  it('compares external ids exactly, on both databases: case, accents and trailing spaces make other keys', async () => {
    const keys = ['Coll-1', 'coll-1 ', 'Café-2', 'Cafe-2'];
    const res = await batch(
      a,
      keys.map((key) => item(key, { email: null })),
    );
    expect(res.body.data.map((r: Body) => r.status)).toEqual(['created', 'created', 'created', 'created']);
    // Each names its own customer from then on; a key that differs in case only is a new customer.
    const again = await batch(a, [item('Coll-1', { first_name: 'Same' }), item('COLL-1', { first_name: 'Upper' })]);
    expect(again.body.data.map((r: Body) => r.status)).toEqual(['updated', 'created']);
    expect(again.body.data[0].id).toBe(res.body.data[0].id);
  });

  it('lets racing batches on the same new external ids create each customer once, never a 5xx', async () => {
    // Enough rows that on MariaDB the creates go as LOAD DATA, whose duplicate keys are warnings.
    const keys = Array.from({ length: LOAD_DATA_MIN_ROWS + 20 }, (_, i) => `race-${i}`);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        batch(
          a,
          keys.map((key) => item(key, { first_name: `Racer ${n}` })),
        ),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    for (const [k, key] of keys.entries()) {
      const statuses = answers.map((r) => r.body.data[k].status).sort();
      expect(statuses.filter((s: string) => s === 'created')).toHaveLength(1);
      expect(statuses.filter((s: string) => s === 'failed')).toHaveLength(0);
      const ids = new Set(answers.map((r) => r.body.data[k].id));
      expect(ids.size).toBe(1);
      expect(await byExternalId(a, key)).toHaveLength(1);
    }
  });

  it('logs one entry per created or updated customer, with the request id as batch_uuid', async () => {
    await batch(a, [item('log-upd'), item('log-same')]);
    const requestId = 'batch-log-test-0001';
    const res = await batch(
      a,
      [item('log-new'), item('log-upd', { phone: '+2' }), item('log-same'), { email: 'x' }],
      requestId,
    );
    expect(res.headers['x-request-id']).toBe(requestId);
    const [created, updated] = res.body.data;
    const entries = await db.query<{
      subject_id: number;
      event: string;
      properties: string;
      causer_id: number;
      tenant_id: number;
    }>(
      'SELECT subject_id, event, properties, causer_id, tenant_id FROM activity_log WHERE batch_uuid = ? ORDER BY id',
      [requestId],
    );
    expect(entries.map((e) => [Number(e.subject_id), e.event, Number(e.causer_id), Number(e.tenant_id)])).toEqual([
      [created.id, 'created', a.managerUser.id, a.tenantId],
      [updated.id, 'updated', a.managerUser.id, a.tenantId],
    ]);
    expect(JSON.parse(entries[0].properties).attributes).toMatchObject({
      id: created.id,
      tenant_id: a.tenantId,
      external_id: 'log-new',
      email: 'log-new@example.com',
      is_active: true,
    });
    expect(JSON.parse(entries[1].properties)).toEqual({ attributes: { phone: '+2' }, old: { phone: null } });
  });

  it('finds the ids of created customers also where auto-increment ids may interleave (read back by key)', async () => {
    const spy = jest.spyOn(t.app.get(InsertIds), 'consecutiveStep').mockResolvedValue(null);
    try {
      const items = [
        item('rb-1', { first_name: 'One' }),
        item(null, { first_name: 'Two' }),
        item('rb-3', { first_name: 'Three' }),
      ];
      const res = await batch(a, items);
      expect(res.body.meta).toEqual({ created: 3, updated: 0, unchanged: 0, failed: 0 });
      for (const [n, result] of res.body.data.entries()) {
        expect(await dataOf(a.manager.get(`/api/customers/${result.id}`))).toMatchObject({
          external_id: items[n].external_id,
          first_name: items[n].first_name,
        });
      }
    } finally {
      spy.mockRestore();
    }
  });

  it('counts once against the rate limit', async () => {
    const first = await batch(a, [item('rl-1')]);
    const second = await batch(
      a,
      Array.from({ length: 300 }, (_, i) => item(`rl-many-${i}`)),
    );
    expect(Number(first.headers['x-ratelimit-remaining']) - Number(second.headers['x-ratelimit-remaining'])).toBe(1);
  });

  it('needs customers.manage', async () => {
    const res = await t.http
      .post('/api/customers/batch')
      .set('Authorization', a.viewer.token)
      .send({ items: [item('v')] });
    expect(res.status).toBe(403);
    const viewer = client(t, (await newUser(t, root, ['viewer'], a.tenantId)).token);
    expect((await viewer.post('/api/customers/batch', { items: [] })).status).toBe(403);
  });
});
