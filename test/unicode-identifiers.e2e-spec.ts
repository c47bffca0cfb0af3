import { login } from './support/auth.js';
import { created, dataOf, startApp, type Row } from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';

/**
 * Unique and exact-match text must tell different characters apart on both databases. Under
 * utf8mb4_unicode_ci (the tables' collation until migration 1764600000000) every supplementary
 * character (emoji, most CJK extensions, math letters...) weighed the same on MySQL/MariaDB, so
 * "crm-🦩" collided with "crm-😀" and tenant "T 🦩" with "T 😀". External ids now compare byte for
 * byte and tenant names by their lower-case key, on both databases.
 */

describe('distinct astral characters in unique and exact-match text', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startApp();
    token = await login(t);
  });
  afterAll(() => t.close());

  const post = (path: string, body: object) => t.http.post(path).set('Authorization', token).send(body);

  it('keeps crm-😀 and crm-🦩 apart (unique per tenant, exact filter), and tenants T 😀 and T 🦩', async () => {
    const mark = Date.now().toString(36);
    const a = await created(post('/api/customers', { external_id: `crm-${mark}-😀`, first_name: 'A' }));
    const b = await created(post('/api/customers', { external_id: `crm-${mark}-🦩`, first_name: 'B' }));
    const found: Row[] = await dataOf(
      t.http
        .get('/api/customers')
        .query({ external_id: `crm-${mark}-🦩` })
        .set('Authorization', token),
    );
    expect(found.map((row) => row.id)).toEqual([b.id]);
    expect(a.id).not.toBe(b.id);
    await created(post('/api/admin/tenants', { name: `T ${mark} 😀` }));
    await created(post('/api/admin/tenants', { name: `T ${mark} 🦩` }));
  });
});
