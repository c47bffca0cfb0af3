import { Database } from '../src/common/persistence/database.js';
import { login } from './support/auth.js';
import {
  client,
  created,
  dataOf,
  newCampaign,
  newWorkspace,
  type Client,
  type Workspace,
} from './support/campaign-fixtures.js';
import { newUser } from './support/factories.js';
import {
  type Any,
  eventually,
  newDeliveryDestination,
  Receiver,
  startDeliveryApp,
  status,
  testSend,
} from './support/destination-fixtures.js';
import type { TestApp } from './support/test-app.js';

const TOKEN = 'tok-Very-Secret-4711';
const PASSWORD = 'pw-Very-Secret-0815';
const KEY = 'key-Very-Secret-2342';
const SECRETS = [TOKEN, PASSWORD, KEY];
const MASK = '********';

/** Fails naming the place when any of the secrets appears in `value` (any JSON, or text). */
function expectNoSecret(place: string, value: unknown): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  for (const secret of SECRETS) expect({ place, leaks: text.includes(secret) }).toEqual({ place, leaks: false });
}

/**
 * Write-only secrets (docs/destinations.md#secrets): stored sealed, answered as ******** on every
 * place a destination appears: its create, read, list and update answers, a campaign's
 * destinations, the change feed and the webhooks that deliver it, the activity log, the
 * Idempotency-Key replay of a create, the database's own copy of the text, a delivery's recorded
 * error. (No export of the service holds destinations: the customer exports and hand-over hold
 * customers.) A PUT sending ******** back keeps the stored secret.
 */
