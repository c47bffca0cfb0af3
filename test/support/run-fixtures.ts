import { createHmac } from 'node:crypto';
import type { Received } from './destination-fixtures.js';
import { eventually, newDeliveryDestination, unique, type Any } from './destination-fixtures.js';
import { created, dataOf, newAudience, newCampaign, type Body, type Client, type Row } from './campaign-fixtures.js';

/** The days around today, as a campaign's dates: it may run now. */
export const runnableDates = () => ({
  start_date: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
  end_date: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
});

/** Two treatment groups of 45 % and a control group of 10 %. */
export const VARIANTS_AND_CONTROL = [
  { name: 'Variant A', type: 'treatment', allocation_percentage: 45 },
  { name: 'Variant B', type: 'treatment', allocation_percentage: 45 },
  { name: 'Control', type: 'control', allocation_percentage: 10 },
];

/** `n` customers through the batch, e-mail addresses under `domain` (one audience selects them). */
export async function newCustomers(api: Client, n: number, domain: string, extra: (i: number) => Body = () => ({})) {
  const items = Array.from({ length: n }, (_, i) => ({
    external_id: `${domain}-${i}`,
    email: `c${i}@${domain}`,
    first_name: `C${i}`,
    ...extra(i),
  }));
  const ids: number[] = [];
  for (let start = 0; start < items.length; start += 500) {
    const res = await api.post('/api/customers/batch', { items: items.slice(start, start + 500) });
    if (res.status !== 200) throw new Error(`batch: ${res.status} ${JSON.stringify(res.body)}`);
    ids.push(...(res.body.data as { id: number }[]).map((r) => r.id));
  }
  return ids;
}

/** An active campaign of today over the customers of `domain`, with its groups (allocation %, type). */
export async function runnableCampaign(
  api: Client,
  domain: string,
  groups: { name: string; type: string; allocation_percentage: number }[],
) {
  const campaign = await newCampaign(api, { status: 'active', ...runnableDates() });
  const audience = await newAudience(api, {
    rules: [{ rule_type: 'email', rule_value: `@${domain}`, field: 'email', operator: 'ends_with' }],
  });
  await created(api.post(`/api/campaigns/${campaign.id}/audiences`, { audience_id: audience.id }));
  const made: Row[] = [];
  for (const group of groups)
    made.push(await created(api.post(`/api/campaigns/${campaign.id}/treatment-groups`, group)));
  return { campaign, audience, groups: made };
}

/** A webhook destination to `url` linked to the campaign (every group but the control, unless one is named). */
export async function linkWebhook(api: Client, campaignId: number, url: string, details: Body = {}, link: Body = {}) {
  const destination = await newDeliveryDestination(api, 'webhook', { url, ...details });
  const association = await created(
    api.post(`/api/campaigns/${campaignId}/destinations`, {
      destination_id: destination.id,
      attribute_mapping: JSON.stringify({ email: 'email', name: 'first_name' }),
      ...link,
    }),
  );
  return { destination, association };
}

/** POST /api/campaigns/{id}/runs answering 202: the run. */
export async function launch(api: Client, campaignId: number, body: Body = {}): Promise<Row> {
  const res = await api.post(`/api/campaigns/${campaignId}/runs`, body);
  if (res.status !== 202) throw new Error(`launch: ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.headers.location).toBe(`/api/campaign-runs/${res.body.data.id}`);
  return res.body.data as Row;
}

export const ENDED = ['completed', 'failed', 'cancelled', 'skipped'];

/** The run once its status is one of `statuses` (by default: once it has ended). */
export function runWhen(api: Client, runId: number, statuses = ENDED, timeoutMs = 30_000): Promise<Row> {
  return eventually(async () => {
    const run = await dataOf(api.get(`/api/campaign-runs/${runId}`));
    return statuses.includes(run.status as string) ? run : undefined;
  }, timeoutMs);
}

/** The run once its job has ended it (`finished_at` set: a cancelled run ends after its batches in flight). */
export function runEnded(api: Client, runId: number, timeoutMs = 30_000): Promise<Row> {
  return eventually(async () => {
    const run = await dataOf(api.get(`/api/campaign-runs/${runId}`));
    return run.finished_at ? run : undefined;
  }, timeoutMs);
}

/** Every recipient of a run (following the cursor). */
export async function recipientsOf(api: Client, runId: number, query: Body = {}): Promise<Row[]> {
  const rows: Row[] = [];
  for (let cursor: string | null = null; ;) {
    const res = await api.get(`/api/campaign-runs/${runId}/recipients`, {
      limit: 100,
      ...(query as Record<string, string>),
      ...(cursor ? { cursor } : {}),
    });
    if (res.status !== 200) throw new Error(`recipients: ${res.status} ${JSON.stringify(res.body)}`);
    rows.push(...(res.body.data as Row[]));
    cursor = res.body.meta.next_cursor;
    if (!cursor) return rows;
  }
}

/** The records of the webhook requests received, checked against the signing secret (Standard Webhooks). */
export function recordsOf(requests: Received[], secret: string): Any[] {
  return requests.flatMap((request) => {
    const id = request.headers['webhook-id'] as string;
    const timestamp = request.headers['webhook-timestamp'] as string;
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64');
    expect((request.headers['webhook-signature'] as string).split(' ')).toContain(`v1,${expected}`);
    return (JSON.parse(request.body) as { records: Any[] }).records;
  });
}

export { unique };
