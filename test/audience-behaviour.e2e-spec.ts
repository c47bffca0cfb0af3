import { login } from './support/auth.js';
import {
  created,
  dataOf,
  listAll,
  newAudience,
  newCampaign,
  newTreatmentGroup,
  newWorkspace,
  startApp,
  type Body,
  type Client,
  type Row,
  type Workspace,
} from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';

const DAY = 86_400_000;
const behaviour = (operator: string, value: object, rule_type = 'behaviour'): Body => ({
  rule_type,
  field: 'event',
  operator,
  rule_value: JSON.stringify(value),
});

/**
 * The behaviour operators through the routes that evaluate rules: an audience's count, member list
 * and preview, a sub-audience's tree, a campaign's assignments; and their refusals (422 on the field
 * that holds the node). The semantics themselves are held to a reference on both databases by
 * behaviour-rule-matrix.e2e-spec.ts.
 */
describe('audiences by behaviour: performed and last_performed wherever rules are evaluated', () => {
  let t: TestApp;
  let a: Workspace;
  let b: Workspace;
  let api: Client;
  const ids = new Map<string, number>();

  beforeAll(async () => {
    t = await startApp();
    const root = await login(t);
    a = await newWorkspace(t, root);
    b = await newWorkspace(t, root);
    api = a.manager;
    const now = Date.now();
    // b01 bought twice this month, b02 once, b03 twice long ago, b04 logged in lately, b05 nothing.
    const plan: [string, string, number, Body?][] = [
      ['b01', 'purchase', 2, { amount: 150 }],
      ['b01', 'purchase', 9, { amount: 20 }],
      ['b02', 'purchase', 3, { amount: 500 }],
      ['b03', 'purchase', 200, { amount: 150 }],
      ['b03', 'purchase', 201, { amount: 150 }],
      ['b03', 'login', 120],
      ['b04', 'login', 1],
    ];
    for (const externalId of ['b01', 'b02', 'b03', 'b04', 'b05']) {
      ids.set(externalId, (await created(api.post('/api/customers', { external_id: externalId }))).id as number);
    }
    const res = await api.post('/api/track', {
      events: plan.map(([external_id, event, days, properties], i) => ({
        message_id: `aud-${i}`,
        external_id,
        event,
        properties,
        timestamp: new Date(now - days * DAY).toISOString(),
      })),
    });
    expect(res.body.meta.accepted).toBe(plan.length);
    // Tenant b has the same external ids, all of them buyers: never counted in a.
    for (const externalId of ['b01', 'b02', 'b03', 'b04', 'b05']) {
      await b.manager.post('/api/track', {
        events: [1, 2, 3].map((n) => ({
          message_id: `b-${externalId}-${n}`,
          external_id: externalId,
          event: 'purchase',
        })),
      });
    }
  });
  afterAll(() => t.close());

  const externalIds = (rows: Row[]) => rows.map((row) => row.external_id).sort();

  it('counts, lists and previews the members of an audience with performed and last_performed rules', async () => {
    const cases: [string, Body[], 'all' | 'any', string[]][] = [
      [
        'bought twice this month',
        [behaviour('performed', { event: 'purchase', min: 2, within_days: 30 })],
        'all',
        ['b01'],
      ],
      [
        'bought at 100 or more',
        [
          behaviour('performed', {
            event: 'purchase',
            where: [{ field: 'properties.amount', operator: 'gte', value: 100 }],
          }),
        ],
        'all',
        ['b01', 'b02', 'b03'],
      ],
      ['never bought', [behaviour('performed', { event: 'purchase', min: 0, max: 0 })], 'all', ['b04', 'b05']],
      ['lapsed login', [behaviour('last_performed', { event: 'login', before_days: 30 })], 'all', ['b03']],
      [
        'a buyer or a recent login',
        [
          behaviour('performed', { event: 'purchase', within_days: 7 }),
          behaviour('last_performed', { event: 'login', after_days: 7 }),
        ],
        'any',
        ['b01', 'b02', 'b04'],
      ],
      [
        'with a column rule',
        [
          behaviour('performed', { event: 'purchase' }),
          { rule_type: 'x', field: 'external_id', operator: 'in', rule_value: '["b01","b05"]' },
        ],
        'all',
        ['b01'],
      ],
    ];
    for (const [name, rules, match, expected] of cases) {
      const audience = await newAudience(api, { name, rules, match });
      const count = await dataOf(api.get(`/api/audiences/${audience.id}/count`));
      expect({ name, count: count.count, evaluable: count.evaluable }).toEqual({
        name,
        count: expected.length,
        evaluable: true,
      });
      const members = await listAll(api, `/api/audiences/${audience.id}/customers`, { limit: 2 });
      expect({ name, members: externalIds(members.rows) }).toEqual({ name, members: expected });
      const preview = await dataOf(api.post('/api/audiences/preview', { rules, match }));
      expect({ name, preview: externalIds(preview.customers as Row[]) }).toEqual({ name, preview: expected });
    }
  });

  it('narrows a sub-audience and a campaign audience by behaviour nodes, and assigns by them', async () => {
    const campaign = await newCampaign(api);
    const everybody = await newAudience(api, {
      rules: [{ rule_type: 'x', field: 'external_id', operator: 'exists', rule_value: '-' }],
    });
    const tree = {
      all: [{ performed: { event: 'purchase' } }, { not: { last_performed: { event: 'purchase', after_days: 30 } } }],
    };
    const sub = await created(
      api.post(`/api/campaigns/${campaign.id}/sub-audiences`, {
        audience_id: everybody.id,
        name: 'Lapsed buyers',
        segment_definition: JSON.stringify(tree),
      }),
    );
    expect((await dataOf(api.get(`/api/sub-audiences/${sub.id}/count`))).count).toBe(1);
    const members = await listAll(api, `/api/sub-audiences/${sub.id}/customers`);
    expect(externalIds(members.rows)).toEqual(['b03']);

    await created(
      api.post(`/api/campaigns/${campaign.id}/audiences`, {
        audience_id: everybody.id,
        segment_override: JSON.stringify({ performed: { event: 'purchase', within_days: 30 } }),
      }),
    );
    await newTreatmentGroup(api, campaign.id as number, { allocation_percentage: 100 });
    for (const [externalId, eligible] of [
      ['b01', true],
      ['b02', true],
      ['b03', false],
      ['b05', false],
    ] as const) {
      const assignment = await dataOf(api.get(`/api/campaigns/${campaign.id}/assignments/${ids.get(externalId)}`));
      expect({ externalId, eligible: assignment.eligible }).toEqual({ externalId, eligible });
    }
    const summary = await dataOf(api.get(`/api/campaigns/${campaign.id}/assignment-summary`));
    expect(summary.eligible).toBe(2);
  });

  it('answers 422 on the field that holds a bad node, naming what is wrong, and saves nothing', async () => {
    const bad = await api.post('/api/audiences', {
      name: 'Bad',
      rules: [behaviour('performed', { event: 'purchase', min: 3, max: 1 })],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({
      'rules.0.rule_value': [
        'The rule value field is not a valid performed condition at min: must not be greater than max.',
      ],
    });
    const unknown = await api.post('/api/audiences/preview', {
      rules: [behaviour('last_performed', { event: 'login', within_days: 3 })],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors['rules.0.rule_value'][0]).toContain('at within_days: unknown key');
    const long = await api.post('/api/audiences', {
      name: 'Long',
      rules: [behaviour('performed', { event: 'e'.repeat(250) })],
    });
    expect(long.status).toBe(422);
    expect(Object.keys(long.body.errors)).toEqual(['rules.0.rule_value']);
    const campaign = await newCampaign(api);
    const audience = await newAudience(api);
    const tree = await api.post(`/api/campaigns/${campaign.id}/sub-audiences`, {
      audience_id: audience.id,
      name: 'Bad tree',
      segment_definition: JSON.stringify({ any: [{ performed: { event: 'a', within_days: 731 } }] }),
    });
    expect(tree.status).toBe(422);
    expect(tree.body.errors).toEqual({
      segment_definition: [
        'The segment definition field must be a valid condition tree at any.0.performed.within_days: must be a whole number of days from 1 to 730.',
      ],
    });
    expect((await dataOf(api.get(`/api/campaigns/${campaign.id}/sub-audiences`))) as Row[]).toEqual([]);
  });
});