describe('destination secrets are write-only', () => {
  let t: TestApp;
  let receiver: Receiver;
  let root: string;
  let w: Workspace;
  let api: Client;
  let admin: Client;

  const details = (overrides: Record<string, unknown> = {}) => ({
    url: receiver.url('/secret'),
    headers: { Authorization: `Bearer ${TOKEN}`, 'X-Api-Key': KEY, 'X-Plain': 'visible' },
    fallback: `amqps://app:${PASSWORD}@broker.example.com/v`,
    ...overrides,
  });

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startDeliveryApp();
    root = await login(t);
    w = await newWorkspace(t, root);
    api = w.manager;
    admin = client(t, (await newUser(t, root, ['admin'], w.tenantId)).token);
    await created(api.post('/api/customers', { email: 'secret@example.com' }));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  describe('createDestination, getDestination, listDestinations, updateDestination: every answer of a destination', () => {
    it('answers every secret as ********, every other byte as sent', async () => {
      const text = JSON.stringify(details(), null, 2);
      const destination = await newDeliveryDestination(api, 'webhook', text);
      expect(destination.connection_details).toBe(
        text.replace(TOKEN, MASK).replace(`Bearer ${MASK}`, MASK).replace(KEY, MASK).replace(PASSWORD, MASK),
      );
      expect(JSON.parse(destination.connection_details as string)).toEqual({
        url: receiver.url('/secret'),
        headers: { Authorization: MASK, 'X-Api-Key': MASK, 'X-Plain': 'visible' },
        fallback: `amqps://app:${MASK}@broker.example.com/v`,
      });
      expectNoSecret('create', destination);
      expectNoSecret('get', await dataOf(api.get(`/api/destinations/${destination.id}`)));
      expectNoSecret('list', await dataOf(api.get('/api/destinations', { limit: 100 })));
      const campaign = await newCampaign(api);
      const link = await created(
        api.post(`/api/campaigns/${campaign.id}/destinations`, {
          destination_id: destination.id,
          attribute_mapping: '{}',
        }),
      );
      expectNoSecret('campaign destination', link);
      expectNoSecret('campaign destinations', await dataOf(api.get(`/api/campaigns/${campaign.id}/destinations`)));
      const put = await api.put(`/api/destinations/${destination.id}`, {
        name: 'renamed',
        destination_type: 'webhook',
        connection_details: destination.connection_details,
      });
      expect(put.status).toBe(200);
      expectNoSecret('put', put.body);

      // The database keeps the text as answered, and the secrets sealed beside it.
      const [row] = await t.app
        .get(Database)
        .query<Any>('SELECT connection_details, secrets FROM destinations WHERE id = ?', [destination.id]);
      expect(row.connection_details).toBe(destination.connection_details);
      expect(row.secrets).toMatch(/^v1\./);
      expectNoSecret('the database', row);
    });

    it('keeps a secret sent back as ********, takes a new one, and forgets a URL password whose URL changed', async () => {
      const destination = await newDeliveryDestination(api, 'webhook', details({ url: receiver.url('/kept') }));
      const put = (connectionDetails: string) =>
        dataOf(
          api.put(`/api/destinations/${destination.id}`, {
            name: destination.name,
            destination_type: 'webhook',
            connection_details: connectionDetails,
          }),
        );

      // Sent back as answered: the receiver still gets the real secrets.
      await put(destination.connection_details as string);
      expect((await testSend(api, destination.id)).body.data).toMatchObject({ delivered: true });
      let [request] = receiver.on('/kept');
      expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(request.headers['x-api-key']).toBe(KEY);

      // A new value replaces it.
      const changed = JSON.parse(destination.connection_details as string);
      changed.headers['X-Api-Key'] = 'key-new';
      const updated = await put(JSON.stringify(changed));
      expect(JSON.parse(updated.connection_details as string).headers['X-Api-Key']).toBe(MASK);
      await testSend(api, destination.id);
      request = receiver.on('/kept')[1];
      expect(request.headers['x-api-key']).toBe('key-new');
      expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);

      // A URL whose host changed keeps no masked password: a problem until it is sent again.
      changed.fallback = `amqps://app:${MASK}@elsewhere.example.com/v`;
      const moved = await put(JSON.stringify(changed));
      expect(moved.problems).toEqual([
        { field: 'connection_details.fallback', message: expect.stringContaining('No secret is stored') },
      ]);
      expect(Object.keys((await testSend(api, destination.id)).body.errors)).toEqual(['connection_details.fallback']);
      // ******** on a create stores no secret: the same problem.
      const placeholder = await newDeliveryDestination(api, 'webhook', { url: receiver.url('/x'), token: MASK });
      expect(placeholder.problems).toEqual([
        { field: 'connection_details.token', message: expect.stringContaining('No secret is stored') },
      ]);
    });

    it('answers the same on a replay of the create (Idempotency-Key)', async () => {
      const body = { name: 'replayed', destination_type: 'webhook', connection_details: JSON.stringify(details()) };
      const first = await t.http
        .post('/api/destinations')
        .set('Authorization', api.token)
        .set('Idempotency-Key', 'secret-1')
        .send(body);
      const again = await t.http
        .post('/api/destinations')
        .set('Authorization', api.token)
        .set('Idempotency-Key', 'secret-1')
        .send(body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expectNoSecret('replay', again.body);
    });
  });

  describe('listEvents, listActivity: the change feed, its webhooks and the activity log', () => {
    it('publishes destinations with their secrets masked, to the feed, its webhooks and the log', async () => {
      const hook = await created(
        admin.post('/api/webhooks', {
          url: receiver.url('/feed'),
          events: ['destination.created', 'destination.updated'],
        }),
      );
      expect(hook.secret).toMatch(/^whsec_/);
      const destination = await newDeliveryDestination(api, 'webhook', details());
      await api.put(`/api/destinations/${destination.id}`, {
        name: 'feed',
        destination_type: 'webhook',
        connection_details: JSON.stringify(
          details({ headers: { Authorization: 'Bearer other-Very-Secret', 'X-Api-Key': KEY } }),
        ),
      });
      SECRETS.push('other-Very-Secret');
      const events = await eventually(async () => {
        const list = (await dataOf(admin.get('/api/events', { limit: 100 }))) as Any[];
        const mine = list.filter((e) => e.resource === 'destination' && e.resource_id === destination.id);
        return mine.length === 2 ? mine : undefined;
      });
      expect(events.map((e) => e.type).sort()).toEqual(['destination.created', 'destination.updated']);
      expectNoSecret('the change feed', events);
      expectNoSecret('an event', await dataOf(admin.get(`/api/events/${events[0].id}`)));
      const delivered = await receiver.until('/feed', 2);
      expectNoSecret(
        'the feed webhooks',
        delivered.map((r) => r.body),
      );
      expect(delivered.map((r) => JSON.parse(r.body).data.connection_details)).toEqual(
        expect.arrayContaining([expect.stringContaining(MASK)]),
      );

      const log = (await dataOf(admin.get('/api/admin/activity-log', { limit: 100 }))) as Any[];
      const entries = log.filter((e) => e.subject_type === 'Destination' && e.subject_id === destination.id);
      expect(entries.map((e) => e.event).sort()).toEqual(['created', 'updated']);
      expect(entries.find((e) => e.event === 'updated').properties.attributes.connection_details).toContain(MASK);
      expectNoSecret('the activity log', entries);
    });
  });

  describe("testDestination: a receiver's answer, a delivery's error", () => {
    it('scrubs the secrets from what a receiver answers and from the recorded error', async () => {
      const destination = await newDeliveryDestination(api, 'webhook', details({ url: receiver.url('/echo') }));
      receiver.answer('/echo', (req, res) =>
        res.writeHead(401).end(`bad token ${req.headers.authorization} ${req.headers['x-api-key']}`),
      );
      const { body } = await testSend(api, destination.id);
      expect(body.data).toMatchObject({ delivered: false, status: 401, answer: `bad token ${MASK} ${MASK}` });
      receiver.answer('/echo', status(500, `boom ${TOKEN}`));
      expectNoSecret('a test answer', (await testSend(api, destination.id)).body);
    });
  });

  describe('getDestination: another DESTINATION_SECRET_KEY', () => {
    it('reports that the stored secrets cannot be read, and delivers nothing', async () => {
      const destination = await newDeliveryDestination(api, 'webhook', details());
      const other = await startDeliveryApp({
        sharedWith: t,
        env: { DESTINATION_SECRET_KEY: 'another-destination-key-0123456789' },
        destinations: { worker: false },
      });
      try {
        const read = await dataOf(client(other, api.token).get(`/api/destinations/${destination.id}`));
        expect(read.problems).toEqual([
          {
            field: 'connection_details',
            message: expect.stringContaining('cannot be read with this DESTINATION_SECRET_KEY'),
          },
        ]);
        expect((await testSend(client(other, api.token), destination.id)).status).toBe(422);
      } finally {
        await other.close();
      }
    });
  });
});
