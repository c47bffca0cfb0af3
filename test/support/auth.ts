import { AccessTokenService } from '../../src/modules/auth/access-token.service.js';
import type { TestApp } from './test-app.js';

export const ADMIN = { email: 'admin@example.com', password: 'admin-password-123' };

/** Signs in and answers the bearer header value. */
export async function login(
  t: TestApp,
  email = ADMIN.email,
  password = ADMIN.password,
  device = 'jest',
): Promise<string> {
  const res = await t.http.post('/api/login').send({ email, password, device_name: device });
  if (res.status !== 200) throw new Error(`login of ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return `Bearer ${res.body.data.token}`;
}

/**
 * The bearer header value of a token issued to a user the way POST /api/login issues it (a
 * personal access token row and its JWT), without the password check: a bcrypt comparison costs
 * as much as the hash made when the user was created, and factories need no second one. Tests
 * of signing in itself use `login`.
 */
export async function tokenFor(t: TestApp, userId: number, device = 'jest'): Promise<string> {
  const tokens = t.app.get(AccessTokenService);
  const issued = await tokens.issue(userId, device);
  return `Bearer ${issued.token}`;
}
