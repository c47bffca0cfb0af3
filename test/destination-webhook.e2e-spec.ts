import { verifyWebhook } from '../client/index.js';
import { Database } from '../src/common/persistence/database.js';
import { DestinationSenders } from '../src/modules/destination/delivery/destination-senders.js';
import { readConnectionDetails } from '../src/modules/destination/config/destination-config.js';
import { Destination } from '../src/modules/destination/entities/destination.entity.js';
import { Tables } from '../src/common/persistence/tables.js';
import { systemAuth } from '../src/common/auth/auth-context.js';
import { login } from './support/auth.js';
import {
  created,
  dataOf,
  newCampaign,
  newTreatmentGroup,
  newWorkspace,
  type Client,
  type Workspace,
} from './support/campaign-fixtures.js';
import {
  type Any,
  eventually,
  newDeliveryDestination,
  queueRecords,
  Receiver,
  sleep,
  startDeliveryApp,
  status,
  testSend,
  unique,
} from './support/destination-fixtures.js';
import type { TestApp } from './support/test-app.js';

interface Delivery {
  type: string;
  id: string;
  run_id: number | null;
  campaign_id: number | null;
  destination_id: number;
  campaign_destination_id: number | null;
  records: {
    message_id: string;
    action: string;
    customer_id: number;
    external_id: string | null;
    treatment_group_id: number | null;
    data: Any;
  }[];
}

/** The body of a received request, after its Standard Webhooks signature checked out with `secret`. */
const verified = (secret: string, received: { headers: Record<string, unknown>; body: string }): Delivery =>
  verifyWebhook(secret, received.headers as Record<string, string>, received.body) as unknown as Delivery;

