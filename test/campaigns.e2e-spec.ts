import type { Test } from 'supertest';
import {
  campaignBody,
  goalBody,
  newCampaignTree,
  newGoal,
  newGroup,
  newKpi,
  newProgram,
  newTreatmentGroup,
  newValidationRule,
  type Row,
} from './support/marketing-factories.js';
import { planAccepted, planPageBody, planRules } from './support/marketing-rules.js';
import {
  acceptedBodyCases,
  createRuleCases,
  crudCases,
  listCases,
  resourceTestApp,
  updateRuleCases,
  type Resource,
} from './support/resource-cases.js';

/** Campaigns (src/modules/marketing/campaigns.controller.ts): a group's campaigns. */
const ctx = resourceTestApp(async ({ t, admin }) => ({
  /** A validation rule a goal of the deleted campaign refers to. */
  rule: await newValidationRule(t, admin.token),
}));

const campaigns: Resource = {
  parent: {
    key: 'campaign_group_id',
    create: async (token) => (await newGroup(ctx.t, token, (await newProgram(ctx.t, token)).id)).id,
  },
  collection: (groupId) => `/api/campaign-groups/${groupId}/campaigns`,
  item: (id) => `/api/campaigns/${id}`,
  readable: true,
  body: campaignBody,
  sample: {
    body: {
      name: 'Welcome series',
      description: null,
      status: 'active',
      start_date: '2026-04-01',
      end_date: '2026-04-30',
      budget: 999.99,
      goal: 'Second order',
      target_audience: '{ "a" : 1 }',
      success_criteria: '[1,  2 ,\n 3, "é😀"]',
    },
    record: {
      name: 'Welcome series',
      description: null,
      status: 'active',
      start_date: '2026-04-01T00:00:00.000Z',
      end_date: '2026-04-30T00:00:00.000Z',
      budget: 999.99,
      goal: 'Second order',
      target_audience: '{ "a" : 1 }',
      success_criteria: '[1,  2 ,\n 3, "é😀"]',
    },
  },
  // description, target_audience and success_criteria are optional: left out, they keep their values.
  update: {
    body: {
      name: 'Welcome',
      status: 'inactive',
      start_date: '2026-04-02',
      end_date: '2026-05-01',
      budget: 5,
      goal: 'First order',
    },
    record: {
      name: 'Welcome',
      description: null,
      status: 'inactive',
      start_date: '2026-04-02T00:00:00.000Z',
      end_date: '2026-05-01T00:00:00.000Z',
      budget: 5,
      goal: 'First order',
      target_audience: '{ "a" : 1 }',
      success_criteria: '[1,  2 ,\n 3, "é😀"]',
    },
  },
  sorts: ['start_date', 'end_date', 'budget'],
  rules: [
    ...planRules(false),
    ['target_audience not JSON', { target_audience: '{a:1}' }, 'target_audience'],
    ['target_audience cut short', { target_audience: '{"a":' }, 'target_audience'],
    ['target_audience an object', { target_audience: { a: 1 } }, 'target_audience'],
    ['target_audience a number', { target_audience: 5 }, 'target_audience'],
    ['success_criteria not JSON', { success_criteria: "{'a': 1}" }, 'success_criteria'],
    ['success_criteria an object', { success_criteria: { rate: 0.1 } }, 'success_criteria'],
    ['success_criteria an array', { success_criteria: [1, 2] }, 'success_criteria'],
  ],
  accepted: [
    ...planAccepted,
    ['a null description', { description: null }, { description: null }],
    ['no description', { description: undefined }, { description: null }],
    ['null JSON-string fields', { target_audience: null, success_criteria: null }, { target_audience: null }],
    [
      'no JSON-string fields',
      { target_audience: undefined, success_criteria: undefined },
      { target_audience: null, success_criteria: null },
    ],
    [
      'JSON-string scalars, byte for byte',
      { target_audience: ' "text" ', success_criteria: '\t42\n' },
      { target_audience: ' "text" ', success_criteria: '\t42\n' },
    ],
  ],
  pageBody: (i) => ({ ...planPageBody(i), target_audience: null }),
};

