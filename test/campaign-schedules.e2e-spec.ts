import { login } from './support/auth.js';
import { created, dataOf, newCampaign, newWorkspace, type Row, type Workspace } from './support/campaign-fixtures.js';
import {
  eventually,
  newDeliveryDestination,
  Receiver,
  sleep,
  startDeliveryApp,
  status,
  type Any,
} from './support/destination-fixtures.js';
import {
  launch,
  linkWebhook,
  newCustomers,
  recordsOf,
  runEnded,
  runnableCampaign,
  runWhen,
  unique,
} from './support/run-fixtures.js';
import type { TestApp } from './support/test-app.js';

const ALL = [{ name: 'All', type: 'treatment', allocation_percentage: 100 }];

/**
 * Schedules (once, or by cron in a time zone: one run per tick across instances, a skipped run
 * while the previous one goes on), the tenant's frequency caps (exact under two campaigns at
 * once), and the files of `file` destinations.
 */
describe('campaign schedules, frequency caps and files', () => {
  let t: TestApp;
  let second: TestApp;
  let receiver: Receiver;
  let w: Workspace;
  let other: Workspace;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startDeliveryApp();
    // Files are read where any instance wrote them: every instance has the same STORAGE_DIR.
    second = await startDeliveryApp({ sharedWith: t, env: { STORAGE_DIR: t.config.storageDir } });
    const root = await login(t);
    w = await newWorkspace(t, root);
    other = await newWorkspace(t, root);
  });
  afterAll(async () => {
    await second.close();
    await t.close();
    await receiver.close();
  });

  describe('putCampaignSchedule, getCampaignSchedule, deleteCampaignSchedule: /api/campaigns/{id}/schedule', () => {
    it('refuses what is no schedule with a 422 naming the field, and changes nothing', async () => {
      const api = w.manager;
      const campaign = await newCampaign(api);
      const cases: [Row | Record<string, unknown>, string][] = [
        [{}, 'at'],
        [{ at: '2031-01-01T00:00:00Z', cron: '0 9 * * *' }, 'at'],
        [{ at: '2020-01-01T00:00:00Z' }, 'at'],
        [{ at: 'tomorrow' }, 'at'],
        [{ at: '2031-01-01T00:00:00Z', timezone: 'UTC' }, 'timezone'],
        [{ cron: 'every day' }, 'cron'],
        [{ cron: '61 * * * *' }, 'cron'],
        [{ cron: '0 9 * * *', timezone: 'Mars/Olympus' }, 'timezone'],
        [{ cron: '0 0 30 2 *' }, 'cron'],
        [{ cron: 42 }, 'cron'],
      ];
      for (const [body, field] of cases) {
        const res = await api.put(`/api/campaigns/${campaign.id}/schedule`, body);
        expect({ body, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
          body,
          status: 422,
          keys: [field],
        });
      }
      expect((await api.get(`/api/campaigns/${campaign.id}/schedule`)).status).toBe(404);
    });

    it('answers the schedule with its next tick in its time zone; DELETE removes it', async () => {
      const api = w.manager;
      const campaign = await newCampaign(api);
      const put = await dataOf(
        api.put(`/api/campaigns/${campaign.id}/schedule`, { cron: '0 9 * * 1-5', timezone: 'Europe/Amsterdam' }),
      );
      expect(put).toEqual({
        campaign_id: campaign.id,
        at: null,
        cron: '0 9 * * 1-5',
        timezone: 'Europe/Amsterdam',
        next_run_at: expect.stringMatching(/T0[78]:00:00\.000Z$/),
      });
      const next = new Date(put.next_run_at as string);
      expect(next.getTime()).toBeGreaterThan(Date.now());
      expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());
      expect(await dataOf(api.get(`/api/campaigns/${campaign.id}/schedule`))).toEqual(put);
      // Another tenant: 404 on every verb; a viewer reads and may not change it.
      expect((await other.manager.get(`/api/campaigns/${campaign.id}/schedule`)).status).toBe(404);
      expect((await other.manager.put(`/api/campaigns/${campaign.id}/schedule`, { cron: '0 9 * * *' })).status).toBe(
        404,
      );
      expect((await other.manager.delete(`/api/campaigns/${campaign.id}/schedule`)).status).toBe(404);
      expect((await w.viewer.get(`/api/campaigns/${campaign.id}/schedule`)).status).toBe(200);
      expect((await w.viewer.delete(`/api/campaigns/${campaign.id}/schedule`)).status).toBe(403);

      const once = await dataOf(api.put(`/api/campaigns/${campaign.id}/schedule`, { at: '2031-01-01T10:00:00+01:00' }));
      expect(once).toEqual({
        campaign_id: campaign.id,
        at: '2031-01-01T09:00:00.000Z',
        cron: null,
        timezone: null,
        next_run_at: '2031-01-01T09:00:00.000Z',
      });
      expect((await api.delete(`/api/campaigns/${campaign.id}/schedule`)).status).toBe(200);
      expect((await api.get(`/api/campaigns/${campaign.id}/schedule`)).status).toBe(404);
      expect((await api.delete(`/api/campaigns/${campaign.id}/schedule`)).status).toBe(404);
    });

    it('starts one run at a one-off instant, then has no next tick', async () => {
      const api = w.manager;
      const domain = `${unique()}.example`;
      await newCustomers(api, 5, domain);
      const { campaign } = await runnableCampaign(api, domain, ALL);
      const path = `/once-${unique()}`;
      await linkWebhook(api, campaign.id, receiver.url(path));
      const at = new Date(Date.now() + 1_500).toISOString();
      await dataOf(api.put(`/api/campaigns/${campaign.id}/schedule`, { at }));
      const runs = await eventually(async () => {
        const rows = (await dataOf(api.get(`/api/campaigns/${campaign.id}/runs`))) as Row[];
        return rows.length ? rows : undefined;
      });
      expect(runs).toEqual([expect.objectContaining({ trigger: 'schedule', dry_run: false })]);
      expect((await runEnded(api, runs[0].id)).status).toBe('completed');
      await sleep(1_000);
      expect(await dataOf(api.get(`/api/campaigns/${campaign.id}/runs`))).toHaveLength(1);
      expect((await dataOf(api.get(`/api/campaigns/${campaign.id}/schedule`))).next_run_at).toBeNull();
      expect(receiver.on(path)).toHaveLength(1);
    });

    it('starts exactly one run per tick across two instances, and records a skipped run while one is going on', async () => {
      const api = w.manager;
      const domain = `${unique()}.example`;
      await newCustomers(api, 4, domain);
      const { campaign } = await runnableCampaign(api, domain, ALL);
      const path = `/ticks-${unique()}`;
      receiver.hold(path);
      await linkWebhook(api, campaign.id, receiver.url(path));
      // Every second (six fields: seconds first).
      await dataOf(api.put(`/api/campaigns/${campaign.id}/schedule`, { cron: '* * * * * *' }));
      await sleep(4_500);
      await api.delete(`/api/campaigns/${campaign.id}/schedule`);
      receiver.release(path);
      const runs = (await dataOf(api.get(`/api/campaigns/${campaign.id}/runs`, { limit: 100 }))) as Row[];
      const ticks = runs.map((run) => run.scheduled_for);
      expect(new Set(ticks).size).toBe(runs.length);
      const started = runs.filter((run) => run.status !== 'skipped');
      // The first tick's run holds its delivery on the receiver: every later tick is skipped.
      expect(started).toHaveLength(1);
      expect(runs.length).toBeGreaterThanOrEqual(3);
      expect(runs.filter((run) => run.status === 'skipped').every((run) => run.trigger === 'schedule')).toBe(true);
      expect((await runEnded(api, started[0].id)).status).toBe('completed');
    });

    it('starts no run while the campaign is not active', async () => {
      const api = w.manager;
      const { campaign } = await runnableCampaign(api, `${unique()}.example`, ALL);
      await linkWebhook(api, campaign.id, receiver.url(`/paused-${unique()}`));
      await dataOf(api.put(`/api/campaigns/${campaign.id}`, { ...campaign, status: 'inactive' }));
      await dataOf(
        api.put(`/api/campaigns/${campaign.id}/schedule`, { at: new Date(Date.now() + 1_000).toISOString() }),
      );
      await sleep(2_500);
      expect(await dataOf(api.get(`/api/campaigns/${campaign.id}/runs`))).toEqual([]);
    });
  });

  describe('getMessagingLimits, putMessagingLimits: /api/messaging-limits', () => {
    it('answers no rules at first; keeps up to 10, one per channel; refuses others with 422', async () => {
      const api = other.manager;
      expect(await dataOf(api.get('/api/messaging-limits'))).toEqual({ rules: [] });
      const rules = [{ channel: 'email', max: 3, per_days: 7 }];
      expect(await dataOf(api.put('/api/messaging-limits', { rules }))).toEqual({ rules });
      expect(await dataOf(api.get('/api/messaging-limits'))).toEqual({ rules });
      for (const [body, key] of [
        [{ rules: [{ channel: 'sms', max: 1, per_days: 1 }] }, 'rules.0.channel'],
        [{ rules: [{ channel: 'email', max: 0, per_days: 1 }] }, 'rules.0.max'],
        [{ rules: [{ channel: 'email', max: 1, per_days: 400 }] }, 'rules.0.per_days'],
        [
          {
            rules: [
              { channel: 'email', max: 1, per_days: 1 },
              { channel: 'email', max: 2, per_days: 2 },
            ],
          },
          'rules.1.channel',
        ],
        [{ rules: Array.from({ length: 11 }, () => ({ channel: 'any', max: 1, per_days: 1 })) }, 'rules'],
        [{}, 'rules'],
      ] as const) {
        const res = await api.put('/api/messaging-limits', body);
        expect({ status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({ status: 422, keys: [key] });
      }
      expect(await dataOf(api.get('/api/messaging-limits'))).toEqual({ rules });
      expect((await other.viewer.put('/api/messaging-limits', { rules: [] })).status).toBe(403);
      // Each tenant its own.
      expect(await dataOf(w.manager.get('/api/messaging-limits'))).toEqual({ rules: [] });
    });

    it('excludes a customer over the cap as capped, exactly, when two campaigns run at once', async () => {
      const api = w.manager;
      const domain = `${unique()}.example`;
      const N = 20;
      await newCustomers(api, N, domain);
      const one = await runnableCampaign(api, domain, ALL);
      const two = await runnableCampaign(api, domain, ALL);
      const path = `/capped-${unique()}`;
      const hooks = [
        await linkWebhook(api, one.campaign.id, receiver.url(path)),
        await linkWebhook(api, two.campaign.id, receiver.url(path)),
      ];
      await dataOf(api.put('/api/messaging-limits', { rules: [{ channel: 'webhook', max: 1, per_days: 7 }] }));
      try {
        const [a, b] = await Promise.all([launch(api, one.campaign.id), launch(api, two.campaign.id)]);
        const [doneA, doneB] = [await runEnded(api, a.id as number), await runEnded(api, b.id as number)];
        const capped = (doneA.counts as Any).excluded.capped + (doneB.counts as Any).excluded.capped;
        const delivered =
          (doneA.counts as Any).destinations[0].delivered + (doneB.counts as Any).destinations[0].delivered;
        expect(capped).toBe(N);
        expect(delivered).toBe(N);
        const records = hooks.flatMap(({ destination }) =>
          recordsOf(
            receiver.on(path).filter((r) => JSON.parse(r.body).destination_id === destination.id),
            destination.signing_secret as string,
          ),
        );
        // Each customer received one delivery in all.
        expect(records).toHaveLength(N);
        expect(new Set(records.map((r) => r.customer_id)).size).toBe(N);
        // A rule on another channel caps nothing here.
        await dataOf(api.put('/api/messaging-limits', { rules: [{ channel: 'email', max: 1, per_days: 7 }] }));
        const again = await runEnded(api, (await launch(api, one.campaign.id, { dry_run: true })).id as number);
        expect((again.counts as Any).excluded.capped).toBe(0);
      } finally {
        await dataOf(api.put('/api/messaging-limits', { rules: [] }));
      }
    });
  });

  describe('listCampaignRunFiles, downloadCampaignRunFile: GET /api/campaign-runs/{id}/files[/{name}]', () => {
    it("lists the file a run's file destination wrote, with every record, and serves it", async () => {
      const api = w.manager;
      const domain = `${unique()}.example`;
      await newCustomers(api, 12, domain);
      const { campaign } = await runnableCampaign(api, domain, ALL);
      const destination = await newDeliveryDestination(api, 'file', { format: 'csv' });
      const link = await created(
        api.post(`/api/campaigns/${campaign.id}/destinations`, {
          destination_id: destination.id,
          attribute_mapping: JSON.stringify({ email: 'email', name: 'first_name' }),
        }),
      );
      const run = await launch(api, campaign.id);
      const done = await runWhen(api, run.id as number);
      expect((done.counts as Any).destinations[0]).toMatchObject({ add: 12, delivered: 12 });
      const files = await dataOf(api.get(`/api/campaign-runs/${run.id}/files`));
      expect(files).toEqual([
        {
          name: `campaign-destination-${link.id}.csv`,
          campaign_destination_id: link.id,
          format: 'csv',
          records: 12,
          bytes: expect.any(Number),
          created_at: expect.any(String),
        },
      ]);
      const res = await api.get(`/api/campaign-runs/${run.id}/files/${files[0].name}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${files[0].name}"`);
      const lines = (res.text as string).trim().split('\n');
      expect(lines[0]).toBe('message_id,action,customer_id,external_id,treatment_group_id,email,name');
      expect(lines).toHaveLength(13);
      expect(Buffer.byteLength(res.text as string)).toBe(files[0].bytes);
      for (const name of ['nope.csv', '..%2F..%2Fsecret.csv', 'campaign-destination-1.txt']) {
        expect((await api.get(`/api/campaign-runs/${run.id}/files/${name}`)).status).toBe(404);
      }
      expect((await other.manager.get(`/api/campaign-runs/${run.id}/files`)).status).toBe(404);
      expect((await other.manager.get(`/api/campaign-runs/${run.id}/files/${files[0].name}`)).status).toBe(404);
    });

    it("keeps a file written before when the run's deliver phase runs again (a retry of a webhook's failed records)", async () => {
      const api = w.manager;
      const domain = `${unique()}.example`;
      await newCustomers(api, 8, domain);
      const { campaign } = await runnableCampaign(api, domain, ALL);
      const file = await newDeliveryDestination(api, 'file', { format: 'ndjson' });
      const link = await created(
        api.post(`/api/campaigns/${campaign.id}/destinations`, {
          destination_id: file.id,
          attribute_mapping: JSON.stringify({ email: 'email' }),
        }),
      );
      // The webhook fails for good (four 503s: its schedule spent), then answers 200.
      const path = `/fails-${unique()}`;
      receiver.answer(path, ...Array.from({ length: 4 }, () => status(503, 'busy')));
      const { association: hook } = await linkWebhook(api, campaign.id, receiver.url(path));
      const run = await launch(api, campaign.id);
      const done = await runWhen(api, run.id as number);
      const byLink = (counts: Any, id: unknown) =>
        (counts.destinations as Any[]).find((d) => d.campaign_destination_id === id);
      expect(byLink(done.counts, link.id)).toMatchObject({ add: 8, delivered: 8 });
      expect(byLink(done.counts, hook.id)).toMatchObject({ failed: 8, delivered: 0 });
      const name = `campaign-destination-${link.id}.ndjson`;
      const before = (await api.get(`/api/campaign-runs/${run.id}/files/${name}`)).text as string;
      expect(before.trim().split('\n')).toHaveLength(8);

      await dataOf(api.post(`/api/campaign-runs/${run.id}/retry`, {}));
      const again = await runWhen(api, run.id as number);
      expect(byLink(again.counts, hook.id)).toMatchObject({ failed: 0, delivered: 8 });
      expect(byLink(again.counts, link.id)).toMatchObject({ add: 8, delivered: 8 });
      // The file still holds the 8 records it was written with.
      const files = await dataOf(api.get(`/api/campaign-runs/${run.id}/files`));
      expect(files).toEqual([expect.objectContaining({ name, records: 8 })]);
      expect((await api.get(`/api/campaign-runs/${run.id}/files/${name}`)).text).toBe(before);
    });
  });
});
