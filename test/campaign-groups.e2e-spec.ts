import { newCampaign, newCampaignTree, newProgram, planBody } from './support/marketing-factories.js';
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

/** Campaign groups (src/modules/marketing/campaign-groups.controller.ts): a program's groups. */
const ctx = resourceTestApp();

const groups: Resource = {
  parent: { key: 'marketing_program_id', create: async (token) => (await newProgram(ctx.t, token)).id },
  collection: (programId) => `/api/marketing-programs/${programId}/campaign-groups`,
  item: (id) => `/api/campaign-groups/${id}`,
  readable: true,
  body: planBody,
  sample: {
    body: {
      name: 'Email',
      description: 'E-mail campaigns',
      status: 'draft',
      start_date: '2026-03-01T09:00:00.000Z',
      end_date: '2026-03-01T09:00:00Z',
      budget: '0.10',
      goal: 'Opens',
    },
    record: {
      name: 'Email',
      description: 'E-mail campaigns',
      status: 'draft',
      start_date: '2026-03-01T09:00:00.000Z',
      end_date: '2026-03-01T09:00:00.000Z',
      budget: 0.1,
      goal: 'Opens',
    },
  },
  update: {
    body: {
      name: 'E-mail',
      description: 'Renamed',
      status: 'active',
      start_date: '2026-03-02',
      end_date: '2026-12-31',
      budget: 10,
      goal: 'Clicks',
    },
    record: {
      name: 'E-mail',
      description: 'Renamed',
      status: 'active',
      start_date: '2026-03-02T00:00:00.000Z',
      end_date: '2026-12-31T00:00:00.000Z',
      budget: 10,
      goal: 'Clicks',
    },
  },
  sorts: ['start_date', 'end_date', 'budget'],
  rules: planRules(true),
  accepted: planAccepted,
  pageBody: planPageBody,
};

describe('campaign groups', () => {
  describe('createCampaignGroup, getCampaignGroup, listCampaignGroups, updateCampaignGroup, deleteCampaignGroup: every route', () => {
    crudCases(ctx, groups);
  });

  describe('createCampaignGroup, updateCampaignGroup: POST /api/marketing-programs/{program_id}/campaign-groups, PUT /api/campaign-groups/{id}', () => {
    acceptedBodyCases(ctx, groups);
  });

  describe('createCampaignGroup: POST /api/marketing-programs/{program_id}/campaign-groups', () => {
    createRuleCases(ctx, groups);
  });

  describe('updateCampaignGroup: PUT /api/campaign-groups/{id}', () => {
    updateRuleCases(ctx, groups);
  });

  describe('listCampaignGroups: GET /api/marketing-programs/{program_id}/campaign-groups', () => {
    listCases(ctx, groups);
  });

  describe('deleteCampaignGroup: DELETE /api/campaign-groups/{id}', () => {
    it('refuses to delete a group that has campaigns (409 naming them)', async () => {
      const { t, admin } = ctx;
      const { group, campaign } = await newCampaignTree(t, admin.token);
      await newCampaign(t, admin.token, group.id);
      const res = await t.http.delete(`/api/campaign-groups/${group.id}`).set('Authorization', admin.token);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ message: expect.stringMatching(/\b2 campaigns\b/) });
      await t.http.get(`/api/campaigns/${campaign.id}`).set('Authorization', admin.token).expect(200);
      await t.http.get(`/api/campaign-groups/${group.id}`).set('Authorization', admin.token).expect(200);
    });
  });
});
