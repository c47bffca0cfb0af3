import { randomBytes } from 'node:crypto';
import { login } from './auth.js';
import type { TestApp } from './test-app.js';

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

/** A signed-in user with the given roles, in the creator's tenant or (super-admin) in `tenantId`. */
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
    token: await login(t, email, password),
  };
}
