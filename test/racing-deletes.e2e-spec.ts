import { login } from './support/auth.js';
import { newTenant, newUser, type TestUser } from './support/factories.js';
import {
  create,
  newCampaignTree,
  newGoal,
  newKpi,
  newProgram,
  newTreatmentGroup,
  newValidationRule,
  type Row,
} from './support/marketing-factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * Issue 11 (5): 20 parallel DELETEs of one record: exactly one succeeds, the others answer 404,
 * and the activity log holds one `deleted` entry. For every DELETE route, resources and
 * associations alike; a PUT racing a DELETE never brings the record back.
 */
const RACERS = 20;

describe('racing deletes', () => {
  let t: TestApp;
  let root: string;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
    root = await login(t);
    admin = await newUser(t, root, ['admin'], (await newTenant(t, root)).id);
  });
  afterAll(() => t.close());

  const post = (path: string, body: object) => create(t, admin.token, path, body as Record<string, unknown>);

  async function race(path: string): Promise<number[]> {
    const answers = await Promise.all(
      Array.from({ length: RACERS }, () => t.http.delete(path).set('Authorization', admin.token)),
    );
    return answers.map((a) => a.status).sort();
  }

  async function deletedEntries(subjectType: string, subjectId: number): Promise<number> {
    const res = await t.http
      .get('/api/admin/activity-log')
      .query({ subject_type: subjectType, subject_id: subjectId, event: 'deleted' })
      .set('Authorization', admin.token)
      .expect(200);
    return res.body.data.length;
  }

  const once = [200, ...Array.from({ length: RACERS - 1 }, () => 404)];

  const cases: [string, () => Promise<{ path: string; subject: string; id: number }>][] = [
    ['customer', async () => ({ ...(await at('/api/customers', {})), subject: 'Customer' })],
    [
      'marketing program',
      async () => ({
        ...(await withId((await newProgram(t, admin.token)).id, '/api/marketing-programs')),
        subject: 'MarketingProgram',
      }),
    ],
    [
      'campaign (with contents)',
      async () => {
        const { campaign } = await newCampaignTree(t, admin.token);
        await newTreatmentGroup(t, admin.token, campaign.id);
        await newKpi(t, admin.token, campaign.id);
        return { path: `/api/campaigns/${campaign.id}`, subject: 'Campaign', id: campaign.id };
      },
    ],
    [
      'campaign group',
      async () => {
        const { program } = await newCampaignTree(t, admin.token);
        const group = await post(`/api/marketing-programs/${program.id}/campaign-groups`, {
          name: 'Racing',
          description: 'd',
          status: 'draft',
          start_date: '2026-01-01',
          end_date: '2026-02-01',
          budget: 1,
          goal: 'g',
        });
        return { path: `/api/campaign-groups/${group.id}`, subject: 'CampaignGroup', id: group.id };
      },
    ],
    [
      'campaign KPI',
      async () => {
        const { campaign } = await newCampaignTree(t, admin.token);
        const kpi = await newKpi(t, admin.token, campaign.id);
        return { path: `/api/campaign-kpis/${kpi.id}`, subject: 'CampaignKpi', id: kpi.id };
      },
    ],
    [
      'sub-audience',
      async () => {
        const { campaign } = await newCampaignTree(t, admin.token);
        const audience = await post('/api/audiences', { name: 'Parent' });
        const sub = await post(`/api/campaigns/${campaign.id}/sub-audiences`, {
          audience_id: audience.id,
          name: 'Racing',
          segment_definition: '{}',
        });
        return { path: `/api/sub-audiences/${sub.id}`, subject: 'SubAudience', id: sub.id };
      },
    ],
    [
      'treatment group',
      async () => {
        const { campaign } = await newCampaignTree(t, admin.token);
        const group = await newTreatmentGroup(t, admin.token, campaign.id);
        return { path: `/api/treatment-groups/${group.id}`, subject: 'TreatmentGroup', id: group.id };
      },
    ],
    [
      'customer goal',
      async () => {
        const { campaign } = await newCampaignTree(t, admin.token);
        const goal = await newGoal(t, admin.token, campaign.id);
        return { path: `/api/customer-goals/${goal.id}`, subject: 'CustomerGoal', id: goal.id };
      },
    ],
    [
      'validation rule (soft delete)',
      async () => {
        const rule = await newValidationRule(t, admin.token);
        return { path: `/api/validation-rules/${rule.id}`, subject: 'ValidationRule', id: rule.id };
      },
    ],
    [
      'audience',
      async () => ({
        ...(await at('/api/audiences', { name: 'Racing', rules: [{ rule_type: 't', rule_value: 'v' }] })),
        subject: 'Audience',
      }),
    ],
    [
      'destination',
      async () => ({
        ...(await at('/api/destinations', { name: 'Racing', destination_type: 'email', connection_details: '{}' })),
        subject: 'Destination',
      }),
    ],
    [
      'campaign audience link',
      async () => {
        const { campaign } = await newCampaignTree(t, admin.token);
        const audience = await post('/api/audiences', { name: 'Linked' });
        const link = await post(`/api/campaigns/${campaign.id}/audiences`, { audience_id: audience.id });
        void link;
        const [row] = await links('CampaignAudience', campaign.id);
        return { path: `/api/campaigns/${campaign.id}/audiences/${audience.id}`, subject: 'CampaignAudience', id: row };
      },
    ],
    [
      'campaign validation rule link',
      async () => {
        const { campaign } = await newCampaignTree(t, admin.token);
        const rule = await newValidationRule(t, admin.token);
        await post(`/api/campaigns/${campaign.id}/validation-rules`, { validation_rule_id: rule.id });
        const [row] = await links('CampaignValidationRule', campaign.id);
        return {
          path: `/api/campaigns/${campaign.id}/validation-rules/${rule.id}`,
          subject: 'CampaignValidationRule',
          id: row,
        };
      },
    ],
    [
      'campaign destination link',
      async () => {
        const { campaign } = await newCampaignTree(t, admin.token);
        const destination = await post('/api/destinations', {
          name: 'Linked',
          destination_type: 'email',
          connection_details: '{}',
        });
        const link = await post(`/api/campaigns/${campaign.id}/destinations`, {
          destination_id: destination.id,
          attribute_mapping: '{}',
        });
        return { path: `/api/campaign-destinations/${link.id}`, subject: 'CampaignDestination', id: link.id };
      },
    ],
    [
      'user',
      async () => {
        const user = await post('/api/admin/users', {
          name: 'Racer',
          email: `racer-${Date.now()}@example.com`,
          password: 'long-enough-1',
        });
        return { path: `/api/admin/users/${user.id}`, subject: 'User', id: user.id };
      },
    ],
  ];

  async function at(path: string, body: object): Promise<{ path: string; id: number }> {
    const row: Row = await post(path, body);
    return { path: `${path}/${row.id}`, id: row.id };
  }
  const withId = async (id: number, base: string) => ({ path: `${base}/${id}`, id });

  /** The link rows' ids of a campaign, from the activity log of their creation. */
  async function links(subjectType: string, campaignId: number): Promise<number[]> {
    const res = await t.http
      .get('/api/admin/activity-log')
      .query({ subject_type: subjectType, event: 'created', limit: 100 })
      .set('Authorization', admin.token)
      .expect(200);
    return (res.body.data as { subject_id: number; properties: { attributes: { campaign_id: number } } }[])
      .filter((e) => e.properties.attributes.campaign_id === campaignId)
      .map((e) => e.subject_id);
  }

  it('tenant: one delete succeeds, the rest answer 404, one deleted entry', async () => {
    const tenant = await newTenant(t, root);
    const path = `/api/admin/tenants/${tenant.id}`;
    const answers = await Promise.all(
      Array.from({ length: RACERS }, () => t.http.delete(path).set('Authorization', root)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual(once);
    const log = await t.http
      .get('/api/admin/activity-log')
      .query({ subject_type: 'Tenant', subject_id: tenant.id, event: 'deleted' })
      .set('Authorization', root)
      .expect(200);
    expect(log.body.data).toHaveLength(1);
  });

  it.each(cases)('%s: one delete succeeds, the rest answer 404, one deleted entry', async (_name, make) => {
    const { path, subject, id } = await make();
    expect(await race(path)).toEqual(once);
    await t.http
      .get(path)
      .set('Authorization', admin.token)
      .expect((res) => {
        if (![404, 405].includes(res.status)) throw new Error(`${path} answered ${res.status} after its deletion`);
      });
    expect(await deletedEntries(subject, id)).toBe(1);
  });

  it('a PUT racing a DELETE never brings the record back', async () => {
    for (let round = 0; round < 10; round++) {
      const customer = await post('/api/customers', { first_name: 'Racing' });
      const path = `/api/customers/${customer.id}`;
      const [put, del] = await Promise.all([
        t.http
          .put(path)
          .set('Authorization', admin.token)
          .send({ first_name: `Round ${round}` }),
        t.http.delete(path).set('Authorization', admin.token),
      ]);
      expect(del.status).toBe(200);
      expect([200, 404]).toContain(put.status);
      await t.http.get(path).set('Authorization', admin.token).expect(404);
    }
  });
});
