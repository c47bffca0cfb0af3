import type { Test } from 'supertest';
import { login } from './support/auth.js';
import { newTenant, newUser, type TestUser } from './support/factories.js';
import {
  campaignBody,
  goalBody,
  kpiBody,
  listAll,
  newCampaign,
  newCampaignTree,
  newGoal,
  newGroup,
  newKpi,
  newProgram,
  newTreatmentGroup,
  newValidationRule,
  planBody,
  treatmentGroupBody,
  type Body,
  type Row,
} from './support/marketing-factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** [what is wrong, body overrides (undefined removes the field), the field the 422 names]. */
type Case = [string, Body | (() => Body), string];

interface Resource {
  name: string;
  /** The parent's id column in the record, and how to make a parent in a token's tenant. */
  parent?: { key: string; create: (token: string) => Promise<number> };
  collection: (parentId?: number | string) => string;
  item: (id: number | string) => string;
  /** Customer goals have no read-one route (INTERFACE.md). */
  readable: boolean;
  body: (overrides?: Body) => Body;
  /** A create body with odd values, and the record fields it must yield. */
  sample: { body: Body; record: Body };
  /** A PUT body that leaves the optional fields out, and the record fields after it. */
  update: { body: Body; record: Body };
  sorts: string[];
  /** The rule-breaking bodies; each is tried on POST and on PUT. */
  rules: Case[];
  /** Valid bodies at the edges of the rules, each with fields the record must show. */
  accepted: [string, Body | (() => Body), Body][];
  /** Values for the 31 records of the paging test. */
  pageBody: (i: number) => Body;
}

const WORDS = ['delta', 'alpha', 'echo', 'charlie', 'bravo'];
const EMOJI_255 = '😀'.repeat(255);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const textRules = (field: string): Case[] => [
  [`${field} missing`, { [field]: undefined }, field],
  [`${field} null`, { [field]: null }, field],
  [`${field} blank`, { [field]: '  ' }, field],
  [`${field} a number`, { [field]: 42 }, field],
  [`${field} of 256 characters`, { [field]: 'x'.repeat(256) }, field],
  [`${field} of 256 emoji`, { [field]: '😀'.repeat(256) }, field],
];

const amountRules = (field: string, options: { required: boolean; max: number }): Case[] => [
  ...(options.required ? [[`${field} missing`, { [field]: undefined }, field] as Case] : []),
  [`${field} null`, { [field]: null }, field],
  [`${field} negative`, { [field]: -0.01 }, field],
  [`${field} negative as a string`, { [field]: '-1' }, field],
  [`${field} above the maximum`, { [field]: options.max + 0.01 }, field],
  [`${field} of 1e16`, { [field]: 1e16 }, field],
  [`${field} with 3 decimals`, { [field]: 12.345 }, field],
  [`${field} with 3 decimals as a string`, { [field]: '12.345' }, field],
  [`${field} not numeric`, { [field]: 'lots' }, field],
  [`${field} a boolean`, { [field]: true }, field],
  [`${field} an object`, { [field]: { value: 1 } }, field],
];

const MAX_AMOUNT = 9_999_999_999_999.99;

const planRules = (descriptionRequired: boolean): Case[] => [
  ...textRules('name'),
  ...(descriptionRequired
    ? ([
        ['description missing', { description: undefined }, 'description'],
        ['description null', { description: null }, 'description'],
        ['description a number', { description: 7 }, 'description'],
      ] as Case[])
    : ([['description a number', { description: 7 }, 'description']] as Case[])),
  ['status missing', { status: undefined }, 'status'],
  ['status null', { status: null }, 'status'],
  ['status unknown', { status: 'archived' }, 'status'],
  ['status in capitals', { status: 'Active' }, 'status'],
  ['start_date missing', { start_date: undefined }, 'start_date'],
  ['start_date null', { start_date: null }, 'start_date'],
  ['start_date not a date', { start_date: 'next spring' }, 'start_date'],
  ['start_date not on the calendar', { start_date: '2025-02-30', end_date: '2025-03-31' }, 'start_date'],
  ['start_date 29 February of a common year', { start_date: '2025-02-29', end_date: '2025-03-31' }, 'start_date'],
  ['start_date at hour 24', { start_date: '2026-03-01T24:00:00Z' }, 'start_date'],
  ['start_date a number', { start_date: 20260301 }, 'start_date'],
  ['end_date missing', { end_date: undefined }, 'end_date'],
  ['end_date null', { end_date: null }, 'end_date'],
  ['end_date not a date', { end_date: 'whenever' }, 'end_date'],
  ['end_date not on the calendar', { end_date: '2026-04-31' }, 'end_date'],
  ['end_date in month 13', { end_date: '2026-13-01' }, 'end_date'],
  ['end_date the day before start_date', { start_date: '2026-05-01', end_date: '2026-04-30' }, 'end_date'],
  [
    'end_date a second before start_date',
    { start_date: '2026-05-01T10:00:00Z', end_date: '2026-05-01T09:59:59Z' },
    'end_date',
  ],
  [
    'end_date before start_date once offsets are applied',
    { start_date: '2026-05-01T10:00:00Z', end_date: '2026-05-01T11:00:00+02:00' },
    'end_date',
  ],
  ...amountRules('budget', { required: true, max: MAX_AMOUNT }),
  ...textRules('goal'),
];

