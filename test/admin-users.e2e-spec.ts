import { ADMIN, login } from './support/auth.js';
import { ALL_PERMISSIONS } from '../src/common/auth/permissions.js';
import { newTenant, newUser, seedUsers, type TestUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const noSecrets = (body: unknown) => {
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/\$2[aby]\$/);
  expect(text).not.toMatch(/"password"/);
};

describe('admin: users', () => {
  let t: TestApp;
  let root: string;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
    root = await login(t);
    admin = await newUser(t, root, ['admin']);
  });
  afterAll(() => t.close());

  describe('createUser, getUser, listUsers, updateUser, deleteUser: every route of /api/admin/users', () => {
    it('creates, reads, lists, updates and deletes a user', async () => {
      const created = await t.http
        .post('/api/admin/users')
        .set('Authorization', admin.token)
        .send({
          name: 'Grace',
          email: 'Grace@Example.com',
          password: 'long-enough',
          roles: ['manager', 'viewer'],
          tenant_id: 999,
          id: 5,
        })
        .expect(201);
      noSecrets(created.body);
      const user = created.body.data;
      expect(user).toEqual({
        id: expect.any(Number),
        tenant_id: admin.tenant_id,
        name: 'Grace',
        email: 'grace@example.com',
        is_active: true,
        roles: ['manager', 'viewer'],
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      });
      expect(created.body.code).toBe(201);

      const read = await t.http.get(`/api/admin/users/${user.id}`).set('Authorization', admin.token).expect(200);
      expect(read.body.data).toEqual(user);

      const list = await t.http.get('/api/admin/users?q=grace').set('Authorization', admin.token).expect(200);
      expect(list.body.data).toEqual([user]);
      expect(list.body.meta).toEqual({ limit: 25, next_cursor: null, has_more: false });
      noSecrets(list.body);

      const updated = await t.http
        .put(`/api/admin/users/${user.id}`)
        .set('Authorization', admin.token)
        .send({ name: 'Grace H.', email: 'grace@example.com', roles: ['viewer'], password: null })
        .expect(200);
      expect(updated.body.data).toMatchObject({ name: 'Grace H.', roles: ['viewer'] });
      await login(t, 'grace@example.com', 'long-enough');

      await t.http
        .delete(`/api/admin/users/${user.id}`)
        .set('Authorization', admin.token)
        .expect(200, { code: 200, message: 'Deleted successfully.', data: null });
      await t.http.get(`/api/admin/users/${user.id}`).set('Authorization', admin.token).expect(404);
    });
  });

  describe('listUsers: GET /api/admin/users', () => {
    it('pages through users with keyset cursors, no gaps or repeats', async () => {
      const tenant = await newTenant(t, root);
      const owner = await newUser(t, root, ['admin'], tenant.id);
      await seedUsers(t, tenant.id, 11); // users that only need to exist: no HTTP, no bcrypt each
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const res: { body: { data: { id: number }[]; meta: { total: number; next_cursor: string | null } } } =
          await t.http
            .get('/api/admin/users')
            .query({ limit: 5, with_total: true, ...(cursor ? { cursor } : {}) })
            .set('Authorization', owner.token)
            .expect(200);
        expect(res.body.meta.total).toBe(12);
        seen.push(...res.body.data.map((u) => u.id));
        cursor = res.body.meta.next_cursor;
      } while (cursor);
      expect(seen).toHaveLength(12);
      expect([...seen].sort((a, b) => b - a)).toEqual(seen);

      for (const sort of ['created_at', '-created_at', 'name', '-email']) {
        const ids: number[] = [];
        let next: string | null = null;
        do {
          const page: { body: { data: { id: number }[]; meta: { next_cursor: string | null } } } = await t.http
            .get('/api/admin/users')
            .query({ limit: 5, sort, ...(next ? { cursor: next } : {}) })
            .set('Authorization', owner.token)
            .expect(200);
          ids.push(...page.body.data.map((u) => u.id));
          next = page.body.meta.next_cursor;
        } while (next);
        expect({ sort, count: ids.length, unique: new Set(ids).size }).toEqual({ sort, count: 12, unique: 12 });
      }
      const mismatched = await t.http.get('/api/admin/users?limit=5&sort=name').set('Authorization', owner.token);
      await t.http
        .get(`/api/admin/users?sort=email&cursor=${mismatched.body.meta.next_cursor}`)
        .set('Authorization', owner.token)
        .expect(422);

      const byName = await t.http
        .get('/api/admin/users?sort=name&limit=100')
        .set('Authorization', owner.token)
        .expect(200);
      const names = byName.body.data.map((u: { name: string }) => u.name);
      expect(names).toEqual([...names].sort());

      for (const bad of [
        'limit=0',
        'limit=101',
        'limit=abc',
        'sort=password',
        'cursor=not-a-cursor',
        'is_active=maybe',
      ]) {
        const res = await t.http.get(`/api/admin/users?${bad}`).set('Authorization', owner.token);
        expect({ bad, status: res.status }).toEqual({ bad, status: 422 });
      }
    });
  });

  describe('createUser: POST /api/admin/users', () => {
    it('answers 422 for each field rule, writing nothing', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ email: 'never-written@example.com', password: 'long-enough' }, 'name'],
        [{ name: 'x'.repeat(256), email: 'never-written@example.com', password: 'long-enough' }, 'name'],
        [{ name: 'A', password: 'long-enough' }, 'email'],
        [{ name: 'A', email: 'not-an-email', password: 'long-enough' }, 'email'],
        [{ name: 'A', email: ADMIN.email, password: 'long-enough' }, 'email'],
        [{ name: 'A', email: 'never-written@example.com' }, 'password'],
        [{ name: 'A', email: 'never-written@example.com', password: 'short' }, 'password'],
        [
          { name: 'A', email: 'never-written@example.com', password: 'long-enough', roles: ['no-such-role'] },
          'roles.0',
        ],
        [{ name: 'A', email: 'never-written@example.com', password: 'long-enough', roles: 'admin' }, 'roles'],
        [{ name: 42, email: 'never-written@example.com', password: 'long-enough' }, 'name'],
      ];
      for (const [body, key] of cases) {
        const res = await t.http.post('/api/admin/users').set('Authorization', admin.token).send(body);
        expect({ key, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
          key,
          status: 422,
          keys: [key],
        });
      }
      const list = await t.http.get('/api/admin/users?q=never-written').set('Authorization', admin.token).expect(200);
      expect(list.body.data).toEqual([]);
    });
  });

  describe("deleteUser, updateUser: the caller's own account", () => {
    it('refuses to delete or deactivate your own account (409) and to change your own roles (403)', async () => {
      await t.http.delete(`/api/admin/users/${admin.id}`).set('Authorization', admin.token).expect(409);
      const me = (await t.http.get(`/api/admin/users/${admin.id}`).set('Authorization', admin.token)).body.data;
      await t.http
        .put(`/api/admin/users/${admin.id}`)
        .set('Authorization', admin.token)
        .send({ name: me.name, email: me.email, is_active: false })
        .expect(409);
      await t.http
        .put(`/api/admin/users/${admin.id}`)
        .set('Authorization', admin.token)
        .send({ name: me.name, email: me.email, roles: ['viewer'] })
        .expect(403, { message: 'This action is unauthorized.' });
    });
  });

  describe('createUser, deleteUser: the super-admin role', () => {
    it('lets only a super-admin grant the super-admin role', async () => {
      const body = { name: 'Root 2', email: 'root2@example.com', password: 'long-enough', roles: ['super-admin'] };
      await t.http.post('/api/admin/users').set('Authorization', admin.token).send(body).expect(403);
      const created = await t.http.post('/api/admin/users').set('Authorization', root).send(body).expect(201);
      await t.http.delete(`/api/admin/users/${created.body.data.id}`).set('Authorization', admin.token).expect(403);
      await t.http.delete(`/api/admin/users/${created.body.data.id}`).set('Authorization', root).expect(200);
    });
  });

  describe('updateUser: PUT /api/admin/users/{user_id}', () => {
    it('revokes every token of a user who is deactivated, and refuses their login', async () => {
      const user = await newUser(t, admin.token, ['viewer']);
      const second = await login(t, user.email, user.password, 'phone');
      await t.http.get('/api/user').set('Authorization', second).expect(200);
      const me = (await t.http.get(`/api/admin/users/${user.id}`).set('Authorization', admin.token)).body.data;
      await t.http
        .put(`/api/admin/users/${user.id}`)
        .set('Authorization', admin.token)
        .send({ name: me.name, email: me.email, is_active: false })
        .expect(200);
      await t.http.get('/api/user').set('Authorization', user.token).expect(401);
      await t.http.get('/api/user').set('Authorization', second).expect(401);
      const refused = await t.http
        .post('/api/login')
        .send({ email: user.email, password: user.password, device_name: 'd' });
      expect(refused.status).toBe(422);
      expect(Object.keys(refused.body.errors)).toEqual(['email']);
    });
  });

  describe('getUser, updateUser, deleteUser, listUsers: other tenants and X-Tenant-ID', () => {
    it("answers 404 for another tenant's users and ignores X-Tenant-ID from non-super-admins", async () => {
      const tenant = await newTenant(t, root);
      const other = await newUser(t, root, ['admin'], tenant.id);
      expect(other.tenant_id).toBe(tenant.id);
      for (const [method, path] of [
        ['get', `/api/admin/users/${admin.id}`],
        ['put', `/api/admin/users/${admin.id}`],
        ['delete', `/api/admin/users/${admin.id}`],
      ] as const) {
        const res = await t.http[method](path)
          .set('Authorization', other.token)
          .send({ name: 'x', email: 'x@example.com' });
        expect({ method, status: res.status }).toEqual({ method, status: 404 });
      }
      const list = await t.http
        .get('/api/admin/users?limit=100')
        .set('Authorization', other.token)
        .set('X-Tenant-ID', String(admin.tenant_id));
      expect(list.body.data.map((u: { tenant_id: number }) => u.tenant_id)).toEqual([tenant.id]);
      // The super-admin may act inside the other tenant.
      await t.http.get(`/api/admin/users/${other.id}`).set('Authorization', root).expect(404);
      await t.http
        .get(`/api/admin/users/${other.id}`)
        .set('Authorization', root)
        .set('X-Tenant-ID', String(tenant.id))
        .expect(200);
      await t.http.get('/api/admin/users').set('Authorization', root).set('X-Tenant-ID', '999999').expect(404);
      await t.http.get('/api/admin/users').set('Authorization', root).set('X-Tenant-ID', 'abc').expect(404);
    });
  });

  describe('currentUser: GET /api/user', () => {
    it('answers GET /api/user with the user, roles and permissions, never a hash', async () => {
      const res = await t.http.get('/api/user').set('Authorization', admin.token).expect(200);
      noSecrets(res.body);
      expect(res.body.data).toMatchObject({ id: admin.id, email: admin.email, roles: ['admin'] });
      expect(res.body.data.permissions).toContain('users.manage');
      expect(res.body.data.permissions).not.toContain('tenants.view');
    });
  });

  describe('listRoles, listPermissions: GET /api/admin/roles, GET /api/admin/permissions', () => {
    it('lists roles with their permissions, and permissions', async () => {
      const roles = await t.http.get('/api/admin/roles?sort=name').set('Authorization', admin.token).expect(200);
      expect(roles.body.data.map((r: { name: string }) => r.name)).toEqual([
        'admin',
        'manager',
        'super-admin',
        'viewer',
      ]);
      const viewer = roles.body.data.find((r: { name: string }) => r.name === 'viewer');
      expect(viewer).toEqual({
        id: expect.any(Number),
        name: 'viewer',
        guard_name: 'api',
        permissions: [
          'audiences.view',
          'customers.view',
          'destinations.view',
          'marketing.view',
          'validation-rules.view',
        ],
      });
      const permissions = await t.http
        .get('/api/admin/permissions?limit=100')
        .set('Authorization', admin.token)
        .expect(200);
      expect((permissions.body.data as { name: string }[]).map((p) => p.name).sort()).toEqual(
        [...ALL_PERMISSIONS].sort(),
      );
    });
  });
});
