import { DataSource } from 'typeorm';
import { newUser } from './support/factories.js';
import { client, created, type Body, type Client, type Row } from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';

/**
 * Helpers of the audience-members and treatment-assignments specs: customers made through the API
 * with the timestamps a test needs, and users holding only some permissions.
 */

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD HH:MM:SS.000`: how the app stores instants on SQLite; MariaDB reads it as a timestamp. */
export const stamp = (at: Date) => at.toISOString().slice(0, 19).replace('T', ' ') + '.000';

/** A customer to create, with created_at either fixed (UTC text) or `days` before now. */
export interface CustomerSeed {
  body: Body;
  created: string | { daysAgo: number };
  /** updated_at stays as written (now) instead of following created_at. */
  touched?: boolean;
}

/**
 * Creates the customers through the API, then moves their created_at / updated_at (which the API
 * sets to now) where the test wants them. Answers the records by external_id, as now stored.
 */
export async function seedCustomers(
  t: TestApp,
  api: Client,
  seeds: CustomerSeed[],
  now = new Date(),
): Promise<Map<string, Row>> {
  const db = t.app.get(DataSource);
  const byExternalId = new Map<string, Row>();
  for (const seed of seeds) {
    const customer = await created(api.post('/api/customers', seed.body));
    const at =
      typeof seed.created === 'string'
        ? `${seed.created}.000`
        : stamp(new Date(now.getTime() - seed.created.daysAgo * DAY_MS));
    if (seed.touched) await db.query('UPDATE customers SET created_at = ? WHERE id = ?', [at, customer.id]);
    else await db.query('UPDATE customers SET created_at = ?, updated_at = ? WHERE id = ?', [at, at, customer.id]);
    byExternalId.set(String(seed.body.external_id), customer);
  }
  return byExternalId;
}

/** A role of the `api` guard holding exactly these permissions (the seeded roles all read every domain). */
export async function newRole(t: TestApp, name: string, permissions: string[]): Promise<void> {
  const db = t.app.get(DataSource);
  const now = stamp(new Date());
  await db.query('INSERT INTO roles (name, guard_name, created_at, updated_at) VALUES (?, ?, ?, ?)', [
    name,
    'api',
    now,
    now,
  ]);
  const [role] = await db.query('SELECT id FROM roles WHERE name = ?', [name]);
  for (const permission of permissions) {
    await db.query(
      'INSERT INTO role_has_permissions (permission_id, role_id) SELECT id, ? FROM permissions WHERE name = ?',
      [role.id, permission],
    );
  }
}

/** A signed-in user of the tenant holding only the permissions of `role` (made with newRole). */
export async function userWithRole(t: TestApp, root: string, role: string, tenantId: number): Promise<Client> {
  const user = await newUser(t, root, [role], tenantId);
  return client(t, user.token);
}