const planAccepted: [string, Body, Body][] = [
  ['a name of 255 characters', { name: 'x'.repeat(255) }, { name: 'x'.repeat(255) }],
  ['a name of 255 emoji', { name: EMOJI_255 }, { name: EMOJI_255 }],
  ['a goal of 255 emoji', { goal: EMOJI_255 }, { goal: EMOJI_255 }],
  ['a numeric-string budget', { budget: '12.50' }, { budget: 12.5 }],
  ['a zero budget', { budget: 0 }, { budget: 0 }],
  ['the largest DECIMAL(15,2) budget', { budget: MAX_AMOUNT }, { budget: MAX_AMOUNT }],
  [
    'date-only dates',
    { start_date: '2028-02-29', end_date: '2028-03-01' },
    { start_date: '2028-02-29T00:00:00.000Z', end_date: '2028-03-01T00:00:00.000Z' },
  ],
  [
    'date-times with offsets, returned in UTC',
    { start_date: '2026-03-01T10:30:00+02:00', end_date: '2026-03-01T23:15:00-05:00' },
    { start_date: '2026-03-01T08:30:00.000Z', end_date: '2026-03-02T04:15:00.000Z' },
  ],
  [
    'end_date equal to start_date',
    { start_date: '2026-03-01', end_date: '2026-03-01T00:00:00Z' },
    { start_date: '2026-03-01T00:00:00.000Z', end_date: '2026-03-01T00:00:00.000Z' },
  ],
  ['status active', { status: 'active' }, { status: 'active' }],
  ['status inactive', { status: 'inactive' }, { status: 'inactive' }],
];

const childAccepted: [string, Body, Body][] = [
  ['a name of 255 characters', { name: 'x'.repeat(255) }, { name: 'x'.repeat(255) }],
  ['a name of 255 emoji', { name: EMOJI_255 }, { name: EMOJI_255 }],
  ['a null description', { description: null }, { description: null }],
  ['no description', { description: undefined }, { description: null }],
];

const planPageBody = (i: number): Body =>
  planBody({
    name: WORDS[i % 5],
    status: ['draft', 'active', 'inactive'][i % 3],
    start_date: `2026-0${1 + (i % 4)}-1${i % 3}`,
    end_date: `2026-1${i % 2}-0${1 + (i % 7)}T12:00:00Z`,
    budget: [100.5, 0, 2500, 100.5, 99.99, 7][i % 6],
  });

const ctx = {} as {
  t: TestApp;
  root: string;
  admin: TestUser;
  viewer: TestUser;
  other: TestUser;
  /** Validation rules for the customer-goal references. */
  rule: Row;
  otherRule: Row;
  deletedRule: Row;
};

const newCampaignId = async (token: string) => (await newCampaignTree(ctx.t, token)).campaign.id;

