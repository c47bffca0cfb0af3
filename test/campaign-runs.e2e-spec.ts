import { systemAuth } from '../src/common/auth/auth-context.js';
import { Tables } from '../src/common/persistence/tables.js';
import { SuppressionList } from '../src/modules/customer/suppression/suppression-list.js';
import { login } from './support/auth.js';
import { newUser, type TestUser } from './support/factories.js';
import {
  client,
  created,
  dataOf,
  newCampaign,
  newWorkspace,
  type Row,
  type Workspace,
} from './support/campaign-fixtures.js';
import { Receiver, startDeliveryApp, status, type Any } from './support/destination-fixtures.js';
import {
  launch,
  linkWebhook,
  newCustomers,
  recipientsOf,
  recordsOf,
  runnableCampaign,
  runEnded,
  runWhen,
  unique,
} from './support/run-fixtures.js';
import type { TestApp } from './support/test-app.js';

const GROUPS = [
  { name: 'Variant A', type: 'treatment', allocation_percentage: 45 },
  { name: 'Variant B', type: 'Treatment', allocation_percentage: 45 },
  { name: 'Control', type: 'Control', allocation_percentage: 10 },
];

/**
 * Campaign runs end to end (docs/campaign-runs.md): launch and its refusals, the members and
 * their counts, delivery to a local webhook receiver exactly once per record, diffs against the
 * last record delivered, dry runs, the recipients, pause, resume, cancel and retry, the change
 * feed, tenants and permissions.
 */
