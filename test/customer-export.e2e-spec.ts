import { CustomerExportService } from '../src/modules/customer/export/customer-export.service.js';
import { importApp, jobErrors, upload, waitForJob } from './imports-support/imports.js';
import { login } from './support/auth.js';
import { dataOf, listAll, newWorkspace, type Workspace } from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';

describe('exportCustomers: GET /api/customers/export', () => {
  let t: TestApp;
  let a: Workspace;
  let b: Workspace;

  beforeAll(async () => {
    t = await importApp();
    // Small keyset steps, so that the 2,504 rows take several.
    t.app.get(CustomerExportService).stepRows = 1000;
    const root = await login(t);
    a = await newWorkspace(t, root);
    b = await newWorkspace(t, root);
    const odd = [
      { external_id: 'x-1', first_name: 'Comma, "quoted"', last_name: 'Two\nlines', email: 'X1@Example.com' },
      { external_id: null, first_name: '', last_name: ' spaced ', phone: '+31 20', is_active: false },
      { external_id: 'x-3', attributes: '{"tags":["€","🎯"],"n":1.50}', first_name: 'Ünïcødé' },
      { external_id: 'x-4' },
    ];
    for (const body of odd) await dataOf(a.manager.post('/api/customers', body), 201);
    for (let start = 0; start < 2500; start += 1000) {
      const items = Array.from({ length: Math.min(1000, 2500 - start) }, (_, i) => ({
        external_id: `bulk-${start + i}`,
        first_name: 'Bulk',
        is_active: (start + i) % 3 !== 0,
      }));
      await dataOf(t.http.post('/api/customers/batch').set('Authorization', a.manager.token).send({ items }));
    }
    await dataOf(b.manager.post('/api/customers', { external_id: 'theirs' }), 201);
  });
  afterAll(() => t.close());

  const exportOf = (w: Workspace, query: Record<string, string> = {}, accept?: string) => {
    const req = t.http.get('/api/customers/export').query(query).set('Authorization', w.manager.token);
    if (accept) req.set('Accept', accept);
    return req.buffer(true).parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });
  };

  it('streams every customer of the tenant in id order, as NDJSON records', async () => {
    const res = await exportOf(a, {}, 'application/x-ndjson');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = (res.body as string)
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const all = (await listAll(a.manager, '/api/customers', { sort: 'id', limit: 100 })).rows;
    expect(lines).toEqual(all);
    expect(lines).toHaveLength(2504);
  });

  it('applies the list filters', async () => {
    const res = await exportOf(a, { is_active: 'false', q: 'bulk-1' }, 'application/x-ndjson');
    const lines = (res.body as string)
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const expected = (
      await listAll(a.manager, '/api/customers', { is_active: 'false', q: 'bulk-1', sort: 'id', limit: 100 })
    ).rows;
    expect(lines.map((c) => c.id)).toEqual(expected.map((c: { id: number }) => c.id));
    expect(lines.length).toBeGreaterThan(100);
    const none = await exportOf(a, { external_id: 'nobody' });
    expect(none.body).toBe('id,external_id,first_name,last_name,email,phone,attributes,is_active\n');
    expect((await exportOf(a, { limit: 'x', email: 'not-an-email' })).status).toBe(422);
  });

  it('gives a CSV that imports back into the tenant with every row unchanged', async () => {
    const res = await exportOf(a);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const csv = res.body as string;
    expect(csv.split('\n')[0]).toBe('id,external_id,first_name,last_name,email,phone,attributes,is_active');
    expect(csv).toContain('"Comma, ""quoted"""');
    expect(csv).not.toContain('theirs');
    const job = (await upload(t, a, csv, 'export.csv')).body.data;
    const done = await waitForJob(t, a, job.id);
    expect(await jobErrors(t, a, job.id)).toEqual([]);
    expect(done).toMatchObject({
      status: 'completed',
      total_rows: 2504,
      created: 0,
      updated: 0,
      unchanged: 2504,
      failed: 0,
    });
  });

  it('needs customers.view, and a viewer may export', async () => {
    expect((await t.http.get('/api/customers/export')).status).toBe(401);
    const res = await t.http.get('/api/customers/export').set('Authorization', a.viewer.token);
    expect(res.status).toBe(200);
  });
});