describe('webhook destinations (docs/destinations/webhook.md)', () => {
  let t: TestApp;
  let receiver: Receiver;
  let root: string;
  let w: Workspace;
  let api: Client;
  let customer: Any;
  /** A second instance over the same database, whose operator allowed no private address. */
  let closed: TestApp;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startDeliveryApp();
    // Passport's strategies are process-wide: the last instance started authenticates for both and closes last.
    // It delivers nothing (every instance of one service shares WEBHOOK_ALLOWED_HOSTS in production).
    closed = await startDeliveryApp({ webhooks: { allowedHosts: '' }, destinations: { worker: false }, sharedWith: t });
    root = await login(t);
    w = await newWorkspace(t, root);
    api = w.manager;
    await created(api.post('/api/customers', { email: 'first@example.com', first_name: 'First' }));
    customer = await created(
      api.post('/api/customers', {
        email: 'ada@example.com',
        first_name: 'Ada',
        external_id: `crm-${unique()}`,
        attributes: '{"tier":"gold","address":{"city":"London"}}',
      }),
    );
  });
  afterAll(async () => {
    await t.close();
    await closed.close();
    await receiver.close();
  });

  const hook = (path: string, details: Record<string, unknown> = {}) =>
    newDeliveryDestination(api, 'webhook', { url: receiver.url(path), ...details });

  describe('createDestination, testDestination: POST /api/destinations, POST /api/destinations/{id}/test', () => {
    it('signs with the generated secret, shown by the create answer only, and sends every customer field without an association', async () => {
      const destination = await hook('/plain', { headers: { 'X-Team': 'growth' } });
      expect(destination).toMatchObject({
        deliverable: true,
        problems: [],
        signing_secret: expect.stringMatching(/^whsec_/),
      });
      const secret = destination.signing_secret as string;
      const read = await dataOf(api.get(`/api/destinations/${destination.id}`));
      expect(read).not.toHaveProperty('signing_secret');
      expect(JSON.stringify(await dataOf(api.get('/api/destinations', { limit: 100 })))).not.toContain(secret);

      const { status: code, body } = await testSend(api, destination.id);
      expect(code).toBe(200);
      expect(body.data).toEqual({ delivered: true, status: 200, duration_ms: expect.any(Number), answer: 'ok' });
      const [request] = receiver.on('/plain');
      expect(request.method).toBe('POST');
      expect(request.headers['x-team']).toBe('growth');
      expect(request.headers['content-type']).toBe('application/json');
      const delivery = verified(secret, request);
      expect(delivery).toEqual({
        type: 'campaign.delivery',
        id: expect.stringMatching(/^test_/),
        run_id: null,
        campaign_id: null,
        destination_id: destination.id,
        campaign_destination_id: null,
        records: [
          {
            message_id: delivery.id,
            action: 'add',
            customer_id: customer.id,
            external_id: customer.external_id,
            treatment_group_id: null,
            // The tenant's most recently updated customer, every field under its own name.
            data: {
              ...customer,
              tenant_id: undefined,
              attributes: { tier: 'gold', address: { city: 'London' } },
              unsubscribed_at: null,
            },
          },
        ],
      });
      expect(Object.keys(delivery.records[0].data)).not.toContain('tenant_id');
      // A test send marks nothing: the destination's health is as it was.
      expect(await dataOf(api.get(`/api/destinations/${destination.id}`))).toEqual(read);
    });

    it('maps the named customer with the association, its campaign and treatment group', async () => {
      const destination = await hook('/mapped', { method: 'PUT' });
      const campaign = await newCampaign(api, { name: `Spring ${unique()}` });
      const group = await newTreatmentGroup(api, campaign.id, { name: 'Variant A', type: 'treatment' });
      const link = await created(
        api.post(`/api/campaigns/${campaign.id}/destinations`, {
          destination_id: destination.id,
          treatment_group_id: group.id,
          attribute_mapping: JSON.stringify({
            email: 'email',
            'profile.first': 'first_name',
            'profile.city': 'attributes.address.city',
            tier: { field: 'attributes.plan', default: 'basic' },
            greeting: { template: 'Hi {{ customer.first_name }} of {{ campaign.name }} ({{ treatment_group.name }})' },
            source: { value: ['api', 1] },
          }),
        }),
      );
      expect(link).toMatchObject({ deliverable: true, problems: [] });
      const first = (await dataOf(api.get('/api/customers', { sort: 'id', limit: 1 })))[0];
      const { body } = await testSend(api, destination.id, { campaign_destination_id: link.id, customer_id: first.id });
      expect(body.data).toMatchObject({ delivered: true, status: 200 });
      const [request] = receiver.on('/mapped');
      expect(request.method).toBe('PUT');
      const delivery = verified(destination.signing_secret as string, request);
      expect(delivery).toMatchObject({ campaign_id: campaign.id, campaign_destination_id: link.id });
      expect(delivery.records[0]).toMatchObject({
        customer_id: first.id,
        treatment_group_id: group.id,
        data: {
          email: 'first@example.com',
          profile: { first: 'First', city: null },
          tier: 'basic',
          greeting: `Hi First of ${campaign.name} (Variant A)`,
          source: ['api', 1],
        },
      });
    });

    it('signs with connection_details.secret when it names one, which is answered as ******** and kept on a PUT', async () => {
      const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      const destination = await hook('/own-secret', { secret });
      expect(destination).not.toHaveProperty('signing_secret');
      expect(JSON.parse(destination.connection_details as string).secret).toBe('********');
      const res = await api.put(`/api/destinations/${destination.id}`, {
        name: destination.name,
        destination_type: 'webhook',
        connection_details: destination.connection_details,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.deliverable).toBe(true);
      expect((await testSend(api, destination.id)).body.data).toMatchObject({ delivered: true });
      expect(() => verified(secret, receiver.on('/own-secret')[0])).not.toThrow();
      expect((await api.post(`/api/destinations/${destination.id}/rotate-secret`)).status).toBe(409);
    });
  });

  describe('rotateDestinationSecret: POST /api/destinations/{id}/rotate-secret', () => {
    it('answers a new secret; for 24 hours the old one signs beside it', async () => {
      const destination = await hook('/rotate');
      const old = destination.signing_secret as string;
      const rotated = await api.post(`/api/destinations/${destination.id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      expect(rotated.body).toEqual({
        code: 200,
        message: expect.any(String),
        data: { signing_secret: expect.stringMatching(/^whsec_/) },
      });
      const fresh = rotated.body.data.signing_secret as string;
      expect(fresh).not.toBe(old);
      // A rotation is no change of the record.
      expect(await dataOf(api.get(`/api/destinations/${destination.id}`))).toMatchObject({
        updated_at: destination.updated_at,
      });

      await testSend(api, destination.id);
      const [during] = receiver.on('/rotate');
      expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(() => verified(fresh, during)).not.toThrow();
      expect(() => verified(old, during)).not.toThrow();

      // Once the overlap is over, only the new one signs.
      await t.app
        .get(Database)
        .run('UPDATE destinations SET previous_signing_secret_expires_at = ? WHERE id = ?', [
          Date.now() - 1,
          destination.id,
        ]);
      await testSend(api, destination.id);
      const after = receiver.on('/rotate')[1];
      expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(() => verified(fresh, after)).not.toThrow();
      expect(() => verified(old, after)).toThrow();
    });

    it('is for webhook destinations only (409)', async () => {
      const file = await newDeliveryDestination(api, 'file', { format: 'csv' });
      const res = await api.post(`/api/destinations/${file.id}/rotate-secret`);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ message: 'Only a webhook destination has a signing secret.' });
    });
  });

  describe("testDestination: POST /api/destinations/{id}/test, the receiver's answers", () => {
    it('reports 2xx with rejected records, 4xx, 5xx and timeouts as the receiver answered them', async () => {
      const destination = await hook('/answers', { timeout_ms: 300 });
      receiver.answer('/answers', (req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        res.writeHead(200, { 'content-type': 'application/json' });
        // The record of the request just received, rejected.
        const sent = JSON.parse(receiver.on('/answers').at(-1)!.body) as Delivery;
        res.end(JSON.stringify({ rejected: [{ message_id: sent.records[0].message_id, reason: 'unknown customer' }] }));
      });
      const rejected = await testSend(api, destination.id);
      expect(rejected.body.data).toMatchObject({
        delivered: false,
        status: 200,
        answer: expect.stringContaining('unknown customer'),
      });

      receiver.answer('/answers', status(422, 'x'.repeat(600)));
      const refused = await testSend(api, destination.id);
      expect(refused.body.data).toMatchObject({ delivered: false, status: 422 });
      expect(refused.body.data.answer).toHaveLength(500);

      receiver.answer('/answers', status(503, 'down', { 'retry-after': '2' }));
      expect((await testSend(api, destination.id)).body.data).toMatchObject({
        delivered: false,
        status: 503,
        answer: 'down',
      });

      receiver.hold('/answers');
      const late = await testSend(api, destination.id);
      expect(late.body.data).toMatchObject({
        delivered: false,
        status: null,
        answer: expect.stringContaining('no answer within'),
      });
      receiver.release('/answers');
    });
  });

  describe('createDestination, testDestination: problems of webhook connection details', () => {
    it('reports each bad key as a problem, stores the destination, and refuses a test send with a 422 listing them', async () => {
      const destination = await newDeliveryDestination(api, 'webhook', {
        url: 'ftp://example.com',
        method: 'GET',
        headers: { 'Content-Length': '1' },
        batch_size: 5000,
        concurrency: 0,
        secret: 'not-whsec',
      });
      expect(destination.deliverable).toBe(false);
      expect((destination.problems as Any[]).map((p) => p.field)).toEqual([
        'connection_details.url',
        'connection_details.secret',
        'connection_details.method',
        'connection_details.headers.Content-Length',
        'connection_details.batch_size',
        'connection_details.concurrency',
      ]);
      const { status: code, body } = await testSend(api, destination.id);
      expect(code).toBe(422);
      expect(Object.keys(body.errors)).toEqual((destination.problems as Any[]).map((p) => p.field));
    });

    it('names the types it delivers to for any other type', async () => {
      const other = await newDeliveryDestination(api, 'kafka', { brokers: ['k1:9092'] });
      expect(other.problems).toEqual([
        { field: 'destination_type', message: expect.stringContaining('webhook, email, amqp, file') },
      ]);
      expect((await testSend(api, other.id)).status).toBe(422);
    });
  });

  describe('testDestination: POST /api/destinations/{id}/test, the address policy', () => {
    let c: Workspace;
    beforeAll(async () => {
      c = await newWorkspace(closed, await login(closed));
      await created(c.manager.post('/api/customers', { email: 'c@example.com' }));
    });

    it('reports a loopback or private address as a problem on connection_details.url unless WEBHOOK_ALLOWED_HOSTS allows it', async () => {
      for (const url of [
        receiver.url('/ssrf'),
        'http://localhost:9/x',
        'http://10.0.0.1/x',
        'http://[::1]:8080/x',
        'http://169.254.169.254/latest',
      ]) {
        const destination = await newDeliveryDestination(c.manager, 'webhook', { url });
        expect({ url, problems: destination.problems }).toEqual({
          url,
          problems: [
            { field: 'connection_details.url', message: expect.stringContaining('must not be private or local') },
          ],
        });
        const refused = await testSend(c.manager, destination.id);
        expect(refused.status).toBe(422);
        expect(Object.keys(refused.body.errors)).toEqual(['connection_details.url']);
      }
      expect(receiver.on('/ssrf')).toEqual([]);
      // The app that allows 127.0.0.1 reports nothing.
      expect((await hook('/ssrf')).problems).toEqual([]);
    });

    it('checks the address again at the connection, whatever was checked before', async () => {
      // Written through the app that allows 127.0.0.1, sent through the one that does not.
      const destination = await hook('/ssrf-connect');
      const row = (await closed.app
        .get(Tables)
        .read(systemAuth(w.tenantId, 'test'))
        .table(Destination)
        .findById(destination.id))!;
      const config = readConnectionDetails('webhook', JSON.parse(row.connection_details)).config!;
      const result = await closed.app.get(DestinationSenders).send(row, config, [], [], {
        tenantId: w.tenantId,
        destinationId: row.id,
        campaignDestinationId: null,
        campaignId: null,
        runId: null,
        batchId: 'b1',
      });
      expect(result).toMatchObject({ outcomes: [], transient: { error: expect.stringMatching(/^refused: /) } });
      expect(receiver.on('/ssrf-connect')).toEqual([]);
    });
  });

  describe('the lane: batches of records delivered by the jobs primitive', () => {
    const customers: number[] = [];
    beforeAll(async () => {
      for (let i = 0; i < 5; i++)
        customers.push((await created(api.post('/api/customers', { first_name: `C${i}` }))).id as number);
    });

    it('delivers batches of batch_size, signed, and records the health of the destination', async () => {
      const destination = await hook('/lane', { batch_size: 2 });
      const { records, batches } = await queueRecords(t, w.tenantId, destination.id, customers);
      expect(batches.map((b) => b.records!.length)).toEqual([2, 2, 1]);
      const requests = await receiver.until('/lane', 3);
      const sent = requests.map((r) => verified(destination.signing_secret as string, r));
      expect(sent.flatMap((d) => d.records.map((r) => r.message_id)).sort()).toEqual(
        records.map((r) => r.message_id).sort(),
      );
      expect(new Set(sent.map((d) => d.id)).size).toBe(3);
      const healthy = await eventually(async () => {
        const read = await dataOf(api.get(`/api/destinations/${destination.id}`));
        return read.last_success_at ? read : undefined;
      });
      expect(healthy).toMatchObject({ last_failure_at: null, last_error: null, consecutive_failures: 0 });
    });

    it('retries what failed for now, honouring Retry-After, with the same batch id, and rejects a batch a 4xx refuses', async () => {
      const destination = await hook('/retry');
      receiver.answer('/retry', status(503, 'busy', { 'retry-after': '3' }), status(500, 'oops'));
      await queueRecords(t, w.tenantId, destination.id, customers.slice(0, 2));
      const requests = await receiver.until('/retry', 3);
      expect(new Set(requests.map((r) => JSON.parse(r.body).id)).size).toBe(1);
      // The 503's Retry-After (3 s) over the schedule's 1 s; the 500 waits the schedule's 1 s.
      expect(requests[1].at - requests[0].at).toBeGreaterThanOrEqual(2_900);
      expect(requests[2].at - requests[1].at).toBeLessThan(2_500);
      const failing = await eventually(async () => {
        const read = await dataOf(api.get(`/api/destinations/${destination.id}`));
        return read.last_success_at ? read : undefined;
      });
      expect(failing).toMatchObject({ consecutive_failures: 0, last_failure_at: expect.any(String) });

      const refusing = await hook('/refuse');
      receiver.answer('/refuse', status(400, 'bad batch'));
      await queueRecords(t, w.tenantId, refusing.id, customers.slice(0, 1));
      await receiver.until('/refuse', 1);
      const refused = await eventually(async () => {
        const read = await dataOf(api.get(`/api/destinations/${refusing.id}`));
        return read.consecutive_failures === 1 ? read : undefined;
      });
      expect(refused).toMatchObject({ last_error: 'HTTP 400: bad batch', last_success_at: null });
      // Rejected for good: never tried again.
      await sleep(1500);
      expect(receiver.on('/refuse')).toHaveLength(1);
    });

    it('keeps one destination that hangs from slowing another: the fast one completes while the slow one is held', async () => {
      const slow = await hook('/slow', { batch_size: 1, concurrency: 1, timeout_ms: 30_000 });
      const fast = await hook('/fast', { batch_size: 1, concurrency: 2, rate_per_second: 1000 });
      receiver.hold('/slow');
      await Promise.all([
        queueRecords(t, w.tenantId, slow.id, customers),
        queueRecords(t, w.tenantId, fast.id, customers),
      ]);
      await receiver.until('/fast', 5);
      const healthy = await eventually(async () => {
        const read = await dataOf(api.get(`/api/destinations/${fast.id}`));
        return read.last_success_at ? read : undefined;
      });
      expect(healthy.consecutive_failures).toBe(0);
      // The slow lane holds its one place: one request in flight, none answered, the rest waiting.
      expect(receiver.on('/slow')).toHaveLength(1);
      expect((await dataOf(api.get(`/api/destinations/${slow.id}`))).last_success_at).toBeNull();
      receiver.release('/slow');
      await receiver.until('/slow', 5);
    });

    it('holds the lane of a destination switched off, and lets it go when it is switched on', async () => {
      const destination = await hook('/paused');
      const body = {
        name: destination.name,
        destination_type: 'webhook',
        connection_details: destination.connection_details,
      };
      expect((await api.put(`/api/destinations/${destination.id}`, { ...body, is_active: false })).status).toBe(200);
      await queueRecords(t, w.tenantId, destination.id, customers.slice(0, 1));
      await sleep(500);
      expect(receiver.on('/paused')).toEqual([]);
      expect((await api.put(`/api/destinations/${destination.id}`, { ...body, is_active: true })).status).toBe(200);
      await receiver.until('/paused', 1);
    });
  });

  describe('testDestination, rotateDestinationSecret: other tenants and permissions', () => {
    it("answers 404 for another tenant's destination and 403 to a viewer", async () => {
      const destination = await hook('/tenancy');
      const other = await newWorkspace(t, root);
      for (const path of [
        `/api/destinations/${destination.id}/test`,
        `/api/destinations/${destination.id}/rotate-secret`,
      ]) {
        const res = await other.manager.post(path, {});
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        const viewer = await w.viewer.post(path, {});
        expect({ path, status: viewer.status }).toEqual({ path, status: 403 });
      }
      for (const id of ['999999999', 'abc', '0']) {
        expect((await api.post(`/api/destinations/${id}/test`, {})).status).toBe(404);
        expect((await api.post(`/api/destinations/${id}/rotate-secret`)).status).toBe(404);
      }
      // A body reference of another tenant is a 422 on its field.
      const theirCustomer = await created(other.manager.post('/api/customers', { first_name: 'Theirs' }));
      const foreign = await testSend(api, destination.id, { customer_id: theirCustomer.id });
      expect(foreign.status).toBe(422);
      expect(Object.keys(foreign.body.errors)).toEqual(['customer_id']);
      const campaign = await newCampaign(other.manager);
      const theirs = await newDeliveryDestination(other.manager, 'webhook', { url: receiver.url('/theirs') });
      const theirLink = await created(
        other.manager.post(`/api/campaigns/${campaign.id}/destinations`, {
          destination_id: theirs.id,
          attribute_mapping: '{}',
        }),
      );
      const linked = await testSend(api, destination.id, { campaign_destination_id: theirLink.id });
      expect(Object.keys(linked.body.errors)).toEqual(['campaign_destination_id']);
      expect(receiver.on('/tenancy')).toEqual([]);
    });
  });
});
