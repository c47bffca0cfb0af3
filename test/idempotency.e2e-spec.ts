import { randomBytes } from 'node:crypto';
import { Database } from '../src/common/persistence/database.js';
import { login } from './support/auth.js';
import { newUser } from './support/factories.js';
import { newCampaignTree, planBody } from './support/marketing-factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const newKey = () => `key-${randomBytes(8).toString('hex')}`;

describe('Idempotency-Key on POST', () => {
  let t: TestApp;
  let admin: string;
  let db: Database;

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100000 } });
    admin = await login(t);
    db = t.app.get(Database);
  });
  afterAll(() => t.close());

  const post = (app: TestApp, path: string, body: object, key?: string, token = admin) => {
    const req = app.http.post(path).set('Authorization', token);
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(body);
  };
  const programsNamed = async (name: string) => {
    const rows = await db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM marketing_programs WHERE name = ?', [
      name,
    ]);
    return Number(rows[0].n);
  };

  it('replays the first answer for a repeat with the same key and body, and does the work once', async () => {
    const key = newKey();
    const body = planBody();
    const first = await post(t, '/api/marketing-programs', body, key).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post(t, '/api/marketing-programs', body, key).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    // Key order does not make another request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const third = await post(t, '/api/marketing-programs', reordered, key).expect(201);
    expect(third.body.data.id).toBe(first.body.data.id);
    expect(await programsNamed(body.name as string)).toBe(1);
  });

  it('answers 422 on Idempotency-Key when the key is reused with another body or path', async () => {
    const key = newKey();
    await post(t, '/api/marketing-programs', planBody(), key).expect(201);
    const other = planBody();
    const res = await post(t, '/api/marketing-programs', other, key).expect(422);
    expect(res.body.errors).toEqual({ 'Idempotency-Key': [expect.stringContaining('different request')] });
    expect(res.body.message).toEqual(res.body.errors['Idempotency-Key'][0]);
    expect(res.headers['cache-control']).toBe('no-cache, private');
    expect(await programsNamed(other.name as string)).toBe(0);
    await post(t, '/api/audiences', { name: 'Other route' }, key).expect(422);
  });

  it('refuses malformed keys with a 422 on Idempotency-Key', async () => {
    for (const key of ['', 'x'.repeat(256), 'tab\there']) {
      const res = await post(t, '/api/marketing-programs', planBody(), key).expect(422);
      expect(Object.keys(res.body.errors)).toEqual(['Idempotency-Key']);
    }
    await post(t, '/api/marketing-programs', planBody(), 'k'.repeat(255)).expect(201);
    await post(t, '/api/marketing-programs', planBody(), ' !"#$%&~ printable').expect(201);
  });

  it('scopes keys to the caller: another user with the same key does their own work', async () => {
    const key = newKey();
    const other = await newUser(t, admin, ['admin']);
    const body = planBody();
    const mine = await post(t, '/api/marketing-programs', body, key).expect(201);
    const theirs = await post(t, '/api/marketing-programs', body, key, other.token).expect(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('keeps no error answer: a request that failed can be retried with the same key', async () => {
    const key = newKey();
    await post(t, '/api/marketing-programs', planBody({ name: undefined }), key).expect(422);
    await post(t, '/api/marketing-programs', planBody({ name: undefined }), key).expect(422);
    const body = planBody();
    await post(t, '/api/marketing-programs', body, key).expect(201);
    expect(await programsNamed(body.name as string)).toBe(1);
  });

  it('of two concurrent repeats, one does the work and the other is a 409 or the replay', async () => {
    for (let round = 0; round < 5; round++) {
      const key = newKey();
      const body = planBody();
      const answers = await Promise.all([
        post(t, '/api/marketing-programs', body, key),
        post(t, '/api/marketing-programs', body, key),
      ]);
      const statuses = answers.map((a) => a.status).sort();
      expect([
        [201, 201],
        [201, 409],
      ]).toContainEqual(statuses);
      if (statuses[1] === 201)
        expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(1);
      const conflict = answers.find((a) => a.status === 409);
      if (conflict) expect(conflict.body.message).toMatch(/still being processed/);
      expect(await programsNamed(body.name as string)).toBe(1);
    }
  });

  it('replays answers of routes outside the generic resources (users) and of associations', async () => {
    const key = newKey();
    const body = {
      name: 'Idem User',
      email: `idem-${randomBytes(4).toString('hex')}@example.com`,
      password: 'long-password',
    };
    const first = await post(t, '/api/admin/users', body, key).expect(201);
    const again = await post(t, '/api/admin/users', body, key).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);

    const { campaign } = await newCampaignTree(t, admin);
    const audience = await post(t, '/api/audiences', { name: 'Linked' }).expect(201);
    const linkKey = newKey();
    const link = { audience_id: audience.body.data.id };
    const linked = await post(t, `/api/campaigns/${campaign.id}/audiences`, link, linkKey).expect(201);
    const relinked = await post(t, `/api/campaigns/${campaign.id}/audiences`, link, linkKey).expect(201);
    expect(relinked.headers['idempotent-replayed']).toBe('true');
    expect(relinked.body).toEqual(linked.body);
  });

  it('replays a streamed CSV upload (compared by content type and length)', async () => {
    const key = newKey();
    const csv = 'external_id,first_name\nidem-1,Ada\n';
    const upload = (body: string) =>
      t.http
        .post('/api/customers/imports')
        .set('Authorization', admin)
        .set('Content-Type', 'text/csv')
        .set('Idempotency-Key', key)
        .send(body);
    const first = await upload(csv);
    expect(first.status).toBeLessThan(300);
    const again = await upload(csv);
    expect(again.status).toBe(first.status);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    await upload(`${csv}idem-2,Bob\n`).expect(422);
  });

  it('answers 409 while a live claim holds the key, and takes over a claim whose lease lapsed (crashed instance)', async () => {
    const key = newKey();
    const body = planBody();
    const user = await t.http.get('/api/user').set('Authorization', admin).expect(200);
    const scope = `${user.body.data.id}:${user.body.data.tenant_id}`;
    const claim = (lockedUntil: number) =>
      db.run(
        `INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, owner, locked_until, expires_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          scope,
          key,
          'x'.repeat(64),
          'crashed-instance-owner-000000000',
          lockedUntil,
          Date.now() + 86_400_000,
          null,
          null,
        ],
      );
    // A claim of another request (its hash differs) that is still running: 422, since the request differs.
    await claim(Date.now() + 60_000);
    await post(t, '/api/marketing-programs', body, key).expect(422);
    // The same request still running elsewhere: 409.
    await db.run('DELETE FROM idempotency_keys WHERE idempotency_key = ?', [key]);
    await post(t, '/api/marketing-programs', body, key).expect(201);
    await db.run(
      'UPDATE idempotency_keys SET status_code = NULL, response_body = NULL, locked_until = ? WHERE idempotency_key = ?',
      [Date.now() + 60_000, key],
    );
    const busy = await post(t, '/api/marketing-programs', body, key).expect(409);
    expect(busy.headers['cache-control']).toBe('no-cache, private');
    // The instance holding it crashed: once the lease lapses, a repeat does the work.
    await db.run('UPDATE idempotency_keys SET locked_until = ? WHERE idempotency_key = ?', [Date.now() - 1, key]);
    const taken = await post(t, '/api/marketing-programs', body, key).expect(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    await post(t, '/api/marketing-programs', body, key).expect(201).expect('idempotent-replayed', 'true');
  });

  it('forgets keys after 24 hours', async () => {
    const key = newKey();
    const first = await post(t, '/api/marketing-programs', planBody(), key).expect(201);
    await db.run('UPDATE idempotency_keys SET expires_at = ? WHERE idempotency_key = ?', [Date.now() - 1, key]);
    const fresh = await post(t, '/api/marketing-programs', planBody(), key).expect(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.body.data.id).not.toBe(first.body.data.id);
  });

  it('without the header, writes no key', async () => {
    const [{ n: before }] = await db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM idempotency_keys');
    await post(t, '/api/marketing-programs', planBody()).expect(201);
    const [{ n: after }] = await db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM idempotency_keys');
    expect(Number(after)).toBe(Number(before));
  });

  it('holds across two instances over one database', async () => {
    const other = await createTestApp({ sharedWith: t, config: { rateLimitPerMinute: 100000 } });
    try {
      const key = newKey();
      const body = planBody();
      const first = await post(t, '/api/marketing-programs', body, key).expect(201);
      const again = await post(other, '/api/marketing-programs', body, key).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);

      for (let round = 0; round < 5; round++) {
        const racingKey = newKey();
        const racing = planBody();
        const answers = await Promise.all([
          post(t, '/api/marketing-programs', racing, racingKey),
          post(other, '/api/marketing-programs', racing, racingKey),
        ]);
        expect([
          [201, 201],
          [201, 409],
        ]).toContainEqual(answers.map((a) => a.status).sort());
        expect(await programsNamed(racing.name as string)).toBe(1);
      }
    } finally {
      await other.close();
    }
  });
});