const RESOURCES: Resource[] = [
  {
    name: 'marketing program',
    collection: () => '/api/marketing-programs',
    item: (id) => `/api/marketing-programs/${id}`,
    readable: true,
    body: planBody,
    sample: {
      body: {
        name: 'Spring 😀 launch',
        description: 'All of spring',
        status: 'active',
        start_date: '2026-03-01',
        end_date: '2026-05-31T23:59:59+02:00',
        budget: 25000.5,
        goal: 'Grow sign-ups',
      },
      record: {
        name: 'Spring 😀 launch',
        description: 'All of spring',
        status: 'active',
        start_date: '2026-03-01T00:00:00.000Z',
        end_date: '2026-05-31T21:59:59.000Z',
        budget: 25000.5,
        goal: 'Grow sign-ups',
      },
    },
    update: {
      body: {
        name: 'Summer',
        description: 'All of summer',
        status: 'inactive',
        start_date: '2026-06-01T08:00:00Z',
        end_date: '2026-08-31',
        budget: '300.25',
        goal: 'Keep them',
      },
      record: {
        name: 'Summer',
        description: 'All of summer',
        status: 'inactive',
        start_date: '2026-06-01T08:00:00.000Z',
        end_date: '2026-08-31T00:00:00.000Z',
        budget: 300.25,
        goal: 'Keep them',
      },
    },
    sorts: ['start_date', 'end_date', 'budget'],
    rules: planRules(true),
    accepted: planAccepted,
    pageBody: planPageBody,
  },
  {
    name: 'campaign group',
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
  },
  {
    name: 'campaign',
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
  },
  {
    name: 'treatment group',
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
  },
  {
    name: 'campaign KPI',
    parent: { key: 'campaign_id', create: newCampaignId },
    collection: (campaignId) => `/api/campaigns/${campaignId}/kpis`,
    item: (id) => `/api/campaign-kpis/${id}`,
    readable: true,
    body: kpiBody,
    sample: {
      body: { name: 'Orders', description: null, kpi_type: 'conversion', target_value: '1500.75', actual_value: 0 },
      record: { name: 'Orders', description: null, kpi_type: 'conversion', target_value: 1500.75, actual_value: 0 },
    },
    update: {
      body: { name: 'Orders placed', kpi_type: 'count', target_value: 2000 },
      record: { name: 'Orders placed', description: null, kpi_type: 'count', target_value: 2000, actual_value: 0 },
    },
    sorts: [],
    rules: [
      ...textRules('name'),
      ...textRules('kpi_type'),
      ...amountRules('target_value', { required: true, max: MAX_AMOUNT }),
      ...amountRules('actual_value', { required: false, max: MAX_AMOUNT }),
    ],
    accepted: [
      ...childAccepted,
      ['no actual_value', { actual_value: undefined }, { actual_value: null }],
      ['numeric strings', { target_value: '12.50', actual_value: '0.5' }, { target_value: 12.5, actual_value: 0.5 }],
      [
        'the largest DECIMAL(15,2) values',
        { target_value: MAX_AMOUNT, actual_value: MAX_AMOUNT },
        { target_value: MAX_AMOUNT, actual_value: MAX_AMOUNT },
      ],
    ],
    pageBody: (i) => kpiBody({ name: WORDS[i % 5] }),
  },
  {
    name: 'customer goal',
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
    pageBody: (i) => goalBody({ name: WORDS[i % 5] }),
  },
];

const resolve = (overrides: Body | (() => Body)) => (typeof overrides === 'function' ? overrides() : overrides);

/** Orders records the way `?sort=` must: by the field, then by id, both in the sort's direction. */
function expectedOrder(rows: Row[], sort: string): number[] {
  const descending = sort.startsWith('-');
  const field = descending ? sort.slice(1) : sort;
  const compare = (a: Row, b: Row) => {
    const [x, y] = [a[field] as string | number, b[field] as string | number];
    const c = x < y ? -1 : x > y ? 1 : a.id - b.id;
    return descending ? -c : c;
  };
  return [...rows].sort(compare).map((r) => r.id);
}

