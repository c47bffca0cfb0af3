import { randomBytes } from 'node:crypto';
import type { TestApp } from './test-app.js';

const unique = () => randomBytes(3).toString('hex');

export type Body = Record<string, unknown>;
export type Row = Record<string, unknown> & { id: number };

/** A valid marketing program or campaign group body (every field is required there). */
export const planBody = (overrides: Body = {}): Body => ({
  name: `Plan ${unique()}`,
  description: 'What the plan is about',
  status: 'draft',
  start_date: '2026-03-01',
  end_date: '2026-05-31',
  budget: 1000,
  goal: 'Grow sign-ups',
  ...overrides,
});

/** A valid campaign body with its optional JSON-string fields. */
export const campaignBody = (overrides: Body = {}): Body => ({
  ...planBody({ name: `Campaign ${unique()}` }),
  target_audience: '{"segment":"returning"}',
  success_criteria: '{"conversion_rate":0.05}',
  ...overrides,
});

export const treatmentGroupBody = (overrides: Body = {}): Body => ({
  name: `Group ${unique()}`,
  description: 'Half of the audience',
  type: 'control',
  allocation_percentage: 10,
  ...overrides,
});

export const kpiBody = (overrides: Body = {}): Body => ({
  name: `KPI ${unique()}`,
  description: 'Orders placed',
  kpi_type: 'conversion',
  target_value: 1000,
  actual_value: 250,
  ...overrides,
});

export const goalBody = (overrides: Body = {}): Body => ({
  name: `Goal ${unique()}`,
  description: 'Buy twice',
  goal_type: 'purchase',
  target_value: 3,
  ...overrides,
});

export const validationRuleBody = (overrides: Body = {}): Body => ({
  name: `Rule ${unique()}`,
  description: 'Adults only',
  rule_definition: '{"field":"age","operator":">=","value":18}',
  ...overrides,
});

/** POSTs a body and answers the created record; anything but 201 is a test failure. */
export async function create(t: TestApp, token: string, path: string, body: Body): Promise<Row> {
  const res = await t.http.post(path).set('Authorization', token).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as Row;
}

export const newProgram = (t: TestApp, token: string, overrides: Body = {}) =>
  create(t, token, '/api/marketing-programs', planBody(overrides));

export const newGroup = (t: TestApp, token: string, programId: number, overrides: Body = {}) =>
  create(t, token, `/api/marketing-programs/${programId}/campaign-groups`, planBody(overrides));

export const newCampaign = (t: TestApp, token: string, groupId: number, overrides: Body = {}) =>
  create(t, token, `/api/campaign-groups/${groupId}/campaigns`, campaignBody(overrides));

/** A program with one group holding one campaign. */
export async function newCampaignTree(t: TestApp, token: string): Promise<{ program: Row; group: Row; campaign: Row }> {
  const program = await newProgram(t, token);
  const group = await newGroup(t, token, program.id);
  const campaign = await newCampaign(t, token, group.id);
  return { program, group, campaign };
}

export const newTreatmentGroup = (t: TestApp, token: string, campaignId: number, overrides: Body = {}) =>
  create(t, token, `/api/campaigns/${campaignId}/treatment-groups`, treatmentGroupBody(overrides));

export const newKpi = (t: TestApp, token: string, campaignId: number, overrides: Body = {}) =>
  create(t, token, `/api/campaigns/${campaignId}/kpis`, kpiBody(overrides));

export const newGoal = (t: TestApp, token: string, campaignId: number, overrides: Body = {}) =>
  create(t, token, `/api/campaigns/${campaignId}/customer-goals`, goalBody(overrides));

export const newValidationRule = (t: TestApp, token: string, overrides: Body = {}) =>
  create(t, token, '/api/validation-rules', validationRuleBody(overrides));

type ListPage = { data: Row[]; meta: { next_cursor: string | null; total?: number } };

/** Every record of a list, following `meta.next_cursor` page by page (and `meta.total` when asked). */
export async function followCursors(
  path: string,
  getPage: (query: Record<string, string | number | boolean>) => PromiseLike<{ status: number; body: unknown }>,
  query: Record<string, string | number | boolean> = {},
): Promise<{ rows: Row[]; pages: number; totals: number[] }> {
  const rows: Row[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await getPage({ ...query, ...(cursor ? { cursor } : {}) });
    if (res.status !== 200) throw new Error(`GET ${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
    const page = res.body as ListPage;
    rows.push(...page.data);
    if (page.meta.total !== undefined) totals.push(page.meta.total);
    cursor = page.meta.next_cursor;
    pages++;
    if (pages > 1000) throw new Error(`GET ${path} never ends`);
  } while (cursor);
  return { rows, pages, totals };
}

export const listAll = (
  t: TestApp,
  token: string,
  path: string,
  query: Record<string, string | number | boolean> = {},
) => followCursors(path, (q) => t.http.get(path).query(q).set('Authorization', token), query);
