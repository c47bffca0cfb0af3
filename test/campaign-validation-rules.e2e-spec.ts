import { login } from './support/auth.js';
import {
  ISO,
  MISSING_IDS,
  created,
  dataOf,
  invalidOn,
  listAll,
  newCampaign,
  newValidationRule,
  newWorkspace,
  outcome,
  startApp,
  type Body,
  type Client,
  type Row,
  type Workspace,
} from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';

const OVERRIDE = '{ "value" : 21, "message":"Volljährig – ab 21 🎯" ,"list":[1,2 ,3]}';

describe('campaign validation rules', () => {
  let t: TestApp;
  let root: string;
  let a: Workspace;
  let b: Workspace;
  let api: Client;

  beforeAll(async () => {
    t = await startApp();
    root = await login(t);
    a = await newWorkspace(t, root);
    b = await newWorkspace(t, root);
    api = a.manager;
  });
  afterAll(() => t.close());

  const rulesOf = (campaignId: number) => `/api/campaigns/${campaignId}/validation-rules`;

  describe('addCampaignValidationRule, listCampaignValidationRules, removeCampaignValidationRule: every route of /api/campaigns/{campaign_id}/validation-rules', () => {
    it('attaches rules to a campaign, lists them with rule_override, and detaches them', async () => {
      const campaign = await newCampaign(api);
      const first = await newValidationRule(api, { rule_definition: '{"field":"age", "min":18}' });
      const second = await newValidationRule(api, { description: null, is_active: false });
      const third = await newValidationRule(api);
      expect(first).toEqual({
        id: expect.any(Number),
        tenant_id: a.tenantId,
        name: expect.any(String),
        description: 'Adults only',
        rule_definition: '{"field":"age", "min":18}',
        is_active: true,
        created_at: ISO,
        updated_at: ISO,
      });
      const path = rulesOf(campaign.id);
      expect(await dataOf(api.get(path))).toEqual([]);

      const one = await created(api.post(path, { validation_rule_id: first.id, rule_override: OVERRIDE, id: 3 }));
      expect(one).toEqual({ ...first, rule_override: OVERRIDE });
      // A digit-string id; rule_override optional (and then null).
      const two = await created(api.post(path, { validation_rule_id: String(second.id) }));
      expect(two).toEqual({ ...second, rule_override: null });
      const three = await created(api.post(path, { validation_rule_id: third.id, rule_override: '{}' }));
      expect(three).toEqual({ ...third, rule_override: '{}' });
      // JSON text "null" is a string like any other, not a missing override.
      const fourth = await newValidationRule(api);
      const textNull = await created(api.post(path, { validation_rule_id: fourth.id, rule_override: 'null' }));
      expect(textNull.rule_override).toBe('null');
      expect((await api.delete(`${path}/${fourth.id}`)).status).toBe(200);

      const list = await api.get(path);
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([three, two, one]);
      expect(list.body.meta).toEqual({ limit: 25, next_cursor: null, has_more: false });
      const paged = await listAll(api, path, { limit: 2, with_total: true, sort: 'id' });
      expect(paged.rows).toEqual([one, two, three]);
      expect(paged.totals).toEqual([3, 3]);

      // The same rule may serve several campaigns, each with its own override.
      const other = await newCampaign(api);
      const elsewhere = await created(
        api.post(rulesOf(other.id), { validation_rule_id: first.id, rule_override: '0' }),
      );
      expect(elsewhere).toEqual({ ...first, rule_override: '0' });

      const removed = await api.delete(`${path}/${second.id}`);
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ code: 200, message: expect.any(String), data: null });
      expect((await api.delete(`${path}/${second.id}`)).status).toBe(404);
      expect(await dataOf(api.get(path))).toEqual([three, one]);
      // The rule itself stays, and may be attached again.
      expect(await dataOf(api.get(`/api/validation-rules/${second.id}`))).toEqual(second);
      await created(api.post(path, { validation_rule_id: second.id }));
      expect(await dataOf(api.get(rulesOf(other.id)))).toEqual([elsewhere]);
    });
  });

  describe('addCampaignValidationRule: POST /api/campaigns/{campaign_id}/validation-rules', () => {
    it('answers 422 on validation_rule_id or rule_override for bad, deleted and duplicate rules, writing nothing', async () => {
      const campaign = await newCampaign(api);
      const attached = await newValidationRule(api);
      const free = await newValidationRule(api);
      const deleted = await newValidationRule(api);
      expect((await api.delete(`/api/validation-rules/${deleted.id}`)).status).toBe(200);
      expect((await api.get(`/api/validation-rules/${deleted.id}`)).status).toBe(404);
      const foreign = await newValidationRule(b.manager);
      const path = rulesOf(campaign.id);
      const link = await created(api.post(path, { validation_rule_id: attached.id }));

      const cases: [string, Body, string][] = [
        ['missing', {}, 'validation_rule_id'],
        ['null', { validation_rule_id: null }, 'validation_rule_id'],
        ['unknown', { validation_rule_id: 999999999 }, 'validation_rule_id'],
        ['other tenant', { validation_rule_id: foreign.id }, 'validation_rule_id'],
        ['soft-deleted', { validation_rule_id: deleted.id }, 'validation_rule_id'],
        ['soft-deleted as string', { validation_rule_id: String(deleted.id) }, 'validation_rule_id'],
        ['duplicate', { validation_rule_id: attached.id }, 'validation_rule_id'],
        ['duplicate as string', { validation_rule_id: String(attached.id), rule_override: '{}' }, 'validation_rule_id'],
        ['not an id', { validation_rule_id: 'adults' }, 'validation_rule_id'],
        ['an object', { validation_rule_id: { id: free.id } }, 'validation_rule_id'],
        ['override invalid JSON', { validation_rule_id: free.id, rule_override: '{value: 21}' }, 'rule_override'],
        ['override single quotes', { validation_rule_id: free.id, rule_override: "{'value':21}" }, 'rule_override'],
        ['override an object', { validation_rule_id: free.id, rule_override: { value: 21 } }, 'rule_override'],
        ['override a number', { validation_rule_id: free.id, rule_override: 21 }, 'rule_override'],
        ['override a boolean', { validation_rule_id: free.id, rule_override: true }, 'rule_override'],
        ['override empty', { validation_rule_id: free.id, rule_override: '' }, 'rule_override'],
        // Optional, but not nullable (INTERFACE.md does not say nullable, unlike segment_override).
        ['override null', { validation_rule_id: free.id, rule_override: null }, 'rule_override'],
      ];
      for (const [name, body, key] of cases) {
        expect({ name, ...outcome(await api.post(path, body)) }).toEqual({ name, ...invalidOn(key) });
      }
      const duplicate = await api.post(path, { validation_rule_id: attached.id });
      expect(duplicate.body.message).toMatch(/already/);
      expect(await dataOf(api.get(path))).toEqual([link]);
    });

    it('attaches a rule once when the same association is posted concurrently', async () => {
      const campaign = await newCampaign(api);
      const rule = await newValidationRule(api);
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => api.post(rulesOf(campaign.id), { validation_rule_id: rule.id })),
      );
      expect(answers.map(outcome).sort((x, y) => x.status - y.status)).toEqual([
        { status: 201, keys: [] },
        ...Array.from({ length: 5 }, () => invalidOn('validation_rule_id')),
      ]);
      expect((await dataOf(api.get(rulesOf(campaign.id)))).map((r: Row) => r.id)).toEqual([rule.id]);
    });
  });

  describe('deleteValidationRule: DELETE /api/validation-rules/{id}', () => {
    it('drops the campaign associations of a soft-deleted rule from every read', async () => {
      const first = await newCampaign(api);
      const second = await newCampaign(api);
      const doomed = await newValidationRule(api);
      const kept = await newValidationRule(api);
      const keptLink = await created(api.post(rulesOf(first.id), { validation_rule_id: kept.id, rule_override: '[]' }));
      await created(api.post(rulesOf(first.id), { validation_rule_id: doomed.id, rule_override: OVERRIDE }));
      await created(api.post(rulesOf(second.id), { validation_rule_id: doomed.id }));

      expect((await api.delete(`/api/validation-rules/${doomed.id}`)).status).toBe(200);
      expect((await api.delete(`/api/validation-rules/${doomed.id}`)).status).toBe(404);
      expect(await dataOf(api.get(rulesOf(first.id)))).toEqual([keptLink]);
      expect(await dataOf(api.get(rulesOf(second.id)))).toEqual([]);
      const counted = await api.get(rulesOf(first.id), { with_total: true, limit: 1 });
      expect(counted.body.meta).toEqual({ limit: 1, next_cursor: null, has_more: false, total: 1 });
      // Its association is gone: removing it names nothing, and the campaign keeps the other rule.
      expect((await api.delete(`${rulesOf(second.id)}/${doomed.id}`)).status).toBe(404);
      expect(await dataOf(api.get(rulesOf(first.id)))).toEqual([keptLink]);
      // The rule cannot be attached again.
      const again = await api.post(rulesOf(second.id), { validation_rule_id: doomed.id });
      expect(outcome(again)).toEqual(invalidOn('validation_rule_id'));
    });
  });

  describe('deleteCampaign: DELETE /api/campaigns/{id}', () => {
    it('removes the rule associations of a deleted campaign, keeping the rules', async () => {
      const campaign = await newCampaign(api);
      const other = await newCampaign(api);
      const rule = await newValidationRule(api);
      await created(api.post(rulesOf(campaign.id), { validation_rule_id: rule.id }));
      const otherLink = await created(api.post(rulesOf(other.id), { validation_rule_id: rule.id }));

      expect((await api.delete(`/api/campaigns/${campaign.id}`)).status).toBe(200);
      expect((await api.get(rulesOf(campaign.id))).status).toBe(404);
      expect((await api.delete(`${rulesOf(campaign.id)}/${rule.id}`)).status).toBe(404);
      expect(await dataOf(api.get(`/api/validation-rules/${rule.id}`))).toEqual(rule);
      expect(await dataOf(api.get(rulesOf(other.id)))).toEqual([otherLink]);
      // A rule still attached to a campaign can be (soft-)deleted.
      expect((await api.delete(`/api/validation-rules/${rule.id}`)).status).toBe(200);
      expect(await dataOf(api.get(rulesOf(other.id)))).toEqual([]);
    });
  });

  it('answers 404 for unknown, malformed and other-tenant ids on every route', async () => {
    const campaign = await newCampaign(api);
    const rule = await newValidationRule(api);
    const unattached = await newValidationRule(api);
    const link = await created(api.post(rulesOf(campaign.id), { validation_rule_id: rule.id }));
    const theirCampaign = await newCampaign(b.manager);
    const theirRule = await newValidationRule(b.manager);
    const theirLink = await created(b.manager.post(rulesOf(theirCampaign.id), { validation_rule_id: theirRule.id }));

    const routes = (campaignId: string, ruleId: string): [string, string, Body?][] => [
      ['get', `/api/campaigns/${campaignId}/validation-rules`],
      ['post', `/api/campaigns/${campaignId}/validation-rules`, { validation_rule_id: unattached.id }],
      ['delete', `/api/campaigns/${campaignId}/validation-rules/${rule.id}`],
      ['delete', `/api/campaigns/${campaign.id}/validation-rules/${ruleId}`],
    ];
    for (const id of MISSING_IDS) {
      for (const [method, path, body] of routes(id, id)) {
        const res = await (method === 'post' ? api.post(path, body) : api[method as 'get' | 'delete'](path));
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
        expect(res.body).toEqual({ message: expect.any(String) });
      }
    }
    // Another tenant's campaign, and another tenant's rule on its own campaign.
    for (const [method, path, body] of [
      ...routes(String(theirCampaign.id), String(theirRule.id)),
      ['delete', `/api/campaigns/${theirCampaign.id}/validation-rules/${theirRule.id}`],
    ] as [string, string, Body?][]) {
      const res = await (method === 'post' ? api.post(path, body) : api[method as 'get' | 'delete'](path));
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
    }
    // A rule of the tenant that is not attached to the campaign.
    expect((await api.delete(`${rulesOf(campaign.id)}/${unattached.id}`)).status).toBe(404);

    expect(await dataOf(api.get(rulesOf(campaign.id)))).toEqual([link]);
    expect(await dataOf(b.manager.get(rulesOf(theirCampaign.id)))).toEqual([theirLink]);
  });

  it('lets a viewer read the associations and change nothing (403)', async () => {
    const campaign = await newCampaign(api);
    const rule = await newValidationRule(api);
    const spare = await newValidationRule(api);
    const link = await created(api.post(rulesOf(campaign.id), { validation_rule_id: rule.id }));
    expect(await dataOf(a.viewer.get(rulesOf(campaign.id)))).toEqual([link]);
    for (const res of [
      await a.viewer.post(rulesOf(campaign.id), { validation_rule_id: spare.id }),
      await a.viewer.delete(`${rulesOf(campaign.id)}/${rule.id}`),
    ]) {
      expect({ status: res.status, body: res.body }).toEqual({
        status: 403,
        body: { message: 'This action is unauthorized.' },
      });
    }
    expect(await dataOf(api.get(rulesOf(campaign.id)))).toEqual([link]);
    expect((await t.http.get(rulesOf(campaign.id))).status).toBe(401);
  });
});
