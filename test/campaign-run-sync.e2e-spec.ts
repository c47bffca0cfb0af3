import { UnsubscribeTokens } from '../src/modules/customer/unsubscribe/unsubscribe-tokens.js';
import { login } from './support/auth.js';
import {
  created,
  dataOf,
  newAudience,
  newCampaign,
  newWorkspace,
  type Row,
  type Workspace,
} from './support/campaign-fixtures.js';
import {
  eventually,
  newDeliveryDestination,
  Receiver,
  startDeliveryApp,
  type Any,
} from './support/destination-fixtures.js';
import {
  launch,
  linkWebhook,
  newCustomers,
  recipientsOf,
  recordsOf,
  runEnded,
  runnableDates,
  unique,
} from './support/run-fixtures.js';
import { SmtpCapture } from './support/smtp-capture.js';
import type { TestApp } from './support/test-app.js';

const ALL = [{ name: 'All', type: 'treatment', allocation_percentage: 100 }];

/** An active campaign over the customers whose external id starts with `prefix`. */
async function campaignOver(api: Workspace['manager'], prefix: string, extra: Row | Record<string, unknown> = {}) {
  const campaign = await newCampaign(api, { status: 'active', ...runnableDates(), ...extra });
  const audience = await newAudience(api, {
    rules: [{ rule_type: 'external_id', rule_value: prefix, field: 'external_id', operator: 'starts_with' }],
  });
  await created(api.post(`/api/campaigns/${campaign.id}/audiences`, { audience_id: audience.id }));
  for (const group of ALL) await created(api.post(`/api/campaigns/${campaign.id}/treatment-groups`, group));
  return campaign;
}

/**
 * What each association sends across runs (send, upsert, mirror), who is skipped and why (an
 * unsubscribed customer, one without an address), who a validation rule leaves out, and a
 * customer's run rows in its lifecycle (erasure).
 */
