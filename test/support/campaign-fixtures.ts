import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { login } from './auth.js';
import { newTenant, newUser, type TestUser } from './factories.js';
import {
  followCursors,
  planBody,
  treatmentGroupBody,
  validationRuleBody,
  type Body,
  type Row,
} from './marketing-factories.js';
import { createTestApp, type TestApp } from './test-app.js';

/**
 * Helpers of the audience, customer, destination and campaign-validation-rule e2e specs:
 * a test app without rate limits, tenants with their users, campaigns built through the API,
 * and the assertions these specs repeat.
 */

const unique = () => randomBytes(3).toString('hex');

export type { Body, Row };
export type Query = Record<string, string | number | boolean>;

/** The real app on a fresh database, with limits no test reaches. */
export const startApp = (): Promise<TestApp> =>
  createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });

/** Authenticated requests of one user. */
export interface Client {
  token: string;
  get(path: string, query?: Query): Promise<Response>;
  post(path: string, body?: object): Promise<Response>;
  put(path: string, body?: object): Promise<Response>;
  delete(path: string): Promise<Response>;
}

export function client(t: TestApp, token: string): Client {
  const auth = <R extends { set(name: string, value: string): R }>(req: R) =>
    req.set('Authorization', token).set('Accept', 'application/json');
  return {
    token,
    get: async (path, query = {}) => auth(t.http.get(path)).query(query),
    post: async (path, body) => (body === undefined ? auth(t.http.post(path)) : auth(t.http.post(path)).send(body)),
    put: async (path, body) => (body === undefined ? auth(t.http.put(path)) : auth(t.http.put(path)).send(body)),
    delete: async (path) => auth(t.http.delete(path)),
  };
}

/** A tenant with a manager (reads and writes every domain record) and a viewer (reads only). */
export interface Workspace {
  tenantId: number;
  manager: Client;
  viewer: Client;
  managerUser: TestUser;
}

export async function newWorkspace(t: TestApp, root?: string): Promise<Workspace> {
  const superAdmin = root ?? (await login(t));
  const tenant = await newTenant(t, superAdmin);
  const manager = await newUser(t, superAdmin, ['manager'], tenant.id);
  const viewer = await newUser(t, superAdmin, ['viewer'], tenant.id);
  return {
    tenantId: tenant.id,
    manager: client(t, manager.token),
    viewer: client(t, viewer.token),
    managerUser: manager,
  };
}

/** The created record of a POST that must answer 201 (anything else fails the test with the body). */
export async function created(res: Response | Promise<Response>): Promise<Row> {
  const r = await res;
  if (r.status !== 201) throw new Error(`expected 201, got ${r.status} ${JSON.stringify(r.body)}`);
  expect(r.body).toMatchObject({ code: 201, message: expect.any(String) });
  return r.body.data as Row;
}

/** The `data` of an answer that must have the given status. */
export async function dataOf(res: Response | Promise<Response>, status = 200): Promise<Row & Row[]> {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

/** Status and error keys of an answer, for table-driven comparisons that say which case failed. */
export const outcome = (res: Response) => ({
  status: res.status,
  keys: Object.keys((res.body as { errors?: object }).errors ?? {}),
});

/** 422 with exactly one error key. */
export const invalidOn = (key: string) => ({ status: 422, keys: [key] });

/** A marketing program → campaign group → campaign, created through the API. */
export async function newCampaign(api: Client, overrides: Body = {}): Promise<Row> {
  const program = await created(api.post('/api/marketing-programs', planBody()));
  return newCampaignIn(api, program.id, overrides);
}

/** A further campaign under the given program (a new group). */
export async function newCampaignIn(api: Client, programId: number, overrides: Body = {}): Promise<Row> {
  const group = await created(api.post(`/api/marketing-programs/${programId}/campaign-groups`, planBody()));
  return created(
    api.post(`/api/campaign-groups/${group.id}/campaigns`, planBody({ name: `Campaign ${unique()}`, ...overrides })),
  );
}

export const newTreatmentGroup = (api: Client, campaignId: number, overrides: Body = {}) =>
  created(api.post(`/api/campaigns/${campaignId}/treatment-groups`, treatmentGroupBody(overrides)));

export const audienceBody = (overrides: Body = {}): Body => ({
  name: `Audience ${unique()}`,
  description: 'Buyers',
  rules: [{ rule_type: 'country', rule_value: 'NL' }],
  ...overrides,
});

export const newAudience = (api: Client, overrides: Body = {}) =>
  created(api.post('/api/audiences', audienceBody(overrides)));

export const destinationBody = (overrides: Body = {}): Body => ({
  name: `Destination ${unique()}`,
  description: 'The newsletter tool',
  destination_type: 'email',
  connection_details: '{"endpoint":"https://esp.example.com","list":"spring"}',
  ...overrides,
});

export const newDestination = (api: Client, overrides: Body = {}) =>
  created(api.post('/api/destinations', destinationBody(overrides)));

export const newValidationRule = (api: Client, overrides: Body = {}) =>
  created(api.post('/api/validation-rules', validationRuleBody(overrides)));

/** Every record of a list, following `meta.next_cursor`, with `meta.total` of each page when asked. */
export const listAll = (api: Client, path: string, query: Query = {}) =>
  followCursors(path, (q) => api.get(path, q), query);

/** A snapshot of a list (first 100 rows), to show that a refused request wrote nothing. */
export const snapshot = async (api: Client, path: string) => dataOf(api.get(path, { limit: 100 }));

/** Path ids that name no record of the caller: unknown, not positive integers. */
export const MISSING_IDS = ['999999999', 'abc', '0', '-1', '1.5'];

/** ISO 8601 UTC. */
export const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
