import { readFileSync, utimesSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { JobRunner } from '../src/common/jobs/job-runner.js';
import { Jobs } from '../src/common/jobs/jobs.js';
import { DestinationFiles } from '../src/modules/destination/files/destination-files.js';
import { FILE_RETENTION_QUEUE } from '../src/modules/destination/files/file-retention.js';
import { login } from './support/auth.js';
import {
  created,
  dataOf,
  newCampaign,
  newWorkspace,
  type Client,
  type Workspace,
} from './support/campaign-fixtures.js';
import {
  type Any,
  eventually,
  newDeliveryDestination,
  queueRecords,
  startDeliveryApp,
  testSend,
} from './support/destination-fixtures.js';
import type { TestApp } from './support/test-app.js';

describe('file destinations (docs/destinations/file.md)', () => {
  let t: TestApp;
  let w: Workspace;
  let api: Client;
  let files: DestinationFiles;
  let ada: Any;

  beforeAll(async () => {
    t = await startDeliveryApp();
    w = await newWorkspace(t, await login(t));
    api = w.manager;
    files = t.app.get(DestinationFiles);
    ada = await created(
      api.post('/api/customers', {
        email: 'ada@example.com',
        first_name: 'Ada, "the first"',
        external_id: 'crm-1',
        attributes: '{"tier":"gold","tags":["a","b"]}',
      }),
    );
  });
  afterAll(() => t.close());

  describe('testDestination: POST /api/destinations/{id}/test (file)', () => {
    it('writes a CSV file of the record: its own columns, then the mapped targets with dotted names', async () => {
      const destination = await newDeliveryDestination(api, 'file', { format: 'csv', mode: 'changes' });
      expect(destination).toMatchObject({ deliverable: true, problems: [] });
      const campaign = await newCampaign(api);
      const link = await created(
        api.post(`/api/campaigns/${campaign.id}/destinations`, {
          destination_id: destination.id,
          attribute_mapping: JSON.stringify({
            email: 'email',
            'profile.first': 'first_name',
            'profile.tags': 'attributes.tags',
          }),
        }),
      );
      const { status, body } = await testSend(api, destination.id, {
        campaign_destination_id: link.id,
        customer_id: ada.id,
      });
      expect(status).toBe(200);
      expect(body.data).toEqual({
        delivered: true,
        status: 'written',
        duration_ms: expect.any(Number),
        answer: expect.stringMatching(/^test_.*\.csv: 1 records, \d+ bytes$/),
      });
      const [entry] = await files.list({ tenantId: w.tenantId, runId: null });
      expect(entry).toEqual({
        name: expect.stringMatching(/^test_[\w-]+\.csv$/),
        campaign_destination_id: link.id,
        format: 'csv',
        records: 1,
        bytes: expect.any(Number),
        created_at: expect.stringMatching(/Z$/),
      });
      const path = (await files.pathOf({ tenantId: w.tenantId, runId: null }, entry.name))!;
      const text = readFileSync(path, 'utf8');
      expect(Buffer.byteLength(text)).toBe(entry.bytes);
      const rows = parse(text, { columns: true }) as Record<string, string>[];
      expect(rows).toEqual([
        {
          message_id: entry.name.replace(/\.csv$/, ''),
          action: 'add',
          customer_id: String(ada.id),
          external_id: 'crm-1',
          treatment_group_id: '',
          email: 'ada@example.com',
          'profile.first': 'Ada, "the first"',
          'profile.tags': '["a","b"]',
        },
      ]);
      // Names that are no file's are nobody's.
      for (const name of ['../x.csv', '.meta', 'x.txt', entry.name.replace('.csv', '.ndjson')]) {
        expect(await files.pathOf({ tenantId: w.tenantId, runId: null }, name)).toBeUndefined();
      }
    });
  });

  describe("the lane: a run's file", () => {
    it('writes each batch as one whole NDJSON file, a line per record as a webhook body holds it', async () => {
      const destination = await newDeliveryDestination(api, 'file', { format: 'ndjson' });
      const second = await created(api.post('/api/customers', { first_name: 'Grace' }));
      const { records, batches } = await queueRecords(t, w.tenantId, destination.id, [ada.id, second.id], {
        runId: 41,
      });
      const [entry] = await eventually(async () => {
        const listed = await files.list({ tenantId: w.tenantId, runId: 41 });
        return listed.length ? listed : undefined;
      });
      expect(entry).toMatchObject({ name: `${batches[0].batch_id}.ndjson`, format: 'ndjson', records: 2 });
      const path = (await files.pathOf({ tenantId: w.tenantId, runId: 41 }, entry.name))!;
      expect(path).toBe(join(t.config.storageDir, 'destination-files', String(w.tenantId), 'run-41', entry.name));
      const lines = readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toEqual(records.map(({ scope: _scope, ...record }) => record));
      const healthy = await eventually(async () => {
        const read = await dataOf(api.get(`/api/destinations/${destination.id}`));
        return read.last_success_at ? read : undefined;
      });
      expect(healthy.consecutive_failures).toBe(0);
    });

    it('keeps files FILE_RETENTION_DAYS: the recurring sweep removes older folders', async () => {
      const destination = await newDeliveryDestination(api, 'file', { format: 'csv' });
      await queueRecords(t, w.tenantId, destination.id, [ada.id], { runId: 42 });
      await queueRecords(t, w.tenantId, destination.id, [ada.id], { runId: 43 });
      for (const runId of [42, 43]) {
        await eventually(async () => ((await files.list({ tenantId: w.tenantId, runId })).length ? true : undefined));
      }
      const folder = files.folder({ tenantId: w.tenantId, runId: 42 });
      const [entry] = await files.list({ tenantId: w.tenantId, runId: 42 });
      const old = (Date.now() - 31 * 24 * 3600 * 1000) / 1000;
      for (const name of [entry.name, '.meta']) utimesSync(join(folder, name), old, old);
      utimesSync(join(folder, '.meta', `${entry.name}.json`), old, old);
      // The recurring job of the hour, made due now.
      expect(t.app.get(JobRunner).handler(FILE_RETENTION_QUEUE).settings.everyMs).toBe(3600_000);
      const fresh = files.folder({ tenantId: w.tenantId, runId: 43 });
      await t.app.get(Jobs).runNow(FILE_RETENTION_QUEUE);
      await eventually(async () => (existsSync(folder) ? undefined : true));
      expect(await files.list({ tenantId: w.tenantId, runId: 42 })).toEqual([]);
      // Newer files stay.
      expect(existsSync(fresh)).toBe(true);
    });
  });

  describe('createDestination: problems of file connection details', () => {
    it('reports a missing or unknown format and an unknown mode', async () => {
      const bad = await newDeliveryDestination(api, 'file', { format: 'xml', mode: 'some' });
      expect(bad.problems).toEqual([
        { field: 'connection_details.format', message: 'The format field must be one of csv, ndjson.' },
        { field: 'connection_details.mode', message: 'The mode field must be one of all, changes.' },
      ]);
      const none = await newDeliveryDestination(api, 'file', {});
      expect(none.problems).toEqual([{ field: 'connection_details.format', message: 'The format field is required.' }]);
      expect((await testSend(api, none.id)).status).toBe(422);
    });
  });
});
