import { connect, type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import { systemAuth } from '../src/common/auth/auth-context.js';
import { Tables } from '../src/common/persistence/tables.js';
import { readConnectionDetails } from '../src/modules/destination/config/destination-config.js';
import { DestinationSenders } from '../src/modules/destination/delivery/destination-senders.js';
import { DestinationSecrets } from '../src/modules/destination/secrets/destination-secrets.js';
import { Destination } from '../src/modules/destination/entities/destination.entity.js';
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
  unique,
} from './support/destination-fixtures.js';
import type { TestApp } from './support/test-app.js';

/** The machine's RabbitMQ (guest/guest, which RabbitMQ lets in from loopback only). */
const BROKER = 'amqp://guest:guest@127.0.0.1:5672';

describe("amqp destinations (docs/destinations/amqp.md), against the machine's RabbitMQ", () => {
  let t: TestApp;
  let closed: TestApp;
  let w: Workspace;
  let api: Client;
  let broker: ChannelModel;
  let channel: Channel;
  let customer: Any;
  const exchange = `cs-test-${unique()}`;
  const queues: string[] = [];

  /** Every message on a queue, taken off it. */
  async function drain(queue: string, expected: number): Promise<GetMessage[]> {
    const messages: GetMessage[] = [];
    await eventually(async () => {
      for (;;) {
        const message = await channel.get(queue, { noAck: true });
        if (!message) break;
        messages.push(message);
      }
      return messages.length >= expected ? true : undefined;
    });
    return messages;
  }

  const details = (queue: string, extra: Record<string, unknown> = {}) => ({
    url: BROKER,
    exchange,
    routing_key: 'campaign.{{ action }}.{{ data.attributes.tier | default: "none" }}',
    queue,
    binding_key: 'campaign.#',
    ...extra,
  });

  const newQueue = () => {
    const name = `cs-q-${unique()}`;
    queues.push(name);
    return name;
  };

  beforeAll(async () => {
    broker = await connect(BROKER);
    broker.on('error', () => undefined);
    channel = await broker.createChannel();
    channel.on('error', () => undefined);
    await channel.assertExchange(exchange, 'topic', { durable: false, autoDelete: false });
    t = await startDeliveryApp();
    closed = await startDeliveryApp({ webhooks: { allowedHosts: '' }, destinations: { worker: false }, sharedWith: t });
    w = await newWorkspace(t, await login(t));
    api = w.manager;
    customer = await created(api.post('/api/customers', { email: 'amqp@example.com', attributes: '{"tier":"gold"}' }));
  });
  afterAll(async () => {
    await t.close();
    await closed.close();
    for (const queue of queues) await channel.deleteQueue(queue).catch(() => undefined);
    await channel.deleteExchange(exchange).catch(() => undefined);
    await broker.close();
  });

  describe('testDestination: POST /api/destinations/{id}/test (amqp)', () => {
    it('declares and binds the queue, and publishes one persistent JSON message the broker confirmed', async () => {
      const queue = newQueue();
      const destination = await newDeliveryDestination(api, 'amqp', details(queue));
      expect(destination).toMatchObject({ deliverable: true, problems: [] });
      expect(JSON.parse(destination.connection_details as string).url).toBe('amqp://guest:********@127.0.0.1:5672');
      const campaign = await newCampaign(api);
      const link = await created(
        api.post(`/api/campaigns/${campaign.id}/destinations`, {
          destination_id: destination.id,
          attribute_mapping: '{"email": "email", "attributes": "attributes"}',
        }),
      );
      const { status, body } = await testSend(api, destination.id, {
        campaign_destination_id: link.id,
        customer_id: customer.id,
      });
      expect(status).toBe(200);
      expect(body.data).toEqual({
        delivered: true,
        status: 'confirmed',
        duration_ms: expect.any(Number),
        answer: 'confirmed by the broker',
      });
      const [message] = await drain(queue, 1);
      expect(message.fields.routingKey).toBe('campaign.add.gold');
      expect(message.fields.exchange).toBe(exchange);
      expect(message.properties).toMatchObject({
        contentType: 'application/json',
        deliveryMode: 2,
        messageId: expect.stringMatching(/^test_/),
        headers: { run_id: null, campaign_id: campaign.id },
      });
      expect(JSON.parse(message.content.toString())).toEqual({
        message_id: message.properties.messageId,
        action: 'add',
        customer_id: customer.id,
        external_id: null,
        treatment_group_id: null,
        data: { email: 'amqp@example.com', attributes: { tier: 'gold' } },
      });
    });

    it('answers a message no queue takes as returned, a missing exchange and a refused login as not delivered', async () => {
      const lonely = await newDeliveryDestination(api, 'amqp', {
        url: BROKER,
        exchange,
        routing_key: 'nobody.listens',
      });
      const returned = await testSend(api, lonely.id);
      expect(returned.body.data).toMatchObject({
        delivered: false,
        status: 'returned',
        answer: expect.stringContaining('unroutable'),
      });

      const missing = await newDeliveryDestination(api, 'amqp', { url: BROKER, exchange: `missing-${unique()}` });
      const notFound = await testSend(api, missing.id);
      expect(notFound.body.data).toMatchObject({
        delivered: false,
        status: null,
        answer: expect.stringContaining('NOT_FOUND'),
      });

      const wrong = await newDeliveryDestination(api, 'amqp', {
        url: 'amqp://guest:wrong-secret@127.0.0.1:5672',
        exchange,
      });
      const refused = await testSend(api, wrong.id);
      expect(refused.body.data).toMatchObject({ delivered: false, status: null });
      expect(JSON.stringify(refused.body)).not.toContain('wrong-secret');
      // The failure of a test send is not the destination's health.
      expect((await dataOf(api.get(`/api/destinations/${wrong.id}`))).last_error).toBeNull();
    });
  });

  describe('createDestination, testDestination: problems of amqp connection details', () => {
    it('reports each bad key', async () => {
      const bad = await newDeliveryDestination(api, 'amqp', {
        url: 'http://broker.example.com',
        queue: 'q',
        routing_key: '{% if %}',
      });
      expect((bad.problems as Any[]).map((p) => p.field)).toEqual([
        'connection_details.url',
        'connection_details.exchange',
        'connection_details.routing_key',
      ]);
      expect((await testSend(api, bad.id)).status).toBe(422);
    });

    it('reports a private broker as a problem unless allowed, and checks the address again at the connection', async () => {
      const c = await newWorkspace(closed, await login(closed));
      const refused = await newDeliveryDestination(c.manager, 'amqp', { url: BROKER, exchange });
      expect(refused.problems).toEqual([
        { field: 'connection_details.url', message: expect.stringContaining('must not be private or local') },
      ]);
      expect(Object.keys((await testSend(c.manager, refused.id)).body.errors)).toEqual(['connection_details.url']);

      // Through the instance that allows none, by name and by address, whatever was checked before.
      for (const url of ['amqp://guest:guest@localhost:5672', BROKER]) {
        const destination = await newDeliveryDestination(api, 'amqp', { url, exchange });
        const row = (await closed.app
          .get(Tables)
          .read(systemAuth(w.tenantId, 'test'))
          .table(Destination)
          .findById(destination.id))!;
        const opened = closed.app.get(DestinationSecrets).open(row);
        const config = readConnectionDetails('amqp', opened.details).config!;
        const result = await closed.app.get(DestinationSenders).send(row, config, opened.secrets, [], {
          tenantId: w.tenantId,
          destinationId: row.id,
          campaignDestinationId: null,
          campaignId: null,
          runId: null,
          batchId: 'b1',
        });
        expect({ url, error: result.transient?.error }).toEqual({ url, error: expect.stringMatching(/refused: /) });
      }
    });
  });

  describe('the lane: batches of messages, each confirmed', () => {
    it('publishes every record of every batch and records the destination healthy', async () => {
      const queue = newQueue();
      // Declared here first (as the destination declares it), so that the test can read it at once.
      await channel.assertQueue(queue, { durable: true });
      const destination = await newDeliveryDestination(api, 'amqp', details(queue, { batch_size: 2 }));
      const ids: number[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await created(api.post('/api/customers', { first_name: `M${i}` }))).id as number);
      const { records } = await queueRecords(t, w.tenantId, destination.id, ids);
      const messages = await drain(queue, 5);
      expect(messages.map((m) => m.properties.messageId).sort()).toEqual(records.map((r) => r.message_id).sort());
      expect(new Set(messages.map((m) => m.fields.routingKey))).toEqual(new Set(['campaign.add.none']));
      const healthy = await eventually(async () => {
        const read = await dataOf(api.get(`/api/destinations/${destination.id}`));
        return read.last_success_at ? read : undefined;
      });
      expect(healthy).toMatchObject({ consecutive_failures: 0, last_error: null });
    });
  });
});
