import { goalBody, newCampaignTree, newValidationRule } from './support/marketing-factories.js';
import { amountRules, childAccepted, MAX_AMOUNT, textRules, WORDS } from './support/marketing-rules.js';
import {
  acceptedBodyCases,
  createRuleCases,
  crudCases,
  listCases,
  resourceTestApp,
  updateRuleCases,
  type Resource,
} from './support/resource-cases.js';

/** Customer goals (src/modules/marketing/customer-goals.controller.ts): a campaign's goals; no read-one route. */
const ctx = resourceTestApp(async ({ t, admin, other }) => {
  // Validation rules for the customer-goal references.
  const rule = await newValidationRule(t, admin.token);
  const otherRule = await newValidationRule(t, other.token);
  const deletedRule = await newValidationRule(t, admin.token);
  await t.http.delete(`/api/validation-rules/${deletedRule.id}`).set('Authorization', admin.token).expect(200);
  return { rule, otherRule, deletedRule };
});

const newCampaignId = async (token: string) => (await newCampaignTree(ctx.t, token)).campaign.id;

/** A goal's measurement (campaign results) when the body sends none: not measured by events, the default window. */
const NOT_MEASURED = { event: null, where: null, window_days: 3, value_property: null };

const goals: Resource = {
  parent: { key: 'campaign_id', create: newCampaignId },
  collection: (campaignId) => `/api/campaigns/${campaignId}/customer-goals`,
  item: (id) => `/api/customer-goals/${id}`,
  readable: false,
  body: goalBody,
  sample: {
    body: { name: 'Repeat buyer', description: 'Buys twice', goal_type: 'purchase', target_value: 2 },
    record: {
      name: 'Repeat buyer',
      description: 'Buys twice',
      goal_type: 'purchase',
      target_value: 2,
      validation_rule_id: null,
      ...NOT_MEASURED,
    },
  },
  update: {
    body: { name: 'Loyal buyer', goal_type: 'purchase-count', target_value: '3.5' },
    record: {
      name: 'Loyal buyer',
      description: 'Buys twice',
      goal_type: 'purchase-count',
      target_value: 3.5,
      validation_rule_id: null,
      ...NOT_MEASURED,
    },
  },
  sorts: [],
  rules: [
    ...textRules('name'),
    ...textRules('goal_type'),
    ...amountRules('target_value', { required: true, max: MAX_AMOUNT }),
    ['validation_rule_id not a number', { validation_rule_id: 'abc' }, 'validation_rule_id'],
    ['validation_rule_id 0', { validation_rule_id: 0 }, 'validation_rule_id'],
    ['validation_rule_id a fraction', { validation_rule_id: 1.5 }, 'validation_rule_id'],
    ['validation_rule_id an object', { validation_rule_id: { id: 1 } }, 'validation_rule_id'],
    ['validation_rule_id unknown', { validation_rule_id: 99_999_999 }, 'validation_rule_id'],
    ["another tenant's validation rule", () => ({ validation_rule_id: ctx.otherRule.id }), 'validation_rule_id'],
    [
      "another tenant's validation rule as a digit string",
      () => ({ validation_rule_id: String(ctx.otherRule.id) }),
      'validation_rule_id',
    ],
    ['a deleted validation rule', () => ({ validation_rule_id: ctx.deletedRule.id }), 'validation_rule_id'],
  ],
  accepted: [
    ...childAccepted,
    ['a validation rule id', () => ({ validation_rule_id: ctx.rule.id }), {}],
    ['a validation rule id as a digit string', () => ({ validation_rule_id: String(ctx.rule.id) }), {}],
    ['a null validation rule id', { validation_rule_id: null }, { validation_rule_id: null }],
    ['a numeric-string target', { target_value: '12.50' }, { target_value: 12.5 }],
  ],
  // The record names the rule the body named, whether as a number or as a digit string.
  checkAccepted: (sent, record) => {
    if (sent.validation_rule_id) expect(record.validation_rule_id).toBe(ctx.rule.id);
  },
  pageBody: (i) => goalBody({ name: WORDS[i % 5] }),
};

describe('customer goals', () => {
  describe('createCustomerGoal, listCustomerGoals, updateCustomerGoal, deleteCustomerGoal: every route', () => {
    crudCases(ctx, goals);
  });

  describe('createCustomerGoal, updateCustomerGoal: POST /api/campaigns/{campaign_id}/customer-goals, PUT /api/customer-goals/{goal_id}', () => {
    acceptedBodyCases(ctx, goals);
  });

  describe('createCustomerGoal: POST /api/campaigns/{campaign_id}/customer-goals', () => {
    createRuleCases(ctx, goals);
  });

  describe('updateCustomerGoal: PUT /api/customer-goals/{goal_id}', () => {
    updateRuleCases(ctx, goals);
  });

  describe('listCustomerGoals: GET /api/campaigns/{campaign_id}/customer-goals', () => {
    listCases(ctx, goals);
  });
});
