import { login } from './support/auth.js';
import { newTenant, newUser } from './support/factories.js';
import { newCampaignTree, planBody } from './support/marketing-factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('conditional requests (ETag, If-None-Match, If-Match)', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100000 } });
    admin = await login(t);
  });
  afterAll(() => t.close());

  const get = (path: string) => t.http.get(path).set('Authorization', admin);
  const put = (path: string, body: object) => t.http.put(path).set('Authorization', admin).send(body);
  const del = (path: string) => t.http.delete(path).set('Authorization', admin);

  async function newProgram(): Promise<number> {
    const res = await t.http.post('/api/marketing-programs').set('Authorization', admin).send(planBody()).expect(201);
    return res.body.data.id;
  }

  it('GET of one record carries an ETag; If-None-Match answers 304 without a body while it holds', async () => {
    const id = await newProgram();
    const first = await get(`/api/marketing-programs/${id}`).expect(200);
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await get(`/api/marketing-programs/${id}`).expect(200)).headers.etag).toBe(etag);

    const cached = await get(`/api/marketing-programs/${id}`).set('If-None-Match', etag).expect(304);
    expect(cached.text ?? '').toBe('');
    expect(cached.headers.etag).toBe(etag);
    expect(cached.headers['x-ratelimit-limit']).toBeDefined();
    await get(`/api/marketing-programs/${id}`).set('If-None-Match', `"other", W/${etag}`).expect(304);
    await get(`/api/marketing-programs/${id}`).set('If-None-Match', '*').expect(304);
    await get(`/api/marketing-programs/${id}`).set('If-None-Match', '"other"').expect(200);
  });

  it('a PUT answers the ETag a GET then shows, and the tag changes whenever the record does', async () => {
    const id = await newProgram();
    const before = (await get(`/api/marketing-programs/${id}`)).headers.etag;
    const updated = await put(`/api/marketing-programs/${id}`, planBody({ name: 'Renamed' })).expect(200);
    expect(updated.headers.etag).toBeDefined();
    expect(updated.headers.etag).not.toBe(before);
    const after = await get(`/api/marketing-programs/${id}`).set('If-None-Match', before).expect(200);
    expect(after.headers.etag).toBe(updated.headers.etag);
  });

  it('the tag covers what the answer embeds (audience rules)', async () => {
    const created = await t.http
      .post('/api/audiences')
      .set('Authorization', admin)
      .send({ name: 'Tagged', rules: [{ rule_type: 'country', rule_value: 'NL' }] })
      .expect(201);
    const id = created.body.data.id;
    const before = (await get(`/api/audiences/${id}`)).headers.etag;
    await put(`/api/audiences/${id}`, { name: 'Tagged', rules: [{ rule_type: 'country', rule_value: 'BE' }] }).expect(
      200,
    );
    const after = await get(`/api/audiences/${id}`).set('If-None-Match', before).expect(200);
    expect(after.headers.etag).not.toBe(before);
  });

  it('If-Match on PUT: 412 {message} when the record changed meanwhile, and nothing is written', async () => {
    const id = await newProgram();
    const read = await get(`/api/marketing-programs/${id}`);
    const etag = read.headers.etag;
    // Another admin changes it.
    const changed = await put(`/api/marketing-programs/${id}`, planBody({ name: 'Theirs' })).expect(200);
    const refused = await put(`/api/marketing-programs/${id}`, planBody({ name: 'Mine' }))
      .set('If-Match', etag)
      .expect(412);
    expect(refused.body).toEqual({ message: expect.stringMatching(/changed/) });
    expect(refused.headers['cache-control']).toBe('no-cache, private');
    expect((await get(`/api/marketing-programs/${id}`)).body.data.name).toBe('Theirs');
    await put(`/api/marketing-programs/${id}`, planBody({ name: 'Mine' }))
      .set('If-Match', changed.headers.etag)
      .expect(200);
    await put(`/api/marketing-programs/${id}`, planBody({ name: 'Any' }))
      .set('If-Match', '*')
      .expect(200);
  });

  it('of two racing PUTs with the same If-Match, exactly one wins', async () => {
    for (let round = 0; round < 3; round++) {
      const id = await newProgram();
      const etag = (await get(`/api/marketing-programs/${id}`)).headers.etag;
      const answers = await Promise.all(
        ['First', 'Second'].map((name) =>
          put(`/api/marketing-programs/${id}`, planBody({ name })).set('If-Match', etag),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    }
  });

  it('If-Match on DELETE: 412 when stale, 200 when current; on nested resources and associations too', async () => {
    const id = await newProgram();
    const etag = (await get(`/api/marketing-programs/${id}`)).headers.etag;
    await put(`/api/marketing-programs/${id}`, planBody({ name: 'Changed' })).expect(200);
    await del(`/api/marketing-programs/${id}`).set('If-Match', etag).expect(412);
    await get(`/api/marketing-programs/${id}`).expect(200);
    const current = (await get(`/api/marketing-programs/${id}`)).headers.etag;
    await del(`/api/marketing-programs/${id}`).set('If-Match', current).expect(200);

    const { campaign } = await newCampaignTree(t, admin);
    const campaignTag = (await get(`/api/campaigns/${campaign.id}`)).headers.etag;
    await put(`/api/campaigns/${campaign.id}`, { ...planBody(), description: null })
      .set('If-Match', '"stale"')
      .expect(412);
    await del(`/api/campaigns/${campaign.id}`).set('If-Match', campaignTag).expect(200);
  });

  it('users and tenants honour the same preconditions', async () => {
    const user = await newUser(t, admin, ['viewer']);
    const read = await get(`/api/admin/users/${user.id}`).expect(200);
    const body = { name: 'Renamed user', email: user.email };
    await put(`/api/admin/users/${user.id}`, body).set('If-Match', '"stale"').expect(412);
    const updated = await put(`/api/admin/users/${user.id}`, body).set('If-Match', read.headers.etag).expect(200);
    expect((await get(`/api/admin/users/${user.id}`)).headers.etag).toBe(updated.headers.etag);
    await del(`/api/admin/users/${user.id}`).set('If-Match', read.headers.etag).expect(412);

    const tenant = await newTenant(t, admin);
    const tenantTag = (await get(`/api/admin/tenants/${tenant.id}`).expect(200)).headers.etag;
    await put(`/api/admin/tenants/${tenant.id}`, { name: `${tenant.name} 2` }).expect(200);
    await del(`/api/admin/tenants/${tenant.id}`).set('If-Match', tenantTag).expect(412);
    const fresh = (await get(`/api/admin/tenants/${tenant.id}`)).headers.etag;
    await del(`/api/admin/tenants/${tenant.id}`).set('If-Match', fresh).expect(200);
  });

  it('CORS exposes ETag, idempotent-replayed and the rate-limit headers', async () => {
    const res = await t.http.get('/api/db-test').set('Origin', 'https://client.example').expect(200);
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
    for (const name of ['etag', 'idempotent-replayed', 'ratelimit', 'ratelimit-policy', 'x-ratelimit-limit']) {
      expect(exposed).toContain(name);
    }
    // Every rate-limit field an answer carries, the login limiter's included, is readable by a script.
    const login = await t.http
      .post('/api/login')
      .set('Origin', 'https://client.example')
      .send({ email: 'nobody@example.com', password: 'wrong-password', device_name: 'cors' });
    const loginExposed = String(login.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
    const limitFields = [res, login].flatMap((answer) =>
      Object.keys(answer.headers).filter((name) => /^(x-ratelimit-|ratelimit|retry-after)/.test(name)),
    );
    expect(limitFields).toEqual(expect.arrayContaining(['x-ratelimit-reset', 'x-ratelimit-limit-auth']));
    for (const name of limitFields) {
      expect(exposed).toContain(name);
      expect(loginExposed).toContain(name);
    }
    const preflight = await t.http
      .options('/api/marketing-programs/1')
      .set('Origin', 'https://client.example')
      .set('Access-Control-Request-Method', 'PUT')
      .set('Access-Control-Request-Headers', 'if-match, idempotency-key, authorization')
      .expect(204);
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('if-match');
  });
});
