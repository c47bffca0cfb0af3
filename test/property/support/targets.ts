import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ADMIN } from '../../support/auth.js';
import {
  campaignBody,
  goalBody,
  kpiBody,
  planBody,
  treatmentGroupBody,
  validationRuleBody,
  type Body,
  type Row,
} from '../../support/marketing-factories.js';
import type { WriteOperation } from './openapi-operations.js';
import { UnsubscribeTokens } from '../../../src/modules/customer/unsubscribe/unsubscribe-tokens.js';

/**
 * Where each POST and PUT operation of the OpenAPI document is sent, and how its effect is read
 * back. The parent records a nested route needs (a campaign for treatment groups, ...) and the
 * records a PUT updates are created once per operation through the API; path ids come from them.
 * An operation missing here fails the suites that walk the document, so a new route gets a target.
 */

export interface ApiContext {
  app: NestFastifyApplication;
  /** `Bearer …` of the seeded super-admin (every permission), acting in the default tenant. */
  root: string;
  /** STORAGE_DIR of the app (attachments resolve under `app/`). */
  storageDir: string;
}

export interface Target {
  op: WriteOperation;
  /** The concrete path, ids filled in. */
  path: string;
  /** The Authorization header to send (a fresh token for logout, which revokes it). */
  authorization?: () => Promise<string | undefined>;
  /** A list whose `meta.total` (`?with_total=true`) a refused request must leave alone. */
  list?: string;
  /** PUT: the id of the record it updates. */
  recordId?: number;
  /** Reads a record the operation wrote, by id (undefined when it is not there). */
  read?: (id: number) => Promise<Row | undefined>;
  /** Waits for the background work a 2xx answer started (an erasure's job), so that the next case finds it done. */
  settle?: (answer: Row) => Promise<void>;
  /**
   * Valid values of fields whose validity depends on other records (ids of live records, role
   * names, attachment paths): the generators draw valid values of these fields from here only.
   * Keys are property names; nested ones `attachments.path`.
   */
  choices: Record<string, unknown[]>;
  /** Valid values to mix in with the generated ones (credentials that let login succeed). */
  hints: Record<string, unknown[]>;
  /** Upper bounds of valid numbers tighter than the schema's (treatment groups share 100 %). */
  validMax: Record<string, number>;
  /**
   * A batch: an item broken at `<field>.N.*` fails alone (the answer's `data[N].status` is
   * `failed`) instead of refusing the request.
   */
  itemsFailAlone?: string;
  /** Fields the write's answer shows that the record's GET does not (a webhook's secret). */
  answerOnly?: string[];
  /** The route reads no body and takes any (the one-click unsubscribe, RFC 8058): no body breaks its contract. */
  anyBody?: boolean;
  /** The route's largest JSON body when it is not the conventions' 1 MiB (POST /api/track: 5 MiB). */
  bodyLimitBytes?: number;
}

const unique = () => randomBytes(4).toString('hex');

export function http(ctx: ApiContext) {
  return request(ctx.app.getHttpServer());
}

async function call(
  ctx: ApiContext,
  method: 'get' | 'post' | 'put',
  path: string,
  body?: Body,
  authorization = ctx.root,
) {
  const req = http(ctx)[method](path).set('Authorization', authorization).set('Accept', 'application/json');
  return body === undefined ? req : req.send(body);
}

