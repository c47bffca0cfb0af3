import { newCampaignTree, newTreatmentGroup, treatmentGroupBody, type Row } from './support/marketing-factories.js';
import { childAccepted, textRules, WORDS } from './support/marketing-rules.js';
import {
  acceptedBodyCases,
  createRuleCases,
  crudCases,
  listCases,
  resourceTestApp,
  updateRuleCases,
  type Resource,
} from './support/resource-cases.js';

/** Treatment groups (src/modules/marketing/treatment-groups.controller.ts): the arms of a campaign. */
const ctx = resourceTestApp();

const newCampaignId = async (token: string) => (await newCampaignTree(ctx.t, token)).campaign.id;

const treatmentGroups: Resource = {
  parent: { key: 'campaign_id', create: newCampaignId },
  collection: (campaignId) => `/api/campaigns/${campaignId}/treatment-groups`,
  item: (id) => `/api/treatment-groups/${id}`,
  readable: true,
  body: treatmentGroupBody,
  sample: {
    body: { name: 'Control', description: 'No e-mail', type: 'control', allocation_percentage: 33.33 },
    record: { name: 'Control', description: 'No e-mail', type: 'control', allocation_percentage: 33.33 },
  },
  update: {
    body: { name: 'Holdout', type: 'holdout', allocation_percentage: '12.50' },
    record: { name: 'Holdout', description: 'No e-mail', type: 'holdout', allocation_percentage: 12.5 },
  },
  sorts: [],
  rules: [
    ...textRules('name'),
    ['description a number', { description: 7 }, 'description'],
    ...textRules('type'),
    ['allocation_percentage missing', { allocation_percentage: undefined }, 'allocation_percentage'],
    ['allocation_percentage null', { allocation_percentage: null }, 'allocation_percentage'],
    ['allocation_percentage negative', { allocation_percentage: -1 }, 'allocation_percentage'],
    ['allocation_percentage above 100', { allocation_percentage: 100.01 }, 'allocation_percentage'],
    ['allocation_percentage of 101 as a string', { allocation_percentage: '101' }, 'allocation_percentage'],
    ['allocation_percentage with 3 decimals', { allocation_percentage: 12.345 }, 'allocation_percentage'],
    ['allocation_percentage not numeric', { allocation_percentage: 'half' }, 'allocation_percentage'],
  ],
  accepted: [
    ...childAccepted,
    ['0 %', { allocation_percentage: 0 }, { allocation_percentage: 0 }],
    ['100 %, alone in its campaign', { allocation_percentage: 100 }, { allocation_percentage: 100 }],
    ['a numeric string', { allocation_percentage: '12.50' }, { allocation_percentage: 12.5 }],
  ],
  pageBody: (i) => treatmentGroupBody({ name: WORDS[i % 5], allocation_percentage: i % 3 }),
};

describe('treatment groups', () => {
  describe('createTreatmentGroup, getTreatmentGroup, listTreatmentGroups, updateTreatmentGroup, deleteTreatmentGroup: every route', () => {
    crudCases(ctx, treatmentGroups);
  });

  describe('createTreatmentGroup, updateTreatmentGroup: POST /api/campaigns/{campaign_id}/treatment-groups, PUT /api/treatment-groups/{id}', () => {
    acceptedBodyCases(ctx, treatmentGroups);
  });

  describe('createTreatmentGroup: POST /api/campaigns/{campaign_id}/treatment-groups', () => {
    createRuleCases(ctx, treatmentGroups);
  });

  describe('updateTreatmentGroup: PUT /api/treatment-groups/{id}', () => {
    updateRuleCases(ctx, treatmentGroups);
  });

  describe('listTreatmentGroups: GET /api/campaigns/{campaign_id}/treatment-groups', () => {
    listCases(ctx, treatmentGroups);
  });

  describe("createTreatmentGroup, updateTreatmentGroup: allocation_percentage of a campaign's groups", () => {
    it('never lets concurrent creates pass 100 %', async () => {
      const { t, admin } = ctx;
      const { campaign } = await newCampaignTree(t, admin.token);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          t.http
            .post(`/api/campaigns/${campaign.id}/treatment-groups`)
            .set('Authorization', admin.token)
            .send(treatmentGroupBody({ name: `Arm ${i}`, allocation_percentage: 30 })),
        ),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([201, 201, 201, 422, 422, 422, 422, 422]);
      for (const res of answers.filter((a) => a.status === 422)) {
        expect(Object.keys(res.body.errors)).toEqual(['allocation_percentage']);
      }
      const list = await t.http
        .get(`/api/campaigns/${campaign.id}/treatment-groups`)
        .set('Authorization', admin.token)
        .expect(200);
      const sum = list.body.data.reduce((s: number, g: Row) => s + (g.allocation_percentage as number), 0);
      expect({ rows: list.body.data.length, sum }).toEqual({ rows: 3, sum: 90 });
    });

    it('counts the other groups, not the one being updated, and allows exactly 100', async () => {
      const { t, admin } = ctx;
      const campaignId = await newCampaignId(admin.token);
      const a = await newTreatmentGroup(t, admin.token, campaignId, { allocation_percentage: 60 });
      await newTreatmentGroup(t, admin.token, campaignId, { allocation_percentage: 39.99 });
      const full = await t.http
        .post(`/api/campaigns/${campaignId}/treatment-groups`)
        .set('Authorization', admin.token)
        .send(treatmentGroupBody({ allocation_percentage: 0.01 }))
        .expect(201);
      await t.http
        .post(`/api/campaigns/${campaignId}/treatment-groups`)
        .set('Authorization', admin.token)
        .send(treatmentGroupBody({ allocation_percentage: 0.01 }))
        .expect(422);
      await t.http
        .put(`/api/treatment-groups/${a.id}`)
        .set('Authorization', admin.token)
        .send(treatmentGroupBody({ allocation_percentage: 60 }))
        .expect(200);
      await t.http
        .put(`/api/treatment-groups/${a.id}`)
        .set('Authorization', admin.token)
        .send(treatmentGroupBody({ allocation_percentage: 60.01 }))
        .expect(422);
      await t.http.delete(`/api/treatment-groups/${full.body.data.id}`).set('Authorization', admin.token).expect(200);
      await t.http
        .put(`/api/treatment-groups/${a.id}`)
        .set('Authorization', admin.token)
        .send(treatmentGroupBody({ allocation_percentage: 60.01 }))
        .expect(200);
    });
  });
});
