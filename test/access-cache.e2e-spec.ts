import { login } from './support/auth.js';
import { newUser, type TestUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

// Permissions are cached per (user, access version); the version is read with the token on every
// request, so a role change must take effect on the user's next request, on every instance.
describe('permissions across instances', () => {
  let a: TestApp;
  let b: TestApp;
  let admin: string;
  let user: TestUser;

  beforeAll(async () => {
    const limits = { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 };
    a = await createTestApp({ config: limits });
    b = await createTestApp({ sharedWith: a, config: limits });
    admin = await login(a);
    user = await newUser(a, admin, ['viewer']);
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
  });

  const setRoles = (roles: string[]) =>
    a.http
      .put(`/api/admin/users/${user.id}`)
      .set('Authorization', admin)
      .send({ name: 'Cached', email: user.email, roles })
      .expect(200);
  const createCustomer = () => b.http.post('/api/customers').set('Authorization', user.token).send({});

  it('takes a promotion into account on the next request of the other instance', async () => {
    expect((await createCustomer()).status).toBe(403); // instance b now holds the viewer's permissions
    await setRoles(['manager']);
    expect((await createCustomer()).status).toBe(201);
  });

  it('takes a demotion into account on the next request of the other instance', async () => {
    await setRoles(['manager']);
    expect((await createCustomer()).status).toBe(201);
    await setRoles(['viewer']);
    expect((await createCustomer()).status).toBe(403);
    const me = await b.http.get('/api/user').set('Authorization', user.token).expect(200);
    expect(me.body.data.roles).toEqual(['viewer']);
    expect(me.body.data.permissions).not.toContain('customers.manage');
  });
});
