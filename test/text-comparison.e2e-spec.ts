import { login } from './support/auth.js';
import {
  client,
  created,
  dataOf,
  listAll,
  newWorkspace,
  startApp,
  type Client,
  type Row,
} from './support/campaign-fixtures.js';
import { planBody } from './support/marketing-factories.js';
import type { TestApp } from './support/test-app.js';

/**
 * One behaviour on both databases (run on SQLite and on MariaDB): identifiers compare exactly,
 * e-mail addresses and tenant names are unique regardless of case, `q` matches regardless of case,
 * and name sorts ignore case with ties broken by id (docs/architecture.md, "Text: case and comparison").
 */
describe('text comparison is the same on every database', () => {
  let t: TestApp;
  let root: string;
  let api: Client;

  beforeAll(async () => {
    t = await startApp();
    root = await login(t);
    api = (await newWorkspace(t, root)).manager;
  });
  afterAll(() => t.close());

  it('keeps external ids abc, ABC and "abc " apart: each its own customer, each found by itself', async () => {
    const keys = ['abc', 'ABC', 'abc ', 'ábc'];
    const customers: Row[] = [];
    for (const external_id of keys) customers.push(await created(api.post('/api/customers', { external_id })));
    expect(new Set(customers.map((c) => c.id)).size).toBe(keys.length);
    for (const [i, external_id] of keys.entries()) {
      const found = await dataOf(api.get('/api/customers', { external_id }));
      expect(found.map((c: Row) => c.id)).toEqual([customers[i].id]);
    }
    // A batch names each of them exactly too.
    const batch = await dataOf(
      api.post('/api/customers/batch', { items: keys.map((external_id, i) => ({ external_id, first_name: `N${i}` })) }),
    );
    expect(batch.map((r: Row) => [r.status, r.id])).toEqual(customers.map((c) => ['updated', c.id]));
    // And a repeated key is still refused: exactly equal is equal.
    const again = await api.post('/api/customers', { external_id: 'abc' });
    expect(again.status).toBe(422);
    expect(again.body.errors).toHaveProperty('external_id');
  });

  it('refuses an e-mail address that differs from a user’s only in case', async () => {
    const email = `Case-${Date.now()}@Example.com`;
    const first = await t.http
      .post('/api/admin/users')
      .set('Authorization', root)
      .send({ name: 'First', email, password: 'a-long-password-1', roles: ['viewer'] });
    expect(first.status).toBe(201);
    expect(first.body.data.email).toBe(email.toLowerCase());
    const second = await t.http
      .post('/api/admin/users')
      .set('Authorization', root)
      .send({ name: 'Second', email: email.toUpperCase(), password: 'a-long-password-1', roles: ['viewer'] });
    expect(second.status).toBe(422);
    expect(second.body.errors).toHaveProperty('email');
  });

  it('refuses a tenant name that differs from another only in case, on create and on rename', async () => {
    const mark = Date.now().toString(36);
    const admin = client(t, root);
    const acme = await created(admin.post('/api/admin/tenants', { name: `Acme ${mark} Émile` }));
    for (const name of [`ACME ${mark} ÉMILE`, `acme ${mark} émile`]) {
      const res = await admin.post('/api/admin/tenants', { name });
      expect({ name, status: res.status, errors: Object.keys(res.body.errors ?? {}) }).toEqual({
        name,
        status: 422,
        errors: ['name'],
      });
    }
    const other = await created(admin.post('/api/admin/tenants', { name: `Other ${mark}` }));
    const rename = await admin.put(`/api/admin/tenants/${other.id}`, { name: `acme ${mark} ÉMILE` });
    expect(rename.status).toBe(422);
    // Accents are not case: a name that differs by one is another name.
    await created(admin.post('/api/admin/tenants', { name: `Acme ${mark} Emile` }));
    // A tenant may change the case of its own name.
    const own = await admin.put(`/api/admin/tenants/${acme.id}`, { name: `ACME ${mark} ÉMILE` });
    expect(own.status).toBe(200);
  });

  it('matches q regardless of case, beyond ASCII, and nothing else', async () => {
    const mark = Date.now().toString(36);
    const names = [`Zoë ${mark}`, `ZOË ${mark}`, `zoe ${mark}`, `Ünal ${mark}`];
    const rows: Row[] = [];
    for (const name of names) rows.push(await created(api.post('/api/marketing-programs', planBody({ name }))));
    const ids = async (path: string, q: string) =>
      (await listAll(api, path, { q })).rows.map((r) => r.id).sort((a, b) => a - b);
    expect(await ids('/api/marketing-programs', `zoË ${mark}`)).toEqual([rows[0].id, rows[1].id]);
    expect(await ids('/api/marketing-programs', `üNAL`)).toEqual([rows[3].id]);

    const customer = await created(
      api.post('/api/customers', {
        first_name: 'Émile',
        last_name: `Straße${mark}`,
        email: `emile.${mark}@example.com`,
      }),
    );
    expect(await ids('/api/customers', 'éMILE')).toContain(customer.id);
    expect(await ids('/api/customers', `STRASSE${mark}`)).toEqual([]);
    expect(await ids('/api/customers', `STRAßE${mark}`)).toEqual([customer.id]);
    expect(await ids('/api/customers', `EMILE.${mark}@`)).toEqual([customer.id]);
  });

  it('sorts names ignoring case, ties by id, both directions and across pages', async () => {
    const ws = await newWorkspace(t, root);
    const names = ['b', 'A', 'a', 'B', 'É', 'e', 'ä', 'Z', 'z', '_x', '10', '9', 'İx', 'ix'];
    const rows: Row[] = [];
    for (const name of names) rows.push(await created(ws.manager.post('/api/audiences', { name, rules: [] })));
    const expected = [...rows].sort((x, y) => {
      const a = String(x.name).toLowerCase();
      const b = String(y.name).toLowerCase();
      return a < b ? -1 : a > b ? 1 : x.id - y.id;
    });
    const listed = async (sort: string) =>
      (await listAll(ws.manager, '/api/audiences', { sort, limit: 3 })).rows.map((r) => r.name);
    expect(await listed('name')).toEqual(expected.map((r) => r.name));
    expect(await listed('-name')).toEqual([...expected].reverse().map((r) => r.name));

    // Customers sort by last name the same way (NULLs first ascending).
    const people: Row[] = [];
    for (const last_name of ['b', 'A', null, 'a', 'É', 'e'])
      people.push(await created(ws.manager.post('/api/customers', { last_name })));
    const byLastName = [...people].sort((x, y) => {
      if (x.last_name === null || y.last_name === null)
        return x.last_name === y.last_name ? x.id - y.id : x.last_name === null ? -1 : 1;
      const a = String(x.last_name).toLowerCase();
      const b = String(y.last_name).toLowerCase();
      return a < b ? -1 : a > b ? 1 : x.id - y.id;
    });
    const customers = (await listAll(ws.manager, '/api/customers', { sort: 'last_name', limit: 2 })).rows;
    expect(customers.map((r) => r.id)).toEqual(byLastName.map((r) => r.id));
  });
});
