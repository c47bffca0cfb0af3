import { login } from './support/auth.js';
import { newTenant, newUser, type TestUser } from './support/factories.js';
import { newCampaignTree } from './support/marketing-factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

interface Entry {
  id: number;
  event: string;
  subject_type: string;
  subject_id: number;
  causer_id: number | null;
  causer_type: string | null;
  properties: { attributes: Record<string, unknown>; old: Record<string, unknown> | null };
  batch_uuid: string | null;
}

describe('listActivity: GET /api/admin/activity-log', () => {
  let t: TestApp;
  let root: string;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
    root = await login(t);
    const tenant = await newTenant(t, root);
    admin = await newUser(t, root, ['admin'], tenant.id);
  });
  afterAll(() => t.close());

  const entries = async (token: string, query: Record<string, string | number>) => {
    const res = await t.http
      .get('/api/admin/activity-log')
      .query({ limit: 100, ...query })
      .set('Authorization', token)
      .expect(200);
    return res.body.data as Entry[];
  };

  it('records create, update and delete of a user with causer, attributes and old values, never the password', async () => {
    const created = await t.http
      .post('/api/admin/users')
      .set('Authorization', admin.token)
      .send({ name: 'Logged', email: 'logged@example.com', password: 'long-enough' })
      .expect(201);
    const id = created.body.data.id;
    await t.http
      .put(`/api/admin/users/${id}`)
      .set('Authorization', admin.token)
      .send({ name: 'Logged 2', email: 'logged@example.com', password: 'another-password' })
      .expect(200);
    await t.http.delete(`/api/admin/users/${id}`).set('Authorization', admin.token).expect(200);

    const log = await entries(admin.token, { subject_type: 'User', subject_id: id });
    expect(log.map((e) => e.event)).toEqual(['deleted', 'updated', 'created']);
    const [deleted, updated, create] = log;
    expect(create).toMatchObject({
      causer_type: 'user',
      causer_id: admin.id,
      subject_id: id,
      properties: { old: null },
    });
    expect(create.properties.attributes).toMatchObject({
      name: 'Logged',
      email: 'logged@example.com',
      is_active: true,
    });
    expect(updated.properties).toEqual({ attributes: { name: 'Logged 2' }, old: { name: 'Logged' } });
    expect(deleted.properties.attributes).toEqual({});
    expect(deleted.properties.old).toMatchObject({ name: 'Logged 2' });
    expect(create.batch_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(log)).not.toMatch(/password|\$2[aby]\$/);
  });

  // Campaign entries carried allocation_version and selection_version, and user entries
  // access_version: counters the service keeps for itself, not the record's state.
  it("records a record's own fields, not the counters the service keeps on it", async () => {
    const { campaign } = await newCampaignTree(t, admin.token);
    const [createdCampaign] = await entries(admin.token, { subject_type: 'Campaign', subject_id: campaign.id });
    expect(createdCampaign.properties.attributes).toMatchObject({ id: campaign.id, name: campaign.name });
    const user = await newUser(t, root, ['admin'], admin.tenant_id);
    const [createdUser] = await entries(root, { subject_type: 'User', subject_id: user.id });
    expect(createdUser.properties.attributes).toMatchObject({ id: user.id });
    for (const attributes of [createdCampaign.properties.attributes, createdUser.properties.attributes]) {
      expect(Object.keys(attributes).filter((key) => key.endsWith('_version'))).toEqual([]);
    }
  });

  it('filters by event and causer, and pages', async () => {
    const created = await entries(admin.token, { event: 'created', causer_id: admin.id });
    expect(created.length).toBeGreaterThan(0);
    expect(created.every((e) => e.event === 'created' && e.causer_id === admin.id)).toBe(true);
    const page = await t.http.get('/api/admin/activity-log?limit=1').set('Authorization', admin.token).expect(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.has_more).toBe(true);
    await t.http.get('/api/admin/activity-log?event=exploded').set('Authorization', admin.token).expect(422);
    await t.http.get('/api/admin/activity-log?subject_id=abc').set('Authorization', admin.token).expect(422);
  });

  it("shows the caller's tenant only; a super-admin sees every tenant", async () => {
    const mine = await entries(admin.token, {});
    const other = await newTenant(t, root);
    const stranger = await newUser(t, root, ['admin'], other.id);
    const theirs = await entries(stranger.token, {});
    const mineIds = new Set(mine.map((e) => e.id));
    expect(theirs.some((e) => mineIds.has(e.id))).toBe(false);
    expect(theirs.some((e) => e.subject_type === 'User' && e.subject_id === stranger.id)).toBe(true);

    const everything = await entries(root, { subject_type: 'Tenant' });
    const tenantIds = everything.map((e) => e.subject_id);
    expect(tenantIds).toEqual(expect.arrayContaining([other.id, admin.tenant_id]));
    const chosen = await t.http
      .get('/api/admin/activity-log?limit=100')
      .set('Authorization', root)
      .set('X-Tenant-ID', String(other.id))
      .expect(200);
    expect(chosen.body.data.every((e: Entry) => !mineIds.has(e.id))).toBe(true);
  });

  it('records tenant changes', async () => {
    const tenant = await newTenant(t, root, 'Audited Tenant');
    await t.http
      .put(`/api/admin/tenants/${tenant.id}`)
      .set('Authorization', root)
      .send({ name: 'Audited Tenant 2' })
      .expect(200);
    const log = await entries(root, { subject_type: 'Tenant', subject_id: tenant.id });
    expect(log.map((e) => e.event)).toEqual(['updated', 'created']);
    expect(log[0].properties).toEqual({ attributes: { name: 'Audited Tenant 2' }, old: { name: 'Audited Tenant' } });
  });

  it('is refused to a viewer (403)', async () => {
    const viewer = await newUser(t, admin.token, ['viewer']);
    await t.http.get('/api/admin/activity-log').set('Authorization', viewer.token).expect(403);
  });
});