/** POSTs through the API and answers the created record (anything but 201 throws). */
export async function make(ctx: ApiContext, path: string, body: Body, status = 201): Promise<Row> {
  const res = await call(ctx, 'post', path, body);
  if (res.status !== status) throw new Error(`fixture POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as Row;
}

/** GET one record; undefined on 404. */
export async function getOne(ctx: ApiContext, path: string): Promise<Row | undefined> {
  const res = await call(ctx, 'get', path);
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as Row;
}

/** Every row of a list, page by page. */
export async function listAll(ctx: ApiContext, path: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const res = await call(ctx, 'get', `${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    rows.push(...(res.body.data as Row[]));
    cursor = res.body.meta.next_cursor ?? undefined;
    if (!cursor) return rows;
  }
  throw new Error(`GET ${path} never ends`);
}

/** `meta.total` of a list. */
export async function totalOf(ctx: ApiContext, path: string): Promise<number> {
  const res = await call(ctx, 'get', `${path}?with_total=true&limit=1`);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.meta.total as number;
}

/** Row counts of every table: a refused request must not move any of them. */
export async function tableCounts(ctx: ApiContext): Promise<Record<string, number>> {
  const ds = ctx.app.get(DataSource);
  // Deliveries are made in the background (the feed's numbering fans events out to webhooks): not a request's work.
  const background = new Set(['webhook_deliveries', 'webhook_attempts']);
  const tables = [...new Set(ds.entityMetadatas.map((m) => m.tableName))].filter((t) => !background.has(t)).sort();
  const q = (name: string) => ds.driver.escape(name);
  const [row] = (await ds.query(
    `SELECT ${tables.map((table) => `(SELECT COUNT(*) FROM ${q(table)}) AS ${q(table)}`).join(', ')}`,
  )) as Record<string, number | string>[];
  return Object.fromEntries(Object.entries(row).map(([table, count]) => [table, Number(count)]));
}

/** Waits until the job at `path` has ended (completed, failed or cancelled). */
async function jobEnded(ctx: ApiContext, path: string): Promise<void> {
  for (let waited = 0; ; waited += 50) {
    const job = await getOne(ctx, path);
    if (job && ['completed', 'failed', 'cancelled'].includes(String(job.status))) return;
    if (waited > 30_000) throw new Error(`the job at ${path} did not end`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const byId = (path: (id: number) => string) => (ctx: ApiContext) => (id: number) => getOne(ctx, path(id));
const inList = (path: string) => (ctx: ApiContext) => async (id: number) =>
  (await listAll(ctx, path)).find((row) => row.id === id);

interface Spec {
  path: string;
  list?: string;
  recordId?: number;
  read?: (ctx: ApiContext) => (id: number) => Promise<Row | undefined>;
  choices?: Record<string, unknown[]>;
  hints?: Record<string, unknown[]>;
  validMax?: Record<string, number>;
  authorization?: () => Promise<string | undefined>;
  settle?: (ctx: ApiContext) => (answer: Row) => Promise<void>;
  itemsFailAlone?: string;
  /** Fields the write's answer shows that the record's GET does not (a webhook's secret). */
  answerOnly?: string[];
  /** The route reads no body and takes any (the one-click unsubscribe, RFC 8058): no body breaks its contract. */
  anyBody?: boolean;
  /** The route's largest JSON body when it is not the conventions' 1 MiB (POST /api/track: 5 MiB). */
  bodyLimitBytes?: number;
}

/** A webhook URL the property apps allow by name (WEBHOOK_ALLOWED_HOSTS); it never resolves, so deliveries just fail. */
export const WEBHOOK_URL = 'https://hooks.invalid/property';

const ROLE_SETS = [[], ['viewer'], ['manager'], ['admin'], ['viewer', 'manager']];

async function campaignTree(ctx: ApiContext) {
  const program = await make(ctx, '/api/marketing-programs', planBody());
  const group = await make(ctx, `/api/marketing-programs/${program.id}/campaign-groups`, planBody());
  const campaign = await make(ctx, `/api/campaign-groups/${group.id}/campaigns`, campaignBody());
  return { program, group, campaign };
}

const audienceBody = (): Body => ({
  name: `Audience ${unique()}`,
  rules: [{ rule_type: 'country', rule_value: 'NL' }],
});
const destinationBody = (): Body => ({
  name: `Destination ${unique()}`,
  destination_type: 'email',
  connection_details: '{"endpoint":"https://esp.example.com"}',
});
const pool = async (n: number, create: () => Promise<Row>) => {
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) rows.push(await create());
  return rows.map((row) => row.id);
};

/** The targets, by operationId. */
const SPECS: Record<string, (ctx: ApiContext) => Promise<Spec>> = {
  createTenant: async () => ({ path: '/api/admin/tenants', list: '/api/admin/tenants', read: tenantRead }),
  updateTenant: async (ctx) => {
    // A tenant of its own: deactivating it locks its users out, and nobody else works in it.
    const tenant = await make(ctx, '/api/admin/tenants', { name: `Target ${unique()}` });
    return {
      path: `/api/admin/tenants/${tenant.id}`,
      recordId: tenant.id,
      list: '/api/admin/tenants',
      read: tenantRead,
    };
  },
  createUser: async () => ({
    path: '/api/admin/users',
    list: '/api/admin/users',
    read: userRead,
    choices: { roles: ROLE_SETS },
  }),
  updateUser: async (ctx) => {
    const user = await make(ctx, '/api/admin/users', {
      name: 'Target user',
      email: `target-${unique()}@example.com`,
      password: 'target-password',
      roles: ['viewer'],
    });
    return {
      path: `/api/admin/users/${user.id}`,
      recordId: user.id,
      list: '/api/admin/users',
      read: userRead,
      choices: { roles: ROLE_SETS },
    };
  },
  createAudience: async () => ({ path: '/api/audiences', list: '/api/audiences', read: audienceRead }),
  // Saves nothing: a 2xx has no record to read back, a 4xx must leave the audiences alone.
  previewAudience: async () => ({ path: '/api/audiences/preview', list: '/api/audiences' }),
  updateAudience: async (ctx) => {
    const audience = await make(ctx, '/api/audiences', audienceBody());
    return { path: `/api/audiences/${audience.id}`, recordId: audience.id, list: '/api/audiences', read: audienceRead };
  },
  createMarketingProgram: async () => ({
    path: '/api/marketing-programs',
    list: '/api/marketing-programs',
    read: byId((id) => `/api/marketing-programs/${id}`),
  }),
  updateMarketingProgram: async (ctx) => {
    const program = await make(ctx, '/api/marketing-programs', planBody());
    return {
      path: `/api/marketing-programs/${program.id}`,
      recordId: program.id,
      list: '/api/marketing-programs',
      read: byId((id) => `/api/marketing-programs/${id}`),
    };
  },
  createCampaignGroup: async (ctx) => {
    const program = await make(ctx, '/api/marketing-programs', planBody());
    const path = `/api/marketing-programs/${program.id}/campaign-groups`;
    return { path, list: path, read: byId((id) => `/api/campaign-groups/${id}`) };
  },
  updateCampaignGroup: async (ctx) => {
    const { program, group } = await campaignTree(ctx);
    return {
      path: `/api/campaign-groups/${group.id}`,
      recordId: group.id,
      list: `/api/marketing-programs/${program.id}/campaign-groups`,
      read: byId((id) => `/api/campaign-groups/${id}`),
    };
  },
  createCampaign: async (ctx) => {
    const { group } = await campaignTree(ctx);
    const path = `/api/campaign-groups/${group.id}/campaigns`;
    return { path, list: path, read: byId((id) => `/api/campaigns/${id}`) };
  },
  updateCampaign: async (ctx) => {
    const { group, campaign } = await campaignTree(ctx);
    return {
      path: `/api/campaigns/${campaign.id}`,
      recordId: campaign.id,
      list: `/api/campaign-groups/${group.id}/campaigns`,
      read: byId((id) => `/api/campaigns/${id}`),
    };
  },
  createTreatmentGroup: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    const path = `/api/campaigns/${campaign.id}/treatment-groups`;
    // The campaign's groups share at most 100 %: small valid shares leave room for many creates.
    return {
      path,
      list: path,
      read: byId((id) => `/api/treatment-groups/${id}`),
      validMax: { allocation_percentage: 2 },
    };
  },
  updateTreatmentGroup: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    const list = `/api/campaigns/${campaign.id}/treatment-groups`;
    const group = await make(ctx, list, treatmentGroupBody());
    await make(ctx, list, treatmentGroupBody({ allocation_percentage: 30 }));
    return {
      path: `/api/treatment-groups/${group.id}`,
      recordId: group.id,
      list,
      read: byId((id) => `/api/treatment-groups/${id}`),
    };
  },
  createCampaignKpi: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    const path = `/api/campaigns/${campaign.id}/kpis`;
    return { path, list: path, read: byId((id) => `/api/campaign-kpis/${id}`) };
  },
  updateCampaignKpi: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    const list = `/api/campaigns/${campaign.id}/kpis`;
    const kpi = await make(ctx, list, kpiBody());
    return {
      path: `/api/campaign-kpis/${kpi.id}`,
      recordId: kpi.id,
      list,
      read: byId((id) => `/api/campaign-kpis/${id}`),
    };
  },
  createCustomerGoal: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    const path = `/api/campaigns/${campaign.id}/customer-goals`;
    const rules = await pool(3, () => make(ctx, '/api/validation-rules', validationRuleBody()));
    return { path, list: path, read: inList(path), choices: { validation_rule_id: [...rules, null] } };
  },
  updateCustomerGoal: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    const list = `/api/campaigns/${campaign.id}/customer-goals`;
    const goal = await make(ctx, list, goalBody());
    const rules = await pool(3, () => make(ctx, '/api/validation-rules', validationRuleBody()));
    return {
      path: `/api/customer-goals/${goal.id}`,
      recordId: goal.id,
      list,
      read: inList(list),
      choices: { validation_rule_id: [...rules, null] },
    };
  },
  createSubAudience: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    const path = `/api/campaigns/${campaign.id}/sub-audiences`;
    const audiences = await pool(3, () => make(ctx, '/api/audiences', audienceBody()));
    return { path, list: path, read: byId((id) => `/api/sub-audiences/${id}`), choices: { audience_id: audiences } };
  },
  updateSubAudience: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    const list = `/api/campaigns/${campaign.id}/sub-audiences`;
    const audience = await make(ctx, '/api/audiences', audienceBody());
    const sub = await make(ctx, list, {
      audience_id: audience.id,
      name: 'Target sub-audience',
      segment_definition: '{"last_order_days":30}',
    });
    return {
      path: `/api/sub-audiences/${sub.id}`,
      recordId: sub.id,
      list,
      read: byId((id) => `/api/sub-audiences/${id}`),
    };
  },
  addCampaignAudience: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    const path = `/api/campaigns/${campaign.id}/audiences`;
    const audiences = await pool(15, () => make(ctx, '/api/audiences', audienceBody()));
    return { path, list: path, read: inList(path), choices: { audience_id: audiences } };
  },
  addCampaignDestination: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    const path = `/api/campaigns/${campaign.id}/destinations`;
    const destinations = await pool(3, () => make(ctx, '/api/destinations', destinationBody()));
    const groups = await pool(2, () =>
      make(ctx, `/api/campaigns/${campaign.id}/treatment-groups`, treatmentGroupBody()),
    );
    return {
      path,
      list: path,
      read: inList(path),
      choices: { destination_id: destinations, treatment_group_id: [...groups, null] },
    };
  },
  addCampaignValidationRule: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    const path = `/api/campaigns/${campaign.id}/validation-rules`;
    const rules = await pool(15, () => make(ctx, '/api/validation-rules', validationRuleBody()));
    return { path, list: path, read: inList(path), choices: { validation_rule_id: rules } };
  },
  // Items are upserted or fail alone; a refused body (422 on items) writes nothing.
  upsertCustomerBatch: async () => ({ path: '/api/customers/batch', list: '/api/customers', itemsFailAlone: 'items' }),
  trackCustomerEvents: async () => ({
    path: '/api/track',
    list: '/api/event-names',
    itemsFailAlone: 'events',
    bodyLimitBytes: 5 * 1024 * 1024,
  }),
  // Takes text/csv only: every JSON body is a 415 and no job is made.
  createCustomerImport: async () => ({ path: '/api/customers/imports', list: '/api/customers/imports' }),
  cancelCustomerImport: async (ctx) => {
    const upload = await http(ctx)
      .post('/api/customers/imports')
      .set('Authorization', ctx.root)
      .set('Content-Type', 'text/csv')
      .send('external_id,first_name\nproperty-cancel,Ada\n');
    if (upload.status !== 202) throw new Error(`fixture import: ${upload.status} ${JSON.stringify(upload.body)}`);
    // The job runs in the background: wait for its end, so that nothing else changes while the operation is tried.
    const id = upload.body.data.id as number;
    await jobEnded(ctx, `/api/customers/imports/${id}`);
    return { path: `/api/customers/imports/${id}/cancel`, list: '/api/customers/imports' };
  },
  createCustomer: async () => ({
    path: '/api/customers',
    list: '/api/customers',
    read: byId((id) => `/api/customers/${id}`),
  }),
  updateCustomer: async (ctx) => {
    const customer = await make(ctx, '/api/customers', { first_name: 'Target' });
    return {
      path: `/api/customers/${customer.id}`,
      recordId: customer.id,
      list: '/api/customers',
      read: byId((id) => `/api/customers/${id}`),
    };
  },
  createDestination: async () => ({
    path: '/api/destinations',
    list: '/api/destinations',
    read: byId((id) => `/api/destinations/${id}`),
  }),
  updateDestination: async (ctx) => {
    const destination = await make(ctx, '/api/destinations', destinationBody());
    return {
      path: `/api/destinations/${destination.id}`,
      recordId: destination.id,
      list: '/api/destinations',
      read: byId((id) => `/api/destinations/${id}`),
    };
  },
  createValidationRule: async () => ({
    path: '/api/validation-rules',
    list: '/api/validation-rules',
    read: byId((id) => `/api/validation-rules/${id}`),
  }),
  updateValidationRule: async (ctx) => {
    const rule = await make(ctx, '/api/validation-rules', validationRuleBody());
    return {
      path: `/api/validation-rules/${rule.id}`,
      recordId: rule.id,
      list: '/api/validation-rules',
      read: byId((id) => `/api/validation-rules/${id}`),
    };
  },
  mergeCustomers: async (ctx) => {
    const survivor = await make(ctx, '/api/customers', { first_name: 'Survivor' });
    const sources = [
      await make(ctx, '/api/customers', { last_name: 'Source', attributes: '{"tier":"gold"}' }),
      await make(ctx, '/api/customers', { email: `source-${unique()}@example.com` }),
    ];
    // A merge consumes its sources: a later valid body finds them gone (422), which changes nothing.
    return {
      path: `/api/customers/${survivor.id}/merge`,
      list: '/api/customers',
      choices: { from: [sources.map((source) => source.id), [sources[0].id]] },
    };
  },
  eraseCustomer: async (ctx) => {
    const customer = await make(ctx, '/api/customers', { email: `erase-${unique()}@example.com` });
    return {
      path: `/api/customers/${customer.id}/erase`,
      list: '/api/customers',
      // The job scrubs the customer's activity and records its own end: not while a later case is tried.
      settle: (ctx) => (job) => jobEnded(ctx, `/api/customers/erasures/${job.id}`),
    };
  },
  createWebhook: async () => ({
    path: '/api/webhooks',
    list: '/api/webhooks',
    read: byId((id) => `/api/webhooks/${id}`),
    hints: { url: [WEBHOOK_URL], events: [['*'], ['customer.created', 'customer.deleted']] },
    answerOnly: ['secret'],
  }),
  updateWebhook: async (ctx) => {
    const webhook = await make(ctx, '/api/webhooks', { url: WEBHOOK_URL, events: ['*'] });
    return {
      path: `/api/webhooks/${webhook.id}`,
      recordId: webhook.id,
      list: '/api/webhooks',
      read: byId((id) => `/api/webhooks/${id}`),
      hints: { url: [WEBHOOK_URL], events: [['*'], ['customer.updated']] },
    };
  },
  rotateWebhookSecret: async (ctx) => {
    const webhook = await make(ctx, '/api/webhooks', { url: WEBHOOK_URL, events: ['*'] });
    return { path: `/api/webhooks/${webhook.id}/rotate-secret`, list: '/api/webhooks' };
  },
  testWebhook: async (ctx) => {
    const webhook = await make(ctx, '/api/webhooks', { url: WEBHOOK_URL, events: ['*'] });
    return { path: `/api/webhooks/${webhook.id}/test`, list: '/api/webhooks' };
  },
  replayWebhook: async (ctx) => {
    const webhook = await make(ctx, '/api/webhooks', { url: WEBHOOK_URL, events: ['*'] });
    return {
      path: `/api/webhooks/${webhook.id}/replay`,
      list: '/api/webhooks',
      hints: { since: ['2026-01-01T00:00:00Z'], types: [['customer.created']] },
    };
  },
  retryWebhookDelivery: async (ctx) => {
    const webhook = await make(ctx, '/api/webhooks', { url: WEBHOOK_URL, events: ['customer.created'] });
    await make(ctx, '/api/customers', { first_name: 'Delivered' });
    for (let waited = 0; ; waited += 50) {
      const [delivery] = await listAll(ctx, `/api/webhooks/${webhook.id}/deliveries`);
      if (delivery)
        return { path: `/api/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`, list: '/api/webhooks' };
      if (waited > 10_000) throw new Error('fixture delivery never appeared');
      await new Promise((r) => setTimeout(r, 50));
    }
  },
  login: async () => ({
    path: '/api/login',
    authorization: async () => undefined,
    hints: { email: [ADMIN.email], password: [ADMIN.password] },
  }),
  forgotPassword: async () => ({
    path: '/api/forgot-password',
    authorization: async () => undefined,
    hints: { email: [ADMIN.email] },
  }),
  resetPassword: async () => ({ path: '/api/reset-password', authorization: async () => undefined }),
  logout: async (ctx) => ({
    path: '/api/logout',
    // Logout revokes the token it is sent with: each request signs in anew.
    authorization: async () => {
      const res = await http(ctx)
        .post('/api/login')
        .send({ ...ADMIN, device_name: `logout-${unique()}` });
      if (res.status !== 200) throw new Error(`login for logout: ${res.status} ${JSON.stringify(res.body)}`);
      return `Bearer ${res.body.data.token}`;
    },
  }),
  rotateDestinationSecret: async (ctx) => {
    const destination = await make(ctx, '/api/destinations', {
      ...destinationBody(),
      destination_type: 'webhook',
      connection_details: JSON.stringify({ url: WEBHOOK_URL }),
    });
    return { path: `/api/destinations/${destination.id}/rotate-secret`, list: '/api/destinations' };
  },
  testDestination: async (ctx) => {
    // A file destination: a test send writes a file, no network.
    const destination = await make(ctx, '/api/destinations', {
      ...destinationBody(),
      destination_type: 'file',
      connection_details: '{"format":"ndjson"}',
    });
    const { campaign } = await campaignTree(ctx);
    const link = await make(ctx, `/api/campaigns/${campaign.id}/destinations`, {
      destination_id: destination.id,
      attribute_mapping: '{"email":"email","name":"first_name"}',
    });
    const customer = await make(ctx, '/api/customers', { first_name: 'Tested' });
    return {
      path: `/api/destinations/${destination.id}/test`,
      list: '/api/destinations',
      choices: { campaign_destination_id: [link.id], customer_id: [customer.id] },
    };
  },
  unsubscribe: async (ctx) => {
    const customer = await make(ctx, '/api/customers', { email: `unsubscribe-${unique()}@example.com` });
    const token = ctx.app
      .get(UnsubscribeTokens)
      .token(customer.tenant_id as number, customer.id, customer.email as string);
    // Public: the token is the credential. Any body is read and dropped.
    return {
      path: `/api/unsubscribe/${token}`,
      list: '/api/customers',
      authorization: async () => undefined,
      anyBody: true,
    };
  },
  launchCampaignRun: async (ctx) => {
    const { campaign } = await runnableFileCampaign(ctx);
    return {
      path: `/api/campaigns/${campaign.id}/runs`,
      list: `/api/campaigns/${campaign.id}/runs`,
      // The run's job records its progress and its end: not while a later case is tried.
      settle: (ctx) => (run) => jobEnded(ctx, `/api/campaign-runs/${run.id}`),
    };
  },
  pauseCampaignRun: async (ctx) => endedRunTarget(ctx, 'pause'),
  resumeCampaignRun: async (ctx) => endedRunTarget(ctx, 'resume'),
  cancelCampaignRun: async (ctx) => endedRunTarget(ctx, 'cancel'),
  retryCampaignRun: async (ctx) => endedRunTarget(ctx, 'retry'),
  putCampaignSchedule: async (ctx) => {
    const { campaign } = await campaignTree(ctx);
    return {
      path: `/api/campaigns/${campaign.id}/schedule`,
      list: `/api/campaigns/${campaign.id}/runs`,
      hints: {
        cron: ['0 9 * * 1-5', '*/5 * * * *'],
        timezone: ['Europe/Amsterdam', 'UTC'],
        at: ['2031-01-01T09:00:00Z'],
      },
    };
  },
  putMessagingLimits: async () => ({
    path: '/api/messaging-limits',
    choices: { 'rules.channel': ['email', 'any', 'webhook', 'file', 'amqp'] },
  }),
  sendEmail: async (ctx) => {
    mkdirSync(join(ctx.storageDir, 'app', 'reports'), { recursive: true });
    writeFileSync(join(ctx.storageDir, 'app', 'reports', 'q1.txt'), 'Quarter one\n');
    writeFileSync(join(ctx.storageDir, 'app', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    return { path: '/api/send-email', choices: { 'attachments.path': ['reports/q1.txt', 'logo.png'] } };
  },
};

/** An active campaign of today with a `file` destination (deliverable without a network). */
async function runnableFileCampaign(ctx: ApiContext) {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const program = await make(ctx, '/api/marketing-programs', planBody());
  const group = await make(ctx, `/api/marketing-programs/${program.id}/campaign-groups`, planBody());
  const campaign = await make(ctx, `/api/campaign-groups/${group.id}/campaigns`, {
    ...campaignBody(),
    status: 'active',
    start_date: day(-1),
    end_date: day(1),
  });
  const destination = await make(ctx, '/api/destinations', {
    ...destinationBody(),
    destination_type: 'file',
    connection_details: '{"format":"ndjson"}',
  });
  await make(ctx, `/api/campaigns/${campaign.id}/destinations`, {
    destination_id: destination.id,
    attribute_mapping: '{"email":"email"}',
  });
  return { campaign };
}

/** A dry run of a campaign to a file destination, once it has ended. */
export async function endedDryRun(ctx: ApiContext): Promise<{ campaign: Row; run: Row }> {
  const { campaign } = await runnableFileCampaign(ctx);
  const run = await make(ctx, `/api/campaigns/${campaign.id}/runs`, { dry_run: true }, 202);
  await jobEnded(ctx, `/api/campaign-runs/${run.id}`);
  return { campaign, run };
}

/** A dry run that has ended, and the path of one of its controls (each answers 200 or 409 on it, never changing it). */
async function endedRunTarget(ctx: ApiContext, control: string): Promise<Spec> {
  const { campaign, run } = await endedDryRun(ctx);
  return { path: `/api/campaign-runs/${run.id}/${control}`, list: `/api/campaigns/${campaign.id}/runs` };
}

function tenantRead(ctx: ApiContext) {
  return (id: number) => getOne(ctx, `/api/admin/tenants/${id}`);
}
function userRead(ctx: ApiContext) {
  return (id: number) => getOne(ctx, `/api/admin/users/${id}`);
}
function audienceRead(ctx: ApiContext) {
  return (id: number) => getOne(ctx, `/api/audiences/${id}`);
}

export const knownOperations = () => Object.keys(SPECS);

/** Creates what the operation needs (through the API) and answers where and how to send it. */
export async function prepareTarget(ctx: ApiContext, op: WriteOperation): Promise<Target> {
  const spec = SPECS[op.operationId];
  if (!spec) throw new Error(`no target for ${op.method.toUpperCase()} ${op.template} (${op.operationId}): add one`);
  const s = await spec(ctx);
  return {
    op,
    path: s.path,
    authorization: s.authorization ?? (async () => ctx.root),
    list: s.list,
    recordId: s.recordId,
    read: s.read?.(ctx),
    settle: s.settle?.(ctx),
    choices: s.choices ?? {},
    hints: s.hints ?? {},
    validMax: s.validMax ?? {},
    itemsFailAlone: s.itemsFailAlone,
    answerOnly: s.answerOnly,
    anyBody: s.anyBody,
    bodyLimitBytes: s.bodyLimitBytes,
  };
}

/**
 * Sends a body exactly as given: JSON text (so `\ud800` escapes reach the parser as escapes) or raw
 * bytes (superagent would otherwise serialize a Buffer as JSON). `authorization` comes from
 * `target.authorization()`, asked before any snapshot (logout's signs in anew).
 */
export async function sendRaw(
  ctx: ApiContext,
  target: Target,
  raw: string | Buffer,
  authorization: string | undefined,
) {
  const req = http(ctx)[target.op.method](target.path).set('Accept', 'application/json');
  if (authorization) req.set('Authorization', authorization);
  return req
    .set('Content-Type', 'application/json')
    .serialize((body: unknown) => body as string)
    .send(raw);
}
