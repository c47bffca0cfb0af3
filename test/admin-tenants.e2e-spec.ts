import { login } from './support/auth.js';
import { newTenant, newUser, type TestUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('admin: tenants', () => {
  let t: TestApp;
  let root: string;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
    root = await login(t);
    admin = await newUser(t, root, ['admin']);
  });
  afterAll(() => t.close());

  describe('createTenant, getTenant, listTenants, updateTenant, deleteTenant: every route of /api/admin/tenants', () => {
    it('creates, reads, lists, updates and deletes a tenant (super-admin)', async () => {
      const created = await t.http
        .post('/api/admin/tenants')
        .set('Authorization', root)
        .send({ name: 'Initech', description: 'Reports', id: 77 })
        .expect(201);
      const tenant = created.body.data;
      expect(tenant).toEqual({
        id: expect.any(Number),
        name: 'Initech',
        description: 'Reports',
        is_active: true,
        limits: {
          api_calls_per_day: null,
          customers: null,
          audiences: null,
          campaigns: null,
          webhooks: null,
          tracked_events_per_day: null,
        },
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      });
      await t.http
        .get(`/api/admin/tenants/${tenant.id}`)
        .set('Authorization', root)
        .expect(200, { code: 200, message: 'Retrieved successfully.', data: tenant });
      const list = await t.http.get('/api/admin/tenants?q=Initech').set('Authorization', root).expect(200);
      expect(list.body.data).toEqual([tenant]);
      const updated = await t.http
        .put(`/api/admin/tenants/${tenant.id}`)
        .set('Authorization', root)
        .send({ name: 'Initech 2', description: null, is_active: '0' })
        .expect(200);
      expect(updated.body.data).toMatchObject({ name: 'Initech 2', description: null, is_active: false });
      await t.http.delete(`/api/admin/tenants/${tenant.id}`).set('Authorization', root).expect(200);
      await t.http.get(`/api/admin/tenants/${tenant.id}`).set('Authorization', root).expect(404);
    });
  });

  describe('createTenant: POST /api/admin/tenants', () => {
    it('rejects invalid and duplicate names with 422, writing nothing', async () => {
      const existing = await newTenant(t, root);
      for (const [body, key] of [
        [{}, 'name'],
        [{ name: '' }, 'name'],
        [{ name: 'x'.repeat(256) }, 'name'],
        [{ name: existing.name }, 'name'],
        [{ name: 'Fine', description: 'd'.repeat(256) }, 'description'],
        [{ name: 'Fine', is_active: 'perhaps' }, 'is_active'],
        [{ name: 'Fine', is_active: null }, 'is_active'],
      ] as [Record<string, unknown>, string][]) {
        const res = await t.http.post('/api/admin/tenants').set('Authorization', root).send(body);
        expect({ body, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
          body,
          status: 422,
          keys: [key],
        });
      }
      const list = await t.http.get('/api/admin/tenants?q=Fine').set('Authorization', root).expect(200);
      expect(list.body.data).toEqual([]);
    });
  });

  describe('deleteTenant, updateTenant: a tenant that has users', () => {
    it('refuses to delete a tenant that has users (409), and deactivating it locks its users out', async () => {
      const tenant = await newTenant(t, root);
      const member = await newUser(t, root, ['manager'], tenant.id);
      const conflict = await t.http.delete(`/api/admin/tenants/${tenant.id}`).set('Authorization', root).expect(409);
      expect(conflict.body.message).toMatch(/1 user/);

      await t.http
        .put(`/api/admin/tenants/${tenant.id}`)
        .set('Authorization', root)
        .send({ name: tenant.name, is_active: false })
        .expect(200);
      await t.http.get('/api/user').set('Authorization', member.token).expect(401);
      const refused = await t.http
        .post('/api/login')
        .send({ email: member.email, password: member.password, device_name: 'd' });
      expect(refused.status).toBe(422);
      expect(refused.body.errors.email).toEqual(['This account is inactive.']);

      await t.http
        .put(`/api/admin/tenants/${tenant.id}`)
        .set('Authorization', root)
        .send({ name: tenant.name, is_active: true })
        .expect(200);
      await login(t, member.email, member.password);
    });
  });

  describe('listTenants, createTenant, getTenant: super-admins only', () => {
    it('is for super-admins only: an admin gets 403', async () => {
      await t.http
        .get('/api/admin/tenants')
        .set('Authorization', admin.token)
        .expect(403, { message: 'This action is unauthorized.' });
      await t.http.post('/api/admin/tenants').set('Authorization', admin.token).send({ name: 'Nope' }).expect(403);
      await t.http.get(`/api/admin/tenants/${admin.tenant_id}`).set('Authorization', admin.token).expect(403);
    });
  });

  describe('getTenant: GET /api/admin/tenants/{tenant_id}', () => {
    it('answers 404 for unknown and non-numeric tenant ids', async () => {
      for (const id of ['999999', 'abc', '0', '-1', '1.5']) {
        await t.http.get(`/api/admin/tenants/${id}`).set('Authorization', root).expect(404);
      }
    });
  });
});
