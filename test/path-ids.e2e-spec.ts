import { ADMIN, login } from './support/auth.js';
import { planBody } from './support/marketing-factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * A path id is written as a positive integer, digits only, or it names no record (API-CONVENTIONS §3):
 * `01`, `+1`, `1.0`, `1e0`, `0x1` and `1` with a space around it name no record, even where record 1
 * exists, and a DELETE of one changes nothing.
 */
describe('path ids', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
  });
  afterAll(() => t.close());

  /** Spellings that a number conversion would read as `id`, and the contract does not. */
  const otherSpellings = (id: number) => [
    `0${id}`,
    `+${id}`,
    `${id}.0`,
    `${id}e0`,
    `0x${id.toString(16)}`,
    `%20${id}`,
    `${id}%20`,
    `%09${id}`,
  ];

  async function expectNoRecord(method: 'get' | 'delete', path: string, token = admin) {
    const res = await t.http[method](path).set('Authorization', token);
    expect({ path, status: res.status }).toEqual({ path, status: 404 });
    expect(res.body).toEqual({ message: expect.any(String) });
  }

  const createCustomer = async (firstName: string): Promise<number> => {
    const res = await t.http
      .post('/api/customers')
      .set('Authorization', admin)
      .send({ first_name: firstName, email: `${firstName.toLowerCase()}@example.com` })
      .expect(201);
    return res.body.data.id as number;
  };

  it('reads a record by its id and by no other spelling of it, on every kind of route', async () => {
    const customerId = await createCustomer('Ada');
    const program = await t.http
      .post('/api/marketing-programs')
      .set('Authorization', admin)
      .send(planBody())
      .expect(201);
    const me = await t.http.get('/api/user').set('Authorization', admin).expect(200);
    const records: [collection: string, id: number][] = [
      ['/api/customers', customerId],
      ['/api/marketing-programs', program.body.data.id],
      ['/api/admin/users', me.body.data.id],
      ['/api/admin/tenants', me.body.data.tenant_id],
    ];
    for (const [collection, id] of records) {
      await t.http.get(`${collection}/${id}`).set('Authorization', admin).expect(200);
      for (const spelling of otherSpellings(id)) await expectNoRecord('get', `${collection}/${spelling}`);
    }
  });

  it('deletes nothing through another spelling of an id', async () => {
    const id = await createCustomer('Grace');
    for (const spelling of otherSpellings(id)) await expectNoRecord('delete', `/api/customers/${spelling}`);
    await t.http.get(`/api/customers/${id}`).set('Authorization', admin).expect(200);

    const second = await login(t, ADMIN.email, ADMIN.password, 'second device');
    const tokens = await t.http.get('/api/user/tokens').set('Authorization', second).expect(200);
    const first = (tokens.body.data as { id: number; name: string }[]).find((token) => token.name === 'jest');
    expect(first).toBeDefined();
    for (const spelling of otherSpellings(first!.id)) {
      await expectNoRecord('delete', `/api/user/tokens/${spelling}`, second);
    }
    await t.http.get('/api/user').set('Authorization', admin).expect(200);
  });
});