describe('marketing', () => {
  beforeAll(async () => {
    ctx.t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
    ctx.root = await login(ctx.t);
    const tenant = await newTenant(ctx.t, ctx.root);
    ctx.admin = await newUser(ctx.t, ctx.root, ['admin'], tenant.id);
    ctx.viewer = await newUser(ctx.t, ctx.root, ['viewer'], tenant.id);
    const otherTenant = await newTenant(ctx.t, ctx.root);
    ctx.other = await newUser(ctx.t, ctx.root, ['admin'], otherTenant.id);
    ctx.rule = await newValidationRule(ctx.t, ctx.admin.token);
    ctx.otherRule = await newValidationRule(ctx.t, ctx.other.token);
    ctx.deletedRule = await newValidationRule(ctx.t, ctx.admin.token);
    await ctx.t.http
      .delete(`/api/validation-rules/${ctx.deletedRule.id}`)
      .set('Authorization', ctx.admin.token)
      .expect(200);
  });
  afterAll(() => ctx.t.close());

  describe.each(RESOURCES)('$name', (r) => {
    const as = (token: string) => ({
      get: (path: string) => ctx.t.http.get(path).set('Authorization', token),
      post: (path: string, body: Body) => ctx.t.http.post(path).set('Authorization', token).send(body),
      put: (path: string, body: Body) => ctx.t.http.put(path).set('Authorization', token).send(body),
      delete: (path: string) => ctx.t.http.delete(path).set('Authorization', token),
    });
    const newParent = (token: string) => (r.parent ? r.parent.create(token) : Promise.resolve(undefined));
    const parentOf = (parentId: number | undefined): Body =>
      r.parent && parentId !== undefined ? { [r.parent.key]: parentId } : {};
    /** Every record under the parent, in id order: the "nothing was written" witness. */
    const snapshot = async (token: string, parentId?: number, query: Body = {}) => {
      const res = await as(token)
        .get(r.collection(parentId))
        .query({ limit: 100, sort: 'id', ...query })
        .expect(200);
      return res.body.data as Row[];
    };
    /** Top-level lists hold the whole tenant's records; narrow them to one record by its name. */
    const only = (record: Row): Body => (r.parent ? {} : { q: record.name });

    it('creates, reads, lists, updates and deletes', async () => {
      const { admin } = ctx;
      const api = as(admin.token);
      const parentId = await newParent(admin.token);
      const created = await api
        .post(r.collection(parentId), { ...r.sample.body, id: 424242, tenant_id: ctx.other.tenant_id, unknown: 'x' })
        .expect(201);
      expect(created.body).toEqual({ code: 201, message: 'Created successfully.', data: expect.any(Object) });
      const record = created.body.data as Row;
      expect(record).toEqual({
        id: expect.any(Number),
        tenant_id: admin.tenant_id,
        ...parentOf(parentId),
        ...r.sample.record,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(record.id).not.toBe(424242);

      if (r.readable) {
        const read = await api.get(r.item(record.id)).expect(200);
        expect(read.body).toEqual({ code: 200, message: 'Retrieved successfully.', data: record });
      } else {
        await api.get(r.item(record.id)).expect(404);
      }

      const list = await api.get(r.collection(parentId)).query(only(record)).expect(200);
      expect(list.body).toEqual({
        code: 200,
        message: 'Retrieved successfully.',
        data: [record],
        meta: { limit: 25, next_cursor: null, has_more: false },
      });

      const updated = await api.put(r.item(record.id), { ...r.update.body, tenant_id: 1, id: 1 }).expect(200);
      expect(updated.body).toEqual({
        code: 200,
        message: 'Updated successfully.',
        data: {
          ...record,
          ...r.update.record,
          updated_at: expect.stringMatching(ISO),
        },
      });
      const renamed = { ...record, name: r.update.record.name };
      expect((await snapshot(admin.token, parentId, only(renamed))).map((row) => row.id)).toEqual([record.id]);

      await api.delete(r.item(record.id)).expect(200, { code: 200, message: 'Deleted successfully.', data: null });
      if (r.readable) await api.get(r.item(record.id)).expect(404);
      await api.put(r.item(record.id), r.update.body).expect(404);
      await api.delete(r.item(record.id)).expect(404);
      expect(await snapshot(admin.token, parentId, only(renamed))).toEqual([]);
    });

    it('accepts values at the edges of every rule', async () => {
      const api = as(ctx.admin.token);
      for (const [what, overrides, fields] of r.accepted) {
        // A fresh parent each time, so that treatment-group percentages never add up.
        const parentId = await newParent(ctx.admin.token);
        const res = await api.post(r.collection(parentId), r.body(resolve(overrides)));
        expect({ what, status: res.status, errors: res.body.errors }).toEqual({ what, status: 201, errors: undefined });
        expect({ what, ...res.body.data }).toMatchObject({ what, ...fields });
        const sent = resolve(overrides);
        if (sent.validation_rule_id) expect(res.body.data.validation_rule_id).toBe(ctx.rule.id);
        // The same body on PUT is accepted and yields the same fields.
        const put = await api.put(r.item(res.body.data.id), r.body(resolve(overrides)));
        expect({ what, status: put.status }).toEqual({ what, status: 200 });
        expect({ what, ...put.body.data }).toMatchObject({ what, ...fields });
      }
    });

    it('answers 422 on the right field for every rule on POST, writing nothing', async () => {
      const api = as(ctx.admin.token);
      const parentId = await newParent(ctx.admin.token);
      await api.post(r.collection(parentId), r.body()).expect(201);
      const before = await snapshot(ctx.admin.token, parentId);
      for (const [what, overrides, key] of r.rules) {
        const res = await api.post(r.collection(parentId), r.body(resolve(overrides)));
        expect({ what, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
          what,
          status: 422,
          keys: [key],
        });
        expect(res.body.message).toBe(res.body.errors[key][0]);
        expect(res.headers['cache-control']).toBe('no-cache, private');
        expect(await snapshot(ctx.admin.token, parentId)).toEqual(before);
      }
    });

    it('answers 422 on the right field for every rule on PUT, changing nothing', async () => {
      const api = as(ctx.admin.token);
      const parentId = await newParent(ctx.admin.token);
      const record = (await api.post(r.collection(parentId), r.body()).expect(201)).body.data as Row;
      const before = await snapshot(ctx.admin.token, parentId);
      for (const [what, overrides, key] of r.rules) {
        const res = await api.put(r.item(record.id), r.body(resolve(overrides)));
        expect({ what, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
          what,
          status: 422,
          keys: [key],
        });
        expect(await snapshot(ctx.admin.token, parentId)).toEqual(before);
      }
    });

    it('answers 404 for unknown, malformed and other-tenant ids on every route', async () => {
      const api = as(ctx.admin.token);
      const theirParent = await newParent(ctx.other.token);
      const theirs = (await as(ctx.other.token).post(r.collection(theirParent), r.body()).expect(201)).body.data as Row;
      const theirsBefore = await snapshot(ctx.other.token, theirParent);
      const ids = ['abc', '0', '-1', '1.5', '1e3', '99999999', String(theirs.id)];
      const body = r.body();

      for (const id of ids) {
        const answers = {
          get: (await api.get(r.item(id))).status,
          put: (await api.put(r.item(id), body)).status,
          delete: (await api.delete(r.item(id))).status,
        };
        expect({ id, ...answers }).toEqual({ id, get: 404, put: 404, delete: 404 });
      }
      if (r.parent) {
        for (const id of ['abc', '0', '-1', '1.5', '99999999', String(theirParent)]) {
          const list = await api.get(r.collection(id));
          const post = await api.post(r.collection(id), body);
          expect({ id, list: list.status, post: post.status }).toEqual({ id, list: 404, post: 404 });
          expect(list.body).toEqual({ message: expect.any(String) });
          expect(list.headers['cache-control']).toBe('no-cache, private');
        }
      }
      // The other tenant's record is untouched.
      expect(await snapshot(ctx.other.token, theirParent)).toEqual(theirsBefore);
    });

    it('lets a viewer list and read, and refuses writes with 403', async () => {
      const parentId = await newParent(ctx.admin.token);
      const record = (await as(ctx.admin.token).post(r.collection(parentId), r.body()).expect(201)).body.data as Row;
      const viewer = as(ctx.viewer.token);
      expect((await viewer.get(r.collection(parentId)).query(only(record)).expect(200)).body.data).toEqual([record]);
      if (r.readable) expect((await viewer.get(r.item(record.id)).expect(200)).body.data).toEqual(record);
      const refused = { message: 'This action is unauthorized.' };
      await viewer.post(r.collection(parentId), r.body()).expect(403, refused);
      await viewer.put(r.item(record.id), r.body({ name: 'Changed' })).expect(403, refused);
      await viewer.delete(r.item(record.id)).expect(403, refused);
      expect(await snapshot(ctx.admin.token, parentId, only(record))).toEqual([record]);
    });

    describe('lists', () => {
      let token: string;
      let parentId: number | undefined;
      let rows: Row[];

      beforeAll(async () => {
        // A tenant of its own, so that the list holds exactly these records.
        const tenant = await newTenant(ctx.t, ctx.root);
        token = (await newUser(ctx.t, ctx.root, ['admin'], tenant.id)).token;
        parentId = await newParent(token);
        rows = [];
        for (let i = 0; i < 31; i++) {
          rows.push((await as(token).post(r.collection(parentId), r.pageBody(i)).expect(201)).body.data as Row);
        }
      });

      it('pages through 31 records ten at a time with no gaps or repeats', async () => {
        const first = await as(token).get(r.collection(parentId)).query({ limit: 10 }).expect(200);
        expect(first.body.meta).toEqual({ limit: 10, next_cursor: expect.any(String), has_more: true });
        const withTotal = await as(token).get(r.collection(parentId)).query({ limit: 10, with_total: true });
        expect(withTotal.body.meta).toEqual({ limit: 10, next_cursor: expect.any(String), has_more: true, total: 31 });

        const seen: number[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const res: { body: { data: Row[]; meta: Record<string, unknown> } } = await as(token)
            .get(r.collection(parentId))
            .query({ limit: 10, with_total: true, ...(cursor ? { cursor } : {}) })
            .expect(200);
          pages++;
          const last = pages === 4;
          expect(res.body.meta).toEqual({
            limit: 10,
            next_cursor: last ? null : expect.any(String),
            has_more: !last,
            total: 31,
          });
          expect(res.body.data).toHaveLength(last ? 1 : 10);
          seen.push(...res.body.data.map((row) => row.id));
          cursor = res.body.meta.next_cursor as string | null;
        } while (cursor);
        expect(pages).toBe(4);
        // Default order: newest first.
        expect(seen).toEqual(rows.map((row) => row.id).reverse());
      });

      const sorts = ['id', '-id', 'name', '-name', 'created_at', '-created_at'];
      for (const field of r.sorts) sorts.push(field, `-${field}`);

      it.each(sorts)('sorts by %s across pages', async (sort) => {
        const { rows: paged, pages } = await listAll(ctx.t, token, r.collection(parentId), { limit: 10, sort });
        expect(pages).toBe(4);
        expect(paged.map((row) => row.id)).toEqual(expectedOrder(rows, sort));
      });

      it('filters by q' + (r.sorts.length ? ' and status' : ''), async () => {
        const { rows: bravo } = await listAll(ctx.t, token, r.collection(parentId), { q: 'rav', limit: 5 });
        expect(bravo.map((row) => row.id)).toEqual(
          rows
            .filter((row) => row.name === 'bravo')
            .map((row) => row.id)
            .reverse(),
        );
        for (const q of ['%', '_', 'zulu']) {
          const none = await as(token).get(r.collection(parentId)).query({ q }).expect(200);
          expect({ q, data: none.body.data }).toEqual({ q, data: [] });
        }
        if (!r.sorts.length) return;
        const active = await listAll(ctx.t, token, r.collection(parentId), { status: 'active', q: 'a', limit: 3 });
        expect(active.rows.map((row) => row.id)).toEqual(
          rows
            .filter((row) => row.status === 'active' && String(row.name).includes('a'))
            .map((row) => row.id)
            .reverse(),
        );
      });

      it('answers 422 for a bad limit, sort, cursor or filter', async () => {
        const otherSort = await as(token).get(r.collection(parentId)).query({ limit: 10, sort: 'name' });
        const bad: Record<string, string>[] = [
          { limit: '0' },
          { limit: '101' },
          { limit: '-5' },
          { limit: '2.5' },
          { limit: 'ten' },
          { sort: 'nope' },
          { sort: 'description' },
          { sort: '--id' },
          { cursor: 'not a cursor' },
          { cursor: 'bm90LWpzb24' },
          { cursor: Buffer.from(JSON.stringify(['-id', null, -4])).toString('base64url') },
          { cursor: otherSort.body.meta.next_cursor as string },
          { with_total: 'maybe' },
          { q: 'x'.repeat(256) },
          ...(r.sorts.length ? [{ status: 'archived' }] : []),
        ];
        for (const query of bad) {
          const res = await as(token).get(r.collection(parentId)).query(query);
          expect({ query, status: res.status }).toEqual({ query, status: 422 });
          expect(Object.keys(res.body.errors)).toEqual([Object.keys(query)[0]]);
        }
        const limits = await as(token).get(r.collection(parentId)).query({ limit: 100 }).expect(200);
        expect(limits.body.data).toHaveLength(31);
      });
    });
  });

  describe('deleting', () => {
    it('refuses to delete a program that has campaign groups (409 naming them)', async () => {
      const { t, admin } = ctx;
      const program = await newProgram(t, admin.token);
      const group = await newGroup(t, admin.token, program.id);
      const res = await t.http.delete(`/api/marketing-programs/${program.id}`).set('Authorization', admin.token);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ message: expect.stringMatching(/\b1 campaign group\b/) });
      expect(res.headers['cache-control']).toBe('no-cache, private');
      await t.http.get(`/api/marketing-programs/${program.id}`).set('Authorization', admin.token).expect(200);
      await t.http.delete(`/api/campaign-groups/${group.id}`).set('Authorization', admin.token).expect(200);
      await t.http.delete(`/api/marketing-programs/${program.id}`).set('Authorization', admin.token).expect(200);
    });

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

  describe('treatment-group allocation', () => {
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

/**
 * Behaviour the contract asks for that the shared code in src/common does not give yet. These
 * tests fail until it is fixed there (see each test for the file); they are not skipped on purpose.
 */
describe('list and field edge cases', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
    const root = await login(t);
    token = (await newUser(t, root, ['admin'], (await newTenant(t, root)).id)).token;
  });
  afterAll(() => t.close());

  it('keeps dates to whole seconds on every database, as DATETIME does', async () => {
    const program = await newProgram(t, token, {
      start_date: '2026-03-01T10:20:30.750Z',
      end_date: '2026-03-02T00:00:00.999+01:00',
    });
    expect({ start: program.start_date, end: program.end_date }).toEqual({
      start: '2026-03-01T10:20:30.000Z',
      end: '2026-03-01T23:00:00.000Z',
    });
  });

  // src/common/validation/fields.ts (parseDateLike / DateField): the offset moves the instant past
  // what a DATETIME column stores. Observed: SQLite 201 with end_date "0000-01-01T04:00:00.000Z",
  // MariaDB 500 "Server Error". API-CONVENTIONS §6: beyond what the column stores is a 422.
  it('answers 422 for a date that is after 9999-12-31 once its offset is applied', async () => {
    const before = await listAll(t, token, '/api/marketing-programs');
    for (const [dates, key] of [
      [{ start_date: '9999-12-31', end_date: '9999-12-31T23:00:00-05:00' }, 'end_date'],
      [{ start_date: '9999-12-31T23:30:00-01:00', end_date: '9999-12-31T23:30:00-01:00' }, 'start_date'],
    ] as const) {
      const res = await t.http.post('/api/marketing-programs').set('Authorization', token).send(planBody(dates));
      expect({ dates, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
        dates,
        status: 422,
        keys: expect.arrayContaining([key]),
      });
    }
    expect((await listAll(t, token, '/api/marketing-programs')).rows).toEqual(before.rows);
  });

  // src/common/resources/cursor.ts (decodeCursor) and keyset-paginator.ts: a cursor's value is not
  // checked against the sort's type, so a forged cursor runs a comparison with junk. Observed:
  // 200 (SQLite answers rows compared with an invalid date, MariaDB an empty page).
  // API-CONVENTIONS §4: a bad cursor is a 422.
  it('answers 422 for a cursor whose value does not fit its sort', async () => {
    await newProgram(t, token);
    const cursor = (value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const [sort, value] of [
      ['start_date', 'garbage'],
      ['start_date', null],
      ['-created_at', 12],
      ['budget', 'abc'],
      ['name', null],
    ] as const) {
      const res = await t.http
        .get('/api/marketing-programs')
        .query({ sort, cursor: cursor([sort, value, 1]) })
        .set('Authorization', token);
      expect({ sort, value, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
        sort,
        value,
        status: 422,
        keys: ['cursor'],
      });
    }
  });

  // src/common/validation/fields.ts (NumberField): 0.1 + 0.2 passes the two-decimals rule (within
  // its tolerance) but is stored unrounded. Observed on SQLite: budget 0.30000000000000004;
  // MariaDB's DECIMAL(15,2) gives 0.3. Both databases should answer the column's value.
  it('stores amounts at two decimals on every database', async () => {
    const program = await newProgram(t, token, { budget: 0.1 + 0.2 });
    expect(program.budget).toBe(0.3);
    const kpi = await newKpi(t, token, (await newCampaignTree(t, token)).campaign.id, {
      target_value: 1.1 + 2.2,
      actual_value: 0.7 + 0.1,
    });
    expect({ target_value: kpi.target_value, actual_value: kpi.actual_value }).toEqual({
      target_value: 3.3,
      actual_value: 0.8,
    });
  });
});
