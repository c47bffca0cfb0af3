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