describe('campaign runs', () => {
  let t: TestApp;
  let receiver: Receiver;
  let w: Workspace;
  let other: Workspace;
  let admin: TestUser;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startDeliveryApp();
    const root = await login(t);
    w = await newWorkspace(t, root);
    other = await newWorkspace(t, root);
    admin = await newUser(t, root, ['admin'], w.tenantId);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  describe('launchCampaignRun: POST /api/campaigns/{id}/runs', () => {
    it('refuses with one 422 naming every reason: status, dates, validation rules, destinations', async () => {
      const api = w.manager;
      const campaign = await newCampaign(api, { status: 'draft', start_date: '2020-01-01', end_date: '2020-02-01' });
      const rule = await created(
        api.post('/api/validation-rules', {
          name: `Rule ${unique()}`,
          description: 'unreadable',
          rule_definition: '{"min_orders":2}',
          is_active: true,
        }),
      );
      await created(api.post(`/api/campaigns/${campaign.id}/validation-rules`, { validation_rule_id: rule.id }));
      const res = await api.post(`/api/campaigns/${campaign.id}/runs`, {});
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(['dates', 'destinations', 'status', 'validation_rules']);
      expect(res.body.errors.destinations).toEqual(['The campaign has no active destination.']);
      expect(await dataOf(api.get(`/api/campaigns/${campaign.id}/runs`))).toEqual([]);
    });

    it('refuses an association that cannot deliver, naming it', async () => {
      const api = w.manager;
      const { campaign } = await runnableCampaign(api, `${unique()}.example`, GROUPS);
      const { association } = await linkWebhook(api, campaign.id, 'http://10.1.2.3/hook');
      const res = await api.post(`/api/campaigns/${campaign.id}/runs`, { dry_run: true });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['destinations']);
      expect(res.body.errors.destinations[0]).toContain(
        `Campaign destination ${association.id}: destination.connection_details.url`,
      );
    });

    it('answers 409 with the run going on, and 404 for another tenant, 403 for a viewer', async () => {
      const api = w.manager;
      const domain = `${unique()}.example`;
      await newCustomers(api, 3, domain);
      const { campaign } = await runnableCampaign(api, domain, GROUPS);
      const path = `/held-${unique()}`;
      receiver.hold(path);
      await linkWebhook(api, campaign.id, receiver.url(path));
      const run = await launch(api, campaign.id);
      const again = await api.post(`/api/campaigns/${campaign.id}/runs`, {});
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ message: expect.stringContaining('A run of this campaign is'), run_id: run.id });
      expect((await other.manager.post(`/api/campaigns/${campaign.id}/runs`, {})).status).toBe(404);
      expect((await w.viewer.post(`/api/campaigns/${campaign.id}/runs`, {})).status).toBe(403);
      // Deleting the campaign is refused while its run goes on.
      expect((await api.delete(`/api/campaigns/${campaign.id}`)).status).toBe(409);
      receiver.release(path);
      expect((await runWhen(api, run.id as number)).status).toBe('completed');
    });
  });

  describe('getCampaignRun, listCampaignRuns, listCampaignRunRecipients: a run, its members, counts, delivery, diffs', () => {
    const N = 60;
    const domain = `${unique()}.example`;
    let ids: number[];
    let campaign: Row;
    let groups: Row[];
    let destination: Row;
    let association: Row;
    const path = `/run-${unique()}`;

    beforeAll(async () => {
      const api = w.manager;
      ids = await newCustomers(api, N, domain, (i) => ({ is_active: i !== 0 }));
      ({ campaign, groups } = await runnableCampaign(api, domain, GROUPS));
      ({ destination, association } = await linkWebhook(api, campaign.id, receiver.url(path), { batch_size: 7 }));
      // A customer written before its address was suppressed (an erasure racing a write) is excluded.
      const tables = t.app.get(Tables);
      await tables.writeWithBookkeeping(systemAuth(w.tenantId, `test-${unique()}`), (tx, sql) =>
        t.app.get(SuppressionList).add(tx, sql, { email: `c1@${domain}`, external_id: null }, null),
      );
    });

    it('a dry run counts everything and delivers nothing', async () => {
      const api = w.manager;
      const run = await launch(api, campaign.id, { dry_run: true });
      expect(run).toMatchObject({ status: 'queued', trigger: 'manual', dry_run: true, campaign_id: campaign.id });
      const done = await runWhen(api, run.id as number);
      expect(done.status).toBe('completed');
      const counts = done.counts as Any;
      expect(counts.audience).toBe(N);
      const control = counts.groups.find((g: Any) => g.type === 'Control');
      expect(counts.eligible).toBe(N);
      expect(counts.excluded).toEqual({
        inactive: expect.any(Number),
        suppressed: expect.any(Number),
        invalid: 0,
        capped: 0,
      });
      expect(counts.excluded.inactive + counts.excluded.suppressed).toBe(2);
      expect(counts.control).toBe(control.members);
      const sent = counts.groups
        .filter((g: Any) => g.type !== 'Control')
        .reduce((n: number, g: Any) => n + g.members, 0);
      expect(sent + counts.control + 2).toBe(N);
      expect(counts.destinations).toEqual([
        expect.objectContaining({
          campaign_destination_id: association.id,
          destination_id: destination.id,
          add: sent,
          skipped: sent,
          delivered: 0,
          pending: 0,
        }),
      ]);
      const recipients = await recipientsOf(api, run.id as number);
      expect(recipients).toHaveLength(sent);
      expect(recipients.every((r) => r.status === 'skipped' && r.reason === 'dry_run')).toBe(true);
      expect(receiver.on(path)).toEqual([]);
    });

    it('delivers each member of the treatment groups once, in batches, and records every recipient delivered', async () => {
      const api = w.manager;
      const run = await launch(api, campaign.id);
      const done = await runWhen(api, run.id as number);
      expect(done).toMatchObject({
        status: 'completed',
        error: null,
        started_at: expect.any(String),
        finished_at: expect.any(String),
      });
      const counts = done.counts as Any;
      const sent = counts.groups
        .filter((g: Any) => g.type !== 'Control')
        .reduce((n: number, g: Any) => n + g.members, 0);
      expect(counts.destinations[0]).toMatchObject({ add: sent, delivered: sent, pending: 0, failed: 0, skipped: 0 });
      const records = recordsOf(receiver.on(path), destination.signing_secret as string);
      expect(records).toHaveLength(sent);
      expect(receiver.on(path).length).toBe(Math.ceil(sent / 7));
      const treated = new Set(groups.filter((g) => g.type !== 'Control').map((g) => g.id));
      expect(records.every((r) => treated.has(r.treatment_group_id) && r.action === 'add')).toBe(true);
      expect(new Set(records.map((r) => r.customer_id)).size).toBe(sent);
      expect(records.map((r) => r.customer_id)).not.toContain(ids[0]);
      expect(records.map((r) => r.customer_id)).not.toContain(ids[1]);
      const recipients = await recipientsOf(api, run.id as number);
      expect(recipients).toHaveLength(sent);
      expect(recipients[0]).toEqual({
        customer_id: expect.any(Number),
        treatment_group_id: expect.any(Number),
        campaign_destination_id: association.id,
        action: 'add',
        status: 'delivered',
        reason: null,
        attempts: 1,
        last_error: null,
        message_id: expect.stringMatching(/^msg_/),
        delivered_at: expect.any(String),
      });
      expect(new Set(recipients.map((r) => r.message_id))).toEqual(new Set(records.map((r) => r.message_id)));
      // Filters.
      const group = groups[0].id;
      const inGroup = await recipientsOf(api, run.id as number, { treatment_group_id: group });
      expect(inGroup.length).toBe(counts.groups.find((g: Any) => g.treatment_group_id === group).members);
      expect(await recipientsOf(api, run.id as number, { status: 'failed' })).toEqual([]);
    });

    it('a second run (upsert) sends only what changed, with the same message id for unchanged data', async () => {
      const api = w.manager;
      const before = receiver.on(path).length;
      const first = recordsOf(receiver.on(path), destination.signing_secret as string);
      const changed = first[0];
      const customer = await dataOf(api.get(`/api/customers/${changed.customer_id}`));
      await dataOf(api.put(`/api/customers/${changed.customer_id}`, { ...customer, first_name: 'Renamed' }));
      const run = await launch(api, campaign.id);
      const done = await runWhen(api, run.id as number);
      const counts = done.counts as Any;
      expect(counts.destinations[0]).toMatchObject({ add: 0, update: 1, delivered: 1, unchanged: first.length - 1 });
      const records = recordsOf(receiver.on(path).slice(before), destination.signing_secret as string);
      expect(records).toEqual([expect.objectContaining({ customer_id: changed.customer_id, action: 'update' })]);
      expect(records[0].message_id).not.toBe(changed.message_id);
    });

    it('lists the runs newest first; the run is in the change feed as created and updated', async () => {
      const api = w.manager;
      const runs = await dataOf(api.get(`/api/campaigns/${campaign.id}/runs`));
      expect(runs.map((r: Row) => r.dry_run)).toEqual([false, false, true]);
      const run = runs[0];
      const events = await dataOf(
        client(t, admin.token).get('/api/events', { resource: 'campaign_run', resource_id: run.id, limit: 100 }),
      );
      const types = (events as Row[]).map((e) => e.type);
      expect(types[0]).toBe('campaign_run.created');
      expect(types.slice(1).every((type) => type === 'campaign_run.updated')).toBe(true);
      expect((events as Row[]).at(-1)!.data).toMatchObject({ id: run.id, status: 'completed' });
      // Another tenant sees none of it.
      expect((await other.manager.get(`/api/campaign-runs/${run.id}`)).status).toBe(404);
      expect((await other.manager.get(`/api/campaign-runs/${run.id}/recipients`)).status).toBe(404);
      expect((await other.manager.get(`/api/campaigns/${campaign.id}/runs`)).status).toBe(404);
      expect((await other.manager.post(`/api/campaign-runs/${run.id}/retry`, {})).status).toBe(404);
      // A viewer reads, and may not steer.
      expect((await w.viewer.get(`/api/campaign-runs/${run.id}`)).status).toBe(200);
      expect((await w.viewer.post(`/api/campaign-runs/${run.id}/retry`, {})).status).toBe(403);
    });
  });

  describe('pauseCampaignRun, resumeCampaignRun, cancelCampaignRun, retryCampaignRun: POST /api/campaign-runs/{id}/...', () => {
    it('pause stops after the batches in flight; resume goes on; every member is delivered once', async () => {
      const api = w.manager;
      const domain = `${unique()}.example`;
      await newCustomers(api, 40, domain);
      const { campaign } = await runnableCampaign(api, domain, [
        { name: 'All', type: 'treatment', allocation_percentage: 100 },
      ]);
      const path = `/pause-${unique()}`;
      receiver.hold(path);
      const { destination } = await linkWebhook(api, campaign.id, receiver.url(path), {
        batch_size: 5,
        concurrency: 1,
      });
      const run = await launch(api, campaign.id);
      await receiver.until(path, 1);
      const paused = await dataOf(api.post(`/api/campaign-runs/${run.id}/pause`, {}));
      expect(paused.status).toBe('paused');
      receiver.release(path);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      // Only the batch in flight went out.
      expect(receiver.on(path)).toHaveLength(1);
      expect((await dataOf(api.get(`/api/campaign-runs/${run.id}`))).status).toBe('paused');
      expect((await api.post(`/api/campaign-runs/${run.id}/resume`, {})).status).toBe(200);
      const done = await runWhen(api, run.id as number);
      expect(done.status).toBe('completed');
      const records = recordsOf(receiver.on(path), destination.signing_secret as string);
      expect(records).toHaveLength(40);
      expect(new Set(records.map((r) => r.customer_id)).size).toBe(40);
      expect((await api.post(`/api/campaign-runs/${run.id}/pause`, {})).status).toBe(409);
    });

    it('cancel lets the batch in flight finish and be recorded, and skips the rest (reason cancelled)', async () => {
      const api = w.manager;
      const domain = `${unique()}.example`;
      await newCustomers(api, 30, domain);
      const { campaign } = await runnableCampaign(api, domain, [
        { name: 'All', type: 'treatment', allocation_percentage: 100 },
      ]);
      const path = `/cancel-${unique()}`;
      receiver.hold(path);
      await linkWebhook(api, campaign.id, receiver.url(path), { batch_size: 10, concurrency: 1 });
      const run = await launch(api, campaign.id);
      await receiver.until(path, 1);
      expect((await dataOf(api.post(`/api/campaign-runs/${run.id}/cancel`, {}))).status).toBe('cancelled');
      receiver.release(path);
      const ended = await runEnded(api, run.id as number);
      expect(ended.status).toBe('cancelled');
      expect((ended.counts as Any).destinations[0]).toMatchObject({ delivered: 10, skipped: 20, pending: 0 });
      const skipped = await recipientsOf(api, run.id as number, { status: 'skipped' });
      expect(skipped.every((r) => r.reason === 'cancelled')).toBe(true);
      expect(receiver.on(path)).toHaveLength(1);
      // The campaign runs again.
      const next = await launch(api, campaign.id, { dry_run: true });
      expect((await runWhen(api, next.id as number)).status).toBe('completed');
    });

    it('records failed for good after the retries, and POST .../retry delivers them', async () => {
      const api = w.manager;
      const domain = `${unique()}.example`;
      await newCustomers(api, 6, domain);
      const { campaign } = await runnableCampaign(api, domain, [
        { name: 'All', type: 'treatment', allocation_percentage: 100 },
      ]);
      const path = `/fail-${unique()}`;
      receiver.answer(path, ...Array.from({ length: 4 }, () => status(503, 'busy')));
      const { destination } = await linkWebhook(api, campaign.id, receiver.url(path), { batch_size: 10 });
      const run = await launch(api, campaign.id);
      const done = await runWhen(api, run.id as number);
      expect(done.status).toBe('completed');
      expect((done.counts as Any).destinations[0]).toMatchObject({ failed: 6, delivered: 0 });
      const failed = await recipientsOf(api, run.id as number, { status: 'failed' });
      expect(failed[0]).toMatchObject({ attempts: 4, last_error: expect.stringContaining('503') });
      const retried = await dataOf(api.post(`/api/campaign-runs/${run.id}/retry`, {}));
      expect(retried.status).toBe('running');
      const again = await runWhen(api, run.id as number);
      expect((again.counts as Any).destinations[0]).toMatchObject({ failed: 0, delivered: 6 });
      const records = recordsOf(receiver.on(path), destination.signing_secret as string);
      // Every attempt carried the same message ids.
      expect(new Set(records.map((r) => r.message_id)).size).toBe(6);
      // A dry run has nothing to retry.
      const dry = await launch(api, campaign.id, { dry_run: true });
      await runWhen(api, dry.id as number);
      expect((await api.post(`/api/campaign-runs/${dry.id}/retry`, {})).status).toBe(409);
    });
  });
});
