import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { JobRunner } from '../src/common/jobs/job-runner.js';
import { ERASURE_QUEUE } from '../src/modules/customer/erasure/erasure-jobs.js';
import { IMPORT_QUEUE } from '../src/modules/customer/imports/import-jobs.js';
import { SuppressionList } from '../src/modules/customer/suppression/suppression-list.js';
import { login } from './support/auth.js';
import { client, created, dataOf, type Client, type Row } from './support/campaign-fixtures.js';
import { newTenant, newUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const SUPPRESSED = 'suppressed by an erasure request';

/** A webhook receiver that answers every delivery with the payload it got (so the answer holds personal data). */
async function echoReceiver(): Promise<{ url: string; received: string[]; close: () => Promise<void> }> {
  const received: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('eraseCustomer, getCustomerErasure, listSuppressions, liftSuppression: erasure and the suppression list', () => {
  let t: TestApp;
  let root: string;
  let admin: Client;
  let viewer: Client;
  let otherTenant: Client;
  let adminId: number;
  let tenantId: number;
  let db: DataSource;
  let receiver: Awaited<ReturnType<typeof echoReceiver>>;
  let suffix = 0;

  /** Unique personal data, so that a scan of every table finds it or not. */
  const person = () => {
    suffix++;
    const name = `Zebedee${suffix}x${process.pid}`;
    return { email: `${name}.Erase@Example.COM`, name, external_id: `crm-erase-${suffix}-${process.pid}` };
  };

  /** Every row of every table that holds `needle` (any case), as `table: row`. */
  async function everywhere(needle: string): Promise<string[]> {
    const tables: string[] =
      db.options.type === 'mysql'
        ? (await db.query('SHOW TABLES')).map((row: Record<string, string>) => Object.values(row)[0])
        : (await db.query("SELECT name FROM sqlite_master WHERE type = 'table'")).map(
            (row: { name: string }) => row.name,
          );
    const found: string[] = [];
    for (const table of tables) {
      for (const row of await db.query(`SELECT * FROM \`${table}\``)) {
        const text = JSON.stringify(row);
        if (text.toLowerCase().includes(needle.toLowerCase())) found.push(`${table}: ${text.slice(0, 300)}`);
      }
    }
    return found;
  }

  /** A POST as the admin with an Idempotency-Key. */
  const postWithKey = (path: string, key: string, body?: object) => {
    const req = t.http.post(path).set('Authorization', admin.token).set('Idempotency-Key', key);
    return body === undefined ? req : req.send(body);
  };

  const runErasures = async () => {
    while ((await t.app.get(JobRunner).runOnce(ERASURE_QUEUE)) !== undefined);
  };

  async function erase(id: number): Promise<Row> {
    const res = await admin.post(`/api/customers/${id}/erase`);
    expect(res.status).toBe(202);
    return res.body.data as Row;
  }

  beforeAll(async () => {
    receiver = await echoReceiver();
    t = await createTestApp({
      config: {
        rateLimitPerMinute: 100_000,
        authAttemptsPerMinute: 100_000,
        storageDir: mkdtempSync(join(tmpdir(), 'cs-erasure-')),
        imports: { runner: false },
        erasures: { runner: false, settleMs: 0, batchRows: 7 },
        webhooks: { allowedHosts: '127.0.0.1', worker: true, pollMs: 20, retrySchedule: [1] },
      },
    });
    db = t.app.get(DataSource);
    root = await login(t);
    const tenant = await newTenant(t, root);
    tenantId = tenant.id;
    const user = await newUser(t, root, ['admin'], tenant.id);
    adminId = user.id;
    admin = client(t, user.token);
    viewer = client(t, (await newUser(t, root, ['viewer'], tenant.id)).token);
    const other = await newTenant(t, root);
    otherTenant = client(t, (await newUser(t, root, ['admin'], other.id)).token);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  describe('a customer with a history everywhere the service keeps one', () => {
    const p = person();
    let customer: Row;
    let job: Row;

    beforeAll(async () => {
      const hook = await created(admin.post('/api/webhooks', { url: receiver.url, events: ['*'] }));
      customer = await created(
        postWithKey('/api/customers', `create-${p.name}`, {
          email: p.email,
          first_name: p.name,
          external_id: p.external_id,
        }),
      );
      for (let i = 0; i < 10; i++) {
        await dataOf(admin.put(`/api/customers/${customer.id}`, { last_name: `${p.name}-${i}` }));
      }
      // Every change delivered, and answered with its own payload (the webhook log keeps the answer).
      await until('the deliveries', () => receiver.received.filter((body) => body.includes(p.name)).length >= 11);
      await until('the delivery log', async () => {
        const deliveries = (await dataOf(admin.get(`/api/webhooks/${hook.id}/deliveries`, { limit: 100 }))) as Row[];
        return deliveries.filter((d) => d.status === 'delivered').length >= 11;
      });
      expect((await everywhere(p.name)).length).toBeGreaterThan(20);
      await admin.delete(`/api/webhooks/${hook.id}`);
      job = await erase(customer.id as number);
    });

    it('answers 202 with a queued job; the customer is gone at once', async () => {
      expect(job).toMatchObject({
        customer_id: customer.id,
        status: 'queued',
        tenant_id: tenantId,
        completed_at: null,
      });
      expect((await admin.get(`/api/customers/${customer.id}`)).status).toBe(404);
      expect(await dataOf(admin.get(`/api/customers/erasures/${job.id}`))).toMatchObject({ status: 'queued' });
    });

    it('runs to completed, counting what it scrubbed', async () => {
      await runErasures();
      const done = await dataOf(admin.get(`/api/customers/erasures/${job.id}`));
      expect(done).toMatchObject({ status: 'completed', late_arrivals: 0, kept_answers: 1 });
      // created + 10 updates (the deletion's own entry says erased already); events likewise.
      expect(done.activity_entries).toBe(11);
      expect(done.events).toBe(11);
      expect(done.webhook_attempts).toBe(11);
      expect(typeof done.completed_at).toBe('string');
    });

    it('leaves the e-mail address, external id and name in no table at all', async () => {
      expect(await everywhere(p.name)).toEqual([]);
      expect(await everywhere(p.email)).toEqual([]);
      expect(await everywhere(p.external_id)).toEqual([]);
    });

    it('keeps the activity entries with their events and dates, saying only {"erased": true}', async () => {
      const entries = (await dataOf(
        admin.get('/api/admin/activity-log', { subject_type: 'Customer', subject_id: customer.id, limit: 100 }),
      )) as Row[];
      expect(entries).toHaveLength(12);
      expect(entries.map((entry) => entry.event).sort()).toEqual(
        ['created', 'deleted', ...Array(10).fill('updated')].sort(),
      );
      for (const entry of entries) expect(entry.properties).toEqual({ attributes: {}, old: null, erased: true });
      const stored = await db.query(
        `SELECT properties FROM activity_log WHERE subject_type = 'Customer' AND subject_id = ?`,
        [customer.id],
      );
      expect(stored.map((row: { properties: string }) => row.properties)).toEqual(Array(12).fill('{"erased":true}'));
    });

    it('turns its events in the feed into tombstones and emits customer.deleted with reason erased', async () => {
      const events: Row[] = [];
      for (let cursor: string | undefined; ;) {
        const res = await admin.get('/api/events', { limit: 1000, ...(cursor ? { cursor } : {}) });
        events.push(...(res.body.data as Row[]));
        cursor = res.body.meta.next_cursor;
        if (!res.body.meta.has_more) break;
      }
      const mine = events.filter((event) => event.resource === 'customer' && event.resource_id === customer.id);
      expect(mine).toHaveLength(12);
      for (const event of mine.slice(0, -1)) {
        expect(event.data).toEqual({ id: customer.id, reason: 'erased' });
        expect(event.changes).toEqual([]);
      }
      expect(mine.map((event) => event.type)).toEqual([
        'customer.created',
        ...Array(10).fill('customer.updated'),
        'customer.deleted',
      ]);
      expect(mine[11].data).toEqual({ id: customer.id, deleted_at: expect.any(String), reason: 'erased' });
      expect(JSON.stringify(events)).not.toContain(p.name);
    });

    it('no longer replays the create kept for its Idempotency-Key: the request runs again and is refused', async () => {
      const res = await postWithKey('/api/customers', `create-${p.name}`, {
        email: p.email,
        first_name: p.name,
        external_id: p.external_id,
      });
      expect(res.status).toBe(422);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(res.body.errors.email[0]).toContain(SUPPRESSED);
      expect(res.body.errors.external_id[0]).toContain(SUPPRESSED);
    });

    it('another tenant sees neither the job nor the suppression, and its own writes are not refused', async () => {
      expect((await otherTenant.get(`/api/customers/erasures/${job.id}`)).status).toBe(404);
      expect(await dataOf(otherTenant.get('/api/suppressions'))).toEqual([]);
      await created(otherTenant.post('/api/customers', { email: p.email, external_id: p.external_id }));
    });
  });

  describe('the suppression list', () => {
    const p = person();
    let entries: Row[];

    beforeAll(async () => {
      const customer = await created(admin.post('/api/customers', { email: p.email, external_id: p.external_id }));
      await erase(customer.id as number);
      entries = ((await dataOf(admin.get('/api/suppressions', { limit: 100 }))) as Row[]).slice(0, 2);
    });

    it('lists kind, date and who asked, never the value', () => {
      expect(entries.map((entry) => entry.kind).sort()).toEqual(['email', 'external_id']);
      for (const entry of entries) {
        expect(Object.keys(entry).sort()).toEqual(['created_at', 'created_by', 'id', 'kind', 'tenant_id']);
        expect(entry.created_by).toBe(adminId);
      }
    });

    it('refuses a create, compared without case, on each field', async () => {
      const byEmail = await admin.post('/api/customers', { email: p.email.toUpperCase() });
      expect(byEmail.status).toBe(422);
      expect(Object.keys(byEmail.body.errors)).toEqual(['email']);
      expect(byEmail.body.errors.email[0]).toBe('The email is suppressed by an erasure request.');
      const byExternalId = await admin.post('/api/customers', { external_id: p.external_id });
      expect(byExternalId.status).toBe(422);
      expect(byExternalId.body.errors.external_id[0]).toBe('The external id is suppressed by an erasure request.');
      // The external id is an exact key: another case is another id.
      await created(admin.post('/api/customers', { external_id: p.external_id.toUpperCase() }));
    });

    it('refuses a PUT that writes a suppressed value, not one that keeps another', async () => {
      const other = await created(admin.post('/api/customers', { email: `other-${p.name}@example.com` }));
      const res = await admin.put(`/api/customers/${other.id}`, { email: ` ${p.email} ` });
      expect(res.status).toBe(422);
      expect(res.body.errors.email[0]).toContain(SUPPRESSED);
      await dataOf(admin.put(`/api/customers/${other.id}`, { first_name: 'kept' }));
    });

    it('fails the batch items that carry one, alone', async () => {
      const res = await admin.post('/api/customers/batch', {
        items: [
          { email: `fine-${p.name}@example.com` },
          { email: p.email.toLowerCase(), first_name: 'again' },
          { external_id: p.external_id },
          { email: 'not-an-email' },
        ],
      });
      expect(res.status).toBe(200);
      const results = res.body.data as Row[];
      expect(results.map((r) => r.status)).toEqual(['created', 'failed', 'failed', 'failed']);
      expect((results[1].errors as Record<string, string[]>).email[0]).toContain(SUPPRESSED);
      expect((results[2].errors as Record<string, string[]>).external_id[0]).toContain(SUPPRESSED);
      expect(res.body.meta).toMatchObject({ created: 1, failed: 3 });
    });

    it('fails the import rows that carry one, with the error on their line', async () => {
      const csv = `external_id,email\nimp-1-${p.name},fine1-${p.name}@example.com\n,${p.email}\n${p.external_id},\nimp-2-${p.name},fine2-${p.name}@example.com\n`;
      const upload = await t.http
        .post('/api/customers/imports')
        .set('Authorization', admin.token)
        .set('Content-Type', 'text/csv')
        .send(csv);
      expect(upload.status).toBe(202);
      await t.app.get(JobRunner).runOnce(IMPORT_QUEUE);
      const job = await dataOf(admin.get(`/api/customers/imports/${upload.body.data.id}`));
      expect(job).toMatchObject({ status: 'completed', created: 2, failed: 2 });
      const errors = (await dataOf(admin.get(`/api/customers/imports/${job.id}/errors`))) as Row[];
      expect(errors.map((e) => [e.line, e.field])).toEqual([
        [3, 'email'],
        [4, 'external_id'],
      ]);
      for (const error of errors) expect(error.message).toContain(SUPPRESSED);
    });

    it('lifts an entry: the value may be written again, and the lift is logged', async () => {
      const email = entries.find((entry) => entry.kind === 'email')!;
      expect((await viewer.delete(`/api/suppressions/${email.id}`)).status).toBe(403);
      expect((await otherTenant.delete(`/api/suppressions/${email.id}`)).status).toBe(404);
      await dataOf(admin.delete(`/api/suppressions/${email.id}`));
      expect((await admin.delete(`/api/suppressions/${email.id}`)).status).toBe(404);
      await created(admin.post('/api/customers', { email: p.email }));
      expect((await admin.post('/api/customers', { external_id: p.external_id })).status).toBe(422);
      const log = (await dataOf(
        admin.get('/api/admin/activity-log', { subject_type: 'CustomerSuppression', subject_id: email.id }),
      )) as Row[];
      expect(log.map((entry) => entry.event).sort()).toEqual(['created', 'deleted']);
      expect(log.find((entry) => entry.event === 'deleted')).toMatchObject({ causer_id: adminId });
      expect(JSON.stringify(log)).not.toContain('value_hash');
    });
  });

  describe('what an erasure reaches beyond the record', () => {
    it('scrubs the customers merged into it: their entries and events too', async () => {
      const kept = person();
      const merged = person();
      const survivor = await created(admin.post('/api/customers', { first_name: kept.name }));
      const source = await created(admin.post('/api/customers', { email: merged.email, first_name: merged.name }));
      await dataOf(admin.post(`/api/customers/${survivor.id}/merge`, { from: [source.id] }));
      expect((await everywhere(merged.email)).length).toBeGreaterThan(0);
      const job = await erase(survivor.id as number);
      await runErasures();
      expect(await dataOf(admin.get(`/api/customers/erasures/${job.id}`))).toMatchObject({ status: 'completed' });
      expect(await everywhere(merged.email)).toEqual([]);
      expect(await everywhere(merged.name)).toEqual([]);
      expect(await everywhere(kept.name)).toEqual([]);
      // The source's own tombstone said where it went, and still does: it held no personal data.
      const deletions: Row[] = [];
      for (let cursor: string | undefined; ;) {
        const res = await admin.get('/api/events', {
          types: 'customer.deleted',
          limit: 1000,
          ...(cursor ? { cursor } : {}),
        });
        deletions.push(...(res.body.data as Row[]));
        cursor = res.body.meta.next_cursor;
        if (!res.body.meta.has_more) break;
      }
      expect(deletions.find((event) => event.resource_id === source.id)?.data).toEqual({
        id: source.id,
        deleted_at: expect.any(String),
        reason: 'merged',
        merged_into: survivor.id,
      });
    });

    it('deletes the tracked events of the customer and of those merged into it, in batches, and counts them', async () => {
      const p = person();
      const survivor = await created(admin.post('/api/customers', { first_name: p.name }));
      const source = await created(admin.post('/api/customers', {}));
      const items = Array.from({ length: 20 }, (_, i) => ({
        message_id: `erase-event-${p.name}-${i}`,
        customer_id: i % 4 ? survivor.id : source.id,
        event: i % 2 ? 'viewed' : 'bought',
        properties: { note: p.name },
      }));
      const tracked = await admin.post('/api/track', { events: items });
      expect(tracked.body.meta.accepted).toBe(20);
      await dataOf(admin.post(`/api/customers/${survivor.id}/merge`, { from: [source.id] }));
      // Another customer's events of the same names stay, and so do the names' counts of them.
      const bystander = await created(admin.post('/api/customers', {}));
      await admin.post('/api/track', {
        events: [{ message_id: `erase-bystander-${bystander.id}`, customer_id: bystander.id, event: 'bought' }],
      });
      const job = await erase(survivor.id as number);
      await runErasures();
      // batchRows is 7 here: three batches.
      expect(await dataOf(admin.get(`/api/customers/erasures/${job.id}`))).toMatchObject({
        status: 'completed',
        customer_events_deleted: 20,
      });
      expect(await everywhere(p.name)).toEqual([]);
      for (const row of tracked.body.data as Row[]) {
        expect((await admin.get(`/api/customer-events/${row.id}`)).status).toBe(404);
      }
      const names = (await dataOf(admin.get('/api/event-names', { q: 'bought' }))) as Row[];
      expect(names.map((n) => [n.name, n.count])).toEqual([['bought', 1]]);
      expect((await dataOf(admin.get(`/api/customers/${bystander.id}/events`))) as Row[]).toHaveLength(1);
    });

    it('erases a customer a racing write brought in with a suppressed value before the suppression showed', async () => {
      const p = person();
      const customer = await created(admin.post('/api/customers', { email: p.email }));
      const job = await erase(customer.id as number);
      // What a chunk of an import that began before the erasure committed would leave: written past the check.
      const second = new Date(Math.floor(Date.now() / 1000) * 1000);
      const now = db.options.type === 'mysql' ? second : second.toISOString().replace('T', ' ').replace('Z', '');
      await db.query(
        `INSERT INTO customers (tenant_id, email, first_name, is_active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
        [tenantId, p.email.toLowerCase(), p.name, 1, now, now],
      );
      expect((await everywhere(p.name)).filter((row) => row.startsWith('customers:'))).toHaveLength(1);
      await runErasures();
      expect(await dataOf(admin.get(`/api/customers/erasures/${job.id}`))).toMatchObject({
        status: 'completed',
        late_arrivals: 1,
      });
      expect(await everywhere(p.name)).toEqual([]);
    });

    it('a running import does not bring the person back', async () => {
      const p = person();
      const customer = await created(admin.post('/api/customers', { email: p.email, external_id: p.external_id }));
      const upload = await t.http
        .post('/api/customers/imports')
        .set('Authorization', admin.token)
        .set('Content-Type', 'text/csv')
        .send(`external_id,email,first_name\n${p.external_id},${p.email},${p.name}\n`);
      expect(upload.status).toBe(202);
      await erase(customer.id as number);
      await t.app.get(JobRunner).runOnce(IMPORT_QUEUE);
      await runErasures();
      expect(await dataOf(admin.get(`/api/customers/imports/${upload.body.data.id}`))).toMatchObject({
        status: 'completed',
        created: 0,
        failed: 1,
      });
      expect(await everywhere(p.name)).toEqual([]);
      expect(await everywhere(p.external_id)).toEqual([]);
    });

    it('resumes where a stopped job left off, and counts each row once', async () => {
      const p = person();
      const customer = await created(admin.post('/api/customers', { first_name: p.name }));
      for (let i = 0; i < 20; i++) await dataOf(admin.put(`/api/customers/${customer.id}`, { last_name: `v${i}` }));
      const job = await erase(customer.id as number);
      // The first instance stops after two batches of 7: a graceful shutdown in the middle.
      let batches = 0;
      const stopped = await t.app.get(JobRunner).runOnce(ERASURE_QUEUE, { stopWhen: () => ++batches > 2 });
      expect(stopped).toEqual({ status: 'released', note: 'stopped' });
      const halfway = await dataOf(admin.get(`/api/customers/erasures/${job.id}`));
      expect(halfway).toMatchObject({ status: 'running', activity_entries: 14 });
      await runErasures();
      expect(await dataOf(admin.get(`/api/customers/erasures/${job.id}`))).toMatchObject({
        status: 'completed',
        activity_entries: 21,
        events: 21,
      });
      expect(await everywhere(p.name)).toEqual([]);
    });
  });

  it('spares the list read of every customer write in a tenant that never listed a value', async () => {
    const other = await newTenant(t, root);
    const api = client(t, (await newUser(t, root, ['admin'], other.id)).token);
    const listed = jest.spyOn(SuppressionList.prototype as unknown as { listed: () => Promise<Set<string>> }, 'listed');
    try {
      const customer = await created(api.post('/api/customers', { email: `never-${suffix}@example.com` }));
      expect(listed).not.toHaveBeenCalled();
      expect((await api.post(`/api/customers/${customer.id}/erase`)).status).toBe(202);
      await created(api.post('/api/customers', { email: `after-${suffix}@example.com` }));
      expect(listed).toHaveBeenCalled();
    } finally {
      listed.mockRestore();
    }
  });

  describe('refusals', () => {
    it('answers 404 for a missing customer or another tenant’s, 403 without customers.manage, 401 without a token', async () => {
      const customer = await created(admin.post('/api/customers', { first_name: 'stays' }));
      expect((await otherTenant.post(`/api/customers/${customer.id}/erase`)).status).toBe(404);
      expect((await viewer.post(`/api/customers/${customer.id}/erase`)).status).toBe(403);
      expect((await t.http.post(`/api/customers/${customer.id}/erase`)).status).toBe(401);
      expect((await admin.post('/api/customers/999999999/erase')).status).toBe(404);
      expect((await admin.get('/api/customers/erasures/999999999')).status).toBe(404);
      expect((await admin.get(`/api/customers/${customer.id}`)).status).toBe(200);
    });

    it('a customer merged away answers 409, naming the survivor', async () => {
      const survivor = await created(admin.post('/api/customers', { first_name: 'survivor' }));
      const source = await created(admin.post('/api/customers', { first_name: 'source' }));
      await dataOf(admin.post(`/api/customers/${survivor.id}/merge`, { from: [source.id] }));
      const res = await admin.post(`/api/customers/${source.id}/erase`);
      expect(res.status).toBe(409);
      expect(res.body.message).toContain(`customer ${survivor.id}`);
    });

    it('a repeat with the same Idempotency-Key replays the first answer', async () => {
      const customer = await created(admin.post('/api/customers', { first_name: 'once' }));
      const first = await postWithKey(`/api/customers/${customer.id}/erase`, `erase-${customer.id}`);
      const again = await postWithKey(`/api/customers/${customer.id}/erase`, `erase-${customer.id}`);
      expect(first.status).toBe(202);
      expect(again.status).toBe(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
    });
  });
});