describe('campaigns', () => {
  describe('createCampaign, getCampaign, listCampaigns, updateCampaign, deleteCampaign: every route', () => {
    crudCases(ctx, campaigns);
  });

  describe('createCampaign, updateCampaign: POST /api/campaign-groups/{group_id}/campaigns, PUT /api/campaigns/{id}', () => {
    acceptedBodyCases(ctx, campaigns);
  });

  describe('createCampaign: POST /api/campaign-groups/{group_id}/campaigns', () => {
    createRuleCases(ctx, campaigns);
  });

  describe('updateCampaign: PUT /api/campaigns/{id}', () => {
    updateRuleCases(ctx, campaigns);
  });

  describe('listCampaigns: GET /api/campaign-groups/{group_id}/campaigns', () => {
    listCases(ctx, campaigns);
  });

  describe('deleteCampaign: DELETE /api/campaigns/{id}', () => {
    it('removes a campaign with its treatment groups, KPIs and goals, each in the activity log', async () => {
      const { t, admin, root } = ctx;
      const { campaign } = await newCampaignTree(t, admin.token);
      const other = (await newCampaignTree(t, admin.token)).campaign;
      const groups = [
        await newTreatmentGroup(t, admin.token, campaign.id, { allocation_percentage: 50 }),
        await newTreatmentGroup(t, admin.token, campaign.id, { allocation_percentage: 50 }),
      ];
      const kpis = [await newKpi(t, admin.token, campaign.id), await newKpi(t, admin.token, campaign.id)];
      const goals = [await newGoal(t, admin.token, campaign.id, { validation_rule_id: ctx.rule.id })];
      const kept = await newTreatmentGroup(t, admin.token, other.id);

      await t.http
        .delete(`/api/campaigns/${campaign.id}`)
        .set('Authorization', admin.token)
        .expect(200, { code: 200, message: 'Deleted successfully.', data: null });

      const auth = (req: Test) => req.set('Authorization', admin.token);
      await auth(t.http.get(`/api/campaigns/${campaign.id}`)).expect(404);
      await auth(t.http.get(`/api/campaigns/${campaign.id}/treatment-groups`)).expect(404);
      for (const g of groups) {
        await auth(t.http.get(`/api/treatment-groups/${g.id}`)).expect(404);
        await auth(t.http.delete(`/api/treatment-groups/${g.id}`)).expect(404);
      }
      for (const k of kpis) await auth(t.http.get(`/api/campaign-kpis/${k.id}`)).expect(404);
      for (const g of goals) {
        await auth(t.http.put(`/api/customer-goals/${g.id}`).send(goalBody())).expect(404);
        await auth(t.http.delete(`/api/customer-goals/${g.id}`)).expect(404);
      }
      // Another campaign's content and the referenced rule stay.
      await auth(t.http.get(`/api/treatment-groups/${kept.id}`)).expect(200);
      await auth(t.http.get(`/api/validation-rules/${ctx.rule.id}`)).expect(200);

      const logged = async (subjectType: string, rows: Row[]) => {
        for (const row of rows) {
          const res = await t.http
            .get('/api/admin/activity-log')
            .query({ subject_type: subjectType, event: 'deleted', subject_id: row.id })
            .set('Authorization', root)
            .expect(200);
          expect({ subjectType, id: row.id, entries: res.body.data.length }).toEqual({
            subjectType,
            id: row.id,
            entries: 1,
          });
          expect(res.body.data[0].properties.old).toMatchObject({ id: row.id, campaign_id: campaign.id });
          expect(res.body.data[0].causer_id).toBe(admin.id);
        }
      };
      await logged('TreatmentGroup', groups);
      await logged('CampaignKpi', kpis);
      await logged('CustomerGoal', goals);
      const campaignLog = await t.http
        .get('/api/admin/activity-log')
        .query({ subject_type: 'Campaign', event: 'deleted', subject_id: campaign.id })
        .set('Authorization', root)
        .expect(200);
      expect(campaignLog.body.data).toHaveLength(1);
    });
  });
});