describe('campaign runs across runs and customers', () => {
  let t: TestApp;
  let receiver: Receiver;
  let smtp: SmtpCapture;
  let w: Workspace;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    smtp = await new SmtpCapture().start();
    t = await startDeliveryApp({ config: { erasures: { settleMs: 100 } } });
    w = await newWorkspace(t, await login(t));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
    await smtp.stop();
  });

  it('e-mail (send): an unsubscribed customer and one without an address are skipped with the reason; a later run sends to newcomers only', async () => {
    const api = w.manager;
    const prefix = `mail-${unique()}`;
    const ids = await newCustomers(api, 6, `${prefix}.example`, (i) => ({ external_id: `${prefix}-${i}` }));
    const nobody = await created(api.post('/api/customers', { external_id: `${prefix}-x`, first_name: 'No address' }));
    const gone = await dataOf(api.get(`/api/customers/${ids[0]}`));
    const token = t.app.get(UnsubscribeTokens).token(w.tenantId, ids[0], gone.email as string);
    expect((await t.http.post(`/api/unsubscribe/${token}`).send('List-Unsubscribe=One-Click')).status).toBe(200);
    const campaign = await campaignOver(api, prefix);
    const destination = await newDeliveryDestination(api, 'email', {
      from: 'news@example.com',
      subject: 'Hello {{ first_name }}',
      text: 'Hi {{ first_name }}',
      smtp_url: smtp.url,
    });
    const link = await created(
      api.post(`/api/campaigns/${campaign.id}/destinations`, {
        destination_id: destination.id,
        attribute_mapping: JSON.stringify({ email: 'email', first_name: 'first_name' }),
      }),
    );
    const first = await runEnded(api, (await launch(api, campaign.id)).id as number);
    expect(first.status).toBe('completed');
    expect((first.counts as Any).destinations[0]).toMatchObject({ add: 7, delivered: 5, skipped: 2 });
    const skipped = await recipientsOf(api, first.id, { status: 'skipped' });
    expect(skipped.map((r) => [r.customer_id, r.reason]).sort()).toEqual(
      [
        [ids[0], 'unsubscribed'],
        [nobody.id, 'no_address'],
      ].sort(),
    );
    await eventually(async () => (smtp.messages.length >= 5 ? true : undefined));
    expect(smtp.messages.map((m) => m.envelopeTo[0]).sort()).toEqual(
      ids
        .slice(1)
        .map((_, i) => `c${i + 1}@${prefix}.example`)
        .sort(),
    );

    // A newcomer, and a change to a customer who was sent the campaign already: send mode sends once, ever.
    const newcomer = await created(
      api.post('/api/customers', { external_id: `${prefix}-new`, email: `new@${prefix}.example` }),
    );
    const renamed = await dataOf(api.get(`/api/customers/${ids[1]}`));
    await dataOf(api.put(`/api/customers/${ids[1]}`, { ...renamed, first_name: 'Changed' }));
    const second = await runEnded(api, (await launch(api, campaign.id)).id as number);
    expect((second.counts as Any).destinations[0]).toMatchObject({ add: 3, update: 0, delivered: 1, unchanged: 5 });
    const delivered = await recipientsOf(api, second.id, { status: 'delivered', campaign_destination_id: link.id });
    expect(delivered.map((r) => r.customer_id)).toEqual([newcomer.id]);
  });

  it('webhook (mirror): a customer who left the audience gets a remove record; one whose data changed an update', async () => {
    const api = w.manager;
    const prefix = `mirror-${unique()}`;
    const ids = await newCustomers(api, 5, `${prefix}.example`, (i) => ({ external_id: `${prefix}-${i}` }));
    const campaign = await campaignOver(api, prefix);
    const path = `/mirror-${unique()}`;
    const { destination } = await linkWebhook(api, campaign.id, receiver.url(path), { sync: 'mirror' });
    await runEnded(api, (await launch(api, campaign.id)).id as number);
    const leaver = await dataOf(api.get(`/api/customers/${ids[0]}`));
    await dataOf(api.put(`/api/customers/${ids[0]}`, { ...leaver, external_id: `left-${unique()}` }));
    const changed = await dataOf(api.get(`/api/customers/${ids[1]}`));
    await dataOf(api.put(`/api/customers/${ids[1]}`, { ...changed, email: `changed@${prefix}.example` }));
    const before = receiver.on(path).length;
    const second = await runEnded(api, (await launch(api, campaign.id)).id as number);
    expect((second.counts as Any).destinations[0]).toMatchObject({
      add: 0,
      update: 1,
      remove: 1,
      unchanged: 3,
      delivered: 2,
    });
    const records = recordsOf(receiver.on(path).slice(before), destination.signing_secret as string);
    expect(records.map((r) => [r.customer_id, r.action]).sort()).toEqual(
      [
        [ids[0], 'remove'],
        [ids[1], 'update'],
      ].sort(),
    );
    // Removed once: a third run sends nothing.
    const third = await runEnded(api, (await launch(api, campaign.id)).id as number);
    expect((third.counts as Any).destinations[0]).toMatchObject({ add: 0, update: 0, remove: 0, delivered: 0 });
  });

  it('leaves out, as invalid, the members an attached active validation rule (or its override) refuses', async () => {
    const api = w.manager;
    const prefix = `rule-${unique()}`;
    await newCustomers(api, 6, `${prefix}.example`, (i) => ({
      external_id: `${prefix}-${i}`,
      attributes: JSON.stringify({ age: 15 + i * 2 }),
    }));
    const campaign = await campaignOver(api, prefix);
    await linkWebhook(api, campaign.id, receiver.url(`/rule-${unique()}`));
    const rule = await created(
      api.post('/api/validation-rules', {
        name: `Adults ${unique()}`,
        description: 'The contract example',
        rule_definition: '{"field":"age","operator":">=","value":18}',
        is_active: true,
      }),
    );
    await created(api.post(`/api/campaigns/${campaign.id}/validation-rules`, { validation_rule_id: rule.id }));
    // Ages 15, 17, 19, 21, 23, 25: two under 18.
    const adults = await runEnded(api, (await launch(api, campaign.id, { dry_run: true })).id as number);
    expect((adults.counts as Any).excluded).toMatchObject({ invalid: 2 });
    expect((await api.delete(`/api/campaigns/${campaign.id}/validation-rules/${rule.id}`)).status).toBe(200);
    await created(
      api.post(`/api/campaigns/${campaign.id}/validation-rules`, {
        validation_rule_id: rule.id,
        rule_override: '{"field":"age","operator":">","value":21}',
      }),
    );
    const stricter = await runEnded(api, (await launch(api, campaign.id, { dry_run: true })).id as number);
    expect((stricter.counts as Any).excluded).toMatchObject({ invalid: 4 });
  });

  it("an erasure deletes the customer's run rows and counts them", async () => {
    const api = w.manager;
    const prefix = `erase-${unique()}`;
    const ids = await newCustomers(api, 3, `${prefix}.example`, (i) => ({ external_id: `${prefix}-${i}` }));
    const campaign = await campaignOver(api, prefix);
    await linkWebhook(api, campaign.id, receiver.url(`/erase-${unique()}`));
    const run = await runEnded(api, (await launch(api, campaign.id)).id as number);
    expect((await recipientsOf(api, run.id)).map((r) => r.customer_id)).toContain(ids[0]);
    const job = await dataOf(api.post(`/api/customers/${ids[0]}/erase`), 202);
    const done = await eventually(async () => {
      const read = await dataOf(api.get(`/api/customers/erasures/${job.id}`));
      return read.status === 'completed' ? read : undefined;
    });
    // Membership, recipient row and last record delivered.
    expect(done.campaign_rows_deleted).toBe(3);
    expect((await recipientsOf(api, run.id)).map((r) => r.customer_id).sort()).toEqual(ids.slice(1).sort());
    // The run's counts keep the number; a next run has one member fewer.
    expect((run.counts as Any).audience).toBe(3);
    const next = await runEnded(api, (await launch(api, campaign.id, { dry_run: true })).id as number);
    expect((next.counts as Any).audience).toBe(2);
  });
});
