import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { USER_MODEL_TYPE } from '../../src/common/auth/auth-user.js';
import { PasswordHasher } from '../../src/common/auth/password-hasher.js';
import { GUARD_NAME } from '../../src/common/auth/permissions.js';
import { wholeSecondNow } from '../../src/common/persistence/columns.js';
import { Role } from '../../src/modules/auth/entities/role.entity.js';
import { User } from '../../src/modules/auth/entities/user.entity.js';
import { tokenFor } from './auth.js';
import type { TestApp } from './test-app.js';
import { sortKeyOf } from '../../src/common/persistence/sort-key.js';

const unique = () => randomBytes(4).toString('hex');

export interface TestUser {
  id: number;
  tenant_id: number;
  email: string;
  password: string;
  token: string;
}

/** A tenant created by the super-admin. */
export async function newTenant(
  t: TestApp,
  superAdmin: string,
  name = `Tenant ${unique()}`,
): Promise<{ id: number; name: string }> {
  const res = await t.http.post('/api/admin/tenants').set('Authorization', superAdmin).send({ name });
  if (res.status !== 201) throw new Error(`tenant creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/**
 * A signed-in user with the given roles, in the creator's tenant or (super-admin) in `tenantId`.
 * Created through POST /api/admin/users (its password hashed once, there); its token is issued
 * directly (`tokenFor`), not by signing in, which would spend a second bcrypt on the password.
 */
export async function newUser(t: TestApp, creator: string, roles: string[], tenantId?: number): Promise<TestUser> {
  const email = `user-${unique()}@example.com`;
  const password = `pw-${unique()}-long`;
  const req = t.http.post('/api/admin/users').set('Authorization', creator);
  if (tenantId) req.set('X-Tenant-ID', String(tenantId));
  const res = await req.send({ name: `User ${email}`, email, password, roles });
  if (res.status !== 201) throw new Error(`user creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return {
    id: res.body.data.id,
    tenant_id: res.body.data.tenant_id,
    email,
    password,
    token: await tokenFor(t, res.body.data.id),
  };
}

/** The password of every user `seedUsers` makes. */
export const SEEDED_PASSWORD = 'seeded-user-password';

// One bcrypt hash of SEEDED_PASSWORD per test file, made by the app's own hasher.
let seededHash: Promise<string> | undefined;

/**
 * `count` users with one role in a tenant, inserted straight through the app's DataSource (one
 * transaction, no HTTP, one shared password hash), for tests that only need users to exist (lists,
 * paging). They can sign in with SEEDED_PASSWORD. Tests of creating users use POST /api/admin/users.
 */
export async function seedUsers(
  t: TestApp,
  tenantId: number,
  count: number,
  role = 'viewer',
): Promise<{ id: number; email: string }[]> {
  seededHash ??= t.app.get(PasswordHasher).hash(SEEDED_PASSWORD);
  const password = await seededHash;
  return t.app.get(DataSource).transaction(async (manager) => {
    const { id: roleId } = await manager.findOneByOrFail(Role, { name: role, guard_name: GUARD_NAME });
    const now = wholeSecondNow();
    const users = await manager.save(
      Array.from({ length: count }, () => {
        const email = `seeded-${unique()}@example.com`;
        const name = `User ${email}`;
        return manager.create(User, {
          tenant_id: tenantId,
          name,
          name_key: sortKeyOf(name),
          email,
          password,
          is_active: true,
          created_at: now,
          updated_at: now,
        });
      }),
    );
    await manager.insert(
      'model_has_roles',
      users.map((user) => ({ role_id: roleId, model_type: USER_MODEL_TYPE, model_id: user.id })),
    );
    return users.map((user) => ({ id: user.id, email: user.email }));
  });
}
