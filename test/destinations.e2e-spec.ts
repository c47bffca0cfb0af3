import { login } from './support/auth.js';
import {
  ISO,
  MISSING_IDS,
  created,
  dataOf,
  destinationBody,
  invalidOn,
  listAll,
  newCampaign,
  newDestination,
  newTreatmentGroup,
  newWorkspace,
  outcome,
  snapshot,
  startApp,
  type Body,
  type Client,
  type Query,
  type Row,
  type Workspace,
} from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';

const CONNECTION = '{ "endpoint" : "https://esp.example.com/v3", "list": "spring", "retries": 3.0 }';
const MAPPING = '{"email" :"contact_email","name":  ["first_name","last_name"], "note":"é\\u00e9🎯"}';

/** A destination's health before any delivery. */
const NO_HEALTH = { last_success_at: null, last_failure_at: null, last_error: null, consecutive_failures: 0 };

const linkBody = (destinationId: number | string, overrides: Body = {}): Body => ({
  destination_id: destinationId,
  attribute_mapping: MAPPING,
  ...overrides,
});

describe('destinations and campaign destinations', () => {
  let t: TestApp;
  let root: string;
  let a: Workspace;
  let b: Workspace;
  let api: Client;

  beforeAll(async () => {
    t = await startApp();
    root = await login(t);
    a = await newWorkspace(t, root);
    b = await newWorkspace(t, root);
    api = a.manager;
  });
  afterAll(() => t.close());

  describe('destinations', () => {
    describe('createDestination, getDestination, listDestinations, updateDestination, deleteDestination: every route of /api/destinations', () => {
      it('creates, reads, lists, updates and deletes a destination', async () => {
        const destination = await created(
          api.post('/api/destinations', {
            name: 'Newsletter ESP',
            description: 'Spring list',
            destination_type: 'email',
            connection_details: CONNECTION,
            id: 999,
            tenant_id: b.tenantId,
            deleted_at: '2020-01-01',
          }),
        );
        expect(destination).toEqual({
          id: expect.any(Number),
          tenant_id: a.tenantId,
          name: 'Newsletter ESP',
          description: 'Spring list',
          destination_type: 'email',
          connection_details: CONNECTION,
          is_active: true,
          // An email destination without from and a body: stored as sent, not deliverable.
          deliverable: false,
          problems: [
            { field: 'connection_details.from', message: 'The from field is required.' },
            { field: 'connection_details.html', message: 'An e-mail needs a body: give html, text or both.' },
          ],
          ...NO_HEALTH,
          created_at: ISO,
          updated_at: ISO,
        });
        expect(await dataOf(api.get(`/api/destinations/${destination.id}`))).toEqual(destination);
        const list = await api.get('/api/destinations', { q: 'Newsletter' });
        expect(list.body.data).toEqual([destination]);
        expect(list.body.meta).toEqual({ limit: 25, next_cursor: null, has_more: false });

        const updated = await dataOf(
          api.put(`/api/destinations/${destination.id}`, {
            name: 'Webhook',
            destination_type: 'webhook',
            connection_details: '{"url":"https://hooks.example.com"}',
            is_active: false,
          }),
        );
        // Left out, the description stays.
        expect(updated).toEqual({
          ...destination,
          name: 'Webhook',
          destination_type: 'webhook',
          connection_details: '{"url":"https://hooks.example.com"}',
          is_active: false,
          deliverable: expect.any(Boolean),
          problems: expect.any(Array),
          updated_at: ISO,
        });
        // Left out, is_active stays; null clears the description.
        const again = await dataOf(
          api.put(`/api/destinations/${destination.id}`, { ...destinationBody(), description: null }),
        );
        expect(again).toMatchObject({ is_active: false, description: null });
        expect(await dataOf(api.get(`/api/destinations/${destination.id}`))).toEqual(again);

        const deleted = await api.delete(`/api/destinations/${destination.id}`);
        expect(deleted.body).toEqual({ code: 200, message: expect.any(String), data: null });
        expect((await api.get(`/api/destinations/${destination.id}`)).status).toBe(404);
        expect((await api.delete(`/api/destinations/${destination.id}`)).status).toBe(404);
      });
    });

    describe('createDestination: POST /api/destinations', () => {
      it('accepts the boolean forms of is_active, and 255-character texts', async () => {
        const forms: [unknown, boolean][] = [
          [true, true],
          [false, false],
          [1, true],
          [0, false],
          ['1', true],
          ['0', false],
          ['true', true],
          ['false', false],
        ];
        for (const [value, stored] of forms) {
          const destination = await newDestination(api, { is_active: value });
          expect({ value, is_active: destination.is_active }).toEqual({ value, is_active: stored });
        }
        const long = await newDestination(api, { name: 'ñ'.repeat(255), destination_type: 't'.repeat(255) });
        expect(long).toMatchObject({ name: 'ñ'.repeat(255), destination_type: 't'.repeat(255) });
      });
    });

    describe('createDestination, updateDestination: POST /api/destinations, PUT /api/destinations/{id}', () => {
      it('answers 422 on the right key for every field rule, on create and update, writing nothing', async () => {
        const existing = await newDestination(api);
        const valid = destinationBody();
        const cases: [string, Body, string][] = [
          ['name missing', { ...valid, name: undefined }, 'name'],
          ['name null', { ...valid, name: null }, 'name'],
          ['name 256', { ...valid, name: 'n'.repeat(256) }, 'name'],
          ['name a number', { ...valid, name: 1 }, 'name'],
          ['description a number', { ...valid, description: 1 }, 'description'],
          ['type missing', { ...valid, destination_type: undefined }, 'destination_type'],
          ['type null', { ...valid, destination_type: null }, 'destination_type'],
          ['type 256', { ...valid, destination_type: 't'.repeat(256) }, 'destination_type'],
          ['type an array', { ...valid, destination_type: ['email'] }, 'destination_type'],
          ['details missing', { ...valid, connection_details: undefined }, 'connection_details'],
          ['details null', { ...valid, connection_details: null }, 'connection_details'],
          ['details invalid JSON', { ...valid, connection_details: '{"url":}' }, 'connection_details'],
          ['details an object', { ...valid, connection_details: { url: 'x' } }, 'connection_details'],
          ['details empty', { ...valid, connection_details: '' }, 'connection_details'],
          ['is_active yes', { ...valid, is_active: 'yes' }, 'is_active'],
          ['is_active null', { ...valid, is_active: null }, 'is_active'],
          ['is_active 2', { ...valid, is_active: 2 }, 'is_active'],
        ];
        const before = await snapshot(api, '/api/destinations');
        for (const [name, body, key] of cases) {
          const post = await api.post('/api/destinations', body);
          expect({ name, method: 'POST', ...outcome(post) }).toEqual({ name, method: 'POST', ...invalidOn(key) });
          const put = await api.put(`/api/destinations/${existing.id}`, body);
          expect({ name, method: 'PUT', ...outcome(put) }).toEqual({ name, method: 'PUT', ...invalidOn(key) });
        }
        expect(await snapshot(api, '/api/destinations')).toEqual(before);
        expect(await dataOf(api.get(`/api/destinations/${existing.id}`))).toEqual(existing);
      });
    });

    describe('listDestinations: GET /api/destinations', () => {
      it('lists destinations with search, is_active, sorts and keyset pages', async () => {
        const w = await newWorkspace(t, root);
        const made: Row[] = [];
        for (const [i, name] of ['Kafka', 'Email', 'Webhook', 'S3 bucket', 'SFTP', 'Ads'].entries()) {
          made.push(await newDestination(w.manager, { name, is_active: i % 2 === 0 }));
        }
        const all = await listAll(w.manager, '/api/destinations', { limit: 4, with_total: true });
        expect(all.rows).toEqual([...made].reverse());
        expect(all.totals).toEqual([6, 6]);
        expect(
          (await listAll(w.manager, '/api/destinations', { limit: 4, sort: 'name' })).rows.map((r) => r.name),
        ).toEqual(['Ads', 'Email', 'Kafka', 'S3 bucket', 'SFTP', 'Webhook']);
        expect((await listAll(w.manager, '/api/destinations', { limit: 4, sort: '-created_at' })).rows).toEqual(
          [...made].reverse(),
        );
        const active = await dataOf(w.manager.get('/api/destinations', { is_active: true }));
        expect(active.map((r: Row) => r.name)).toEqual(['SFTP', 'Webhook', 'Kafka']);
        const inactive = await dataOf(w.manager.get('/api/destinations', { is_active: '0', q: 's' }));
        expect(inactive.map((r: Row) => r.name)).toEqual(['Ads', 'S3 bucket']);
        for (const bad of [{ is_active: 'maybe' }, { sort: 'destination_type' }, { limit: 500 }] as Query[]) {
          expect({ bad, status: (await w.manager.get('/api/destinations', bad)).status }).toEqual({ bad, status: 422 });
        }
      });
    });
  });

  describe('campaign destinations', () => {
    describe('addCampaignDestination, listCampaignDestinations, removeCampaignDestination: every route of campaign destinations', () => {
      it('configures destinations for a campaign, lists them with the destination inside, and removes them', async () => {
        const campaign = await newCampaign(api);
        const group = await newTreatmentGroup(api, campaign.id);
        const destination = await newDestination(api, { connection_details: CONNECTION });
        const path = `/api/campaigns/${campaign.id}/destinations`;
        expect(await dataOf(api.get(path))).toEqual([]);

        const link = await created(
          api.post(path, linkBody(destination.id, { treatment_group_id: String(group.id), id: 1, campaign_id: 2 })),
        );
        expect(link).toEqual({
          id: expect.any(Number),
          tenant_id: a.tenantId,
          campaign_id: campaign.id,
          destination_id: destination.id,
          treatment_group_id: group.id,
          attribute_mapping: MAPPING,
          is_active: true,
          // Stored as sent; the mapping names no known source, and the destination cannot deliver.
          deliverable: false,
          problems: expect.arrayContaining([
            { field: 'attribute_mapping.email', message: expect.stringMatching(/^Unknown source "contact_email"/) },
            { field: 'destination.connection_details.from', message: 'The from field is required.' },
          ]),
          destination,
          created_at: ISO,
          updated_at: ISO,
        });
        // A digit-string destination id; no treatment group; is_active as "0".
        const plain = await created(
          api.post(path, linkBody(String(destination.id), { treatment_group_id: null, is_active: '0' })),
        );
        expect(plain).toMatchObject({ destination_id: destination.id, treatment_group_id: null, is_active: false });
        const other = await newDestination(api, { is_active: false });
        const third = await created(api.post(path, linkBody(other.id, { attribute_mapping: '[]' })));
        expect(third).toMatchObject({ treatment_group_id: null, is_active: true, attribute_mapping: '[]' });
        expect(third.destination).toEqual(other);

        const list = await api.get(path);
        expect(list.status).toBe(200);
        expect(list.body.data).toEqual([third, plain, link]);
        expect(list.body.meta).toEqual({ limit: 25, next_cursor: null, has_more: false });
        const paged = await listAll(api, path, { limit: 2, with_total: true, sort: 'id' });
        expect(paged.rows).toEqual([link, plain, third]);
        expect(paged.totals).toEqual([3, 3]);

        // The embedded destination is the current one.
        const renamed = await dataOf(
          api.put(`/api/destinations/${destination.id}`, destinationBody({ name: 'Renamed ESP' })),
        );
        const relisted = await dataOf(api.get(path));
        expect(relisted.map((r: Row) => r.destination)).toEqual([other, renamed, renamed]);

        const removed = await api.delete(`/api/campaign-destinations/${plain.id}`);
        expect(removed.status).toBe(200);
        expect(removed.body).toEqual({ code: 200, message: expect.any(String), data: null });
        expect((await api.delete(`/api/campaign-destinations/${plain.id}`)).status).toBe(404);
        expect((await dataOf(api.get(path))).map((r: Row) => r.id)).toEqual([third.id, link.id]);
        expect(await dataOf(api.get(`/api/destinations/${destination.id}`))).toEqual(renamed);
      });
    });

    describe('addCampaignDestination: POST /api/campaigns/{campaign_id}/destinations', () => {
      it('answers 422 on the right key for bad references and fields, writing nothing', async () => {
        const campaign = await newCampaign(api);
        const sibling = await newCampaign(api);
        const ownGroup = await newTreatmentGroup(api, campaign.id);
        const siblingGroup = await newTreatmentGroup(api, sibling.id);
        const destination = await newDestination(api);
        const foreign = await newDestination(b.manager);
        const foreignCampaign = await newCampaign(b.manager);
        const foreignGroup = await newTreatmentGroup(b.manager, foreignCampaign.id);
        const path = `/api/campaigns/${campaign.id}/destinations`;
        const existing = await created(api.post(path, linkBody(destination.id, { treatment_group_id: ownGroup.id })));
        const valid = linkBody(destination.id);
        const cases: [string, Body, string][] = [
          ['destination missing', { ...valid, destination_id: undefined }, 'destination_id'],
          ['destination null', { ...valid, destination_id: null }, 'destination_id'],
          ['destination unknown', { ...valid, destination_id: 999999999 }, 'destination_id'],
          ['destination of another tenant', { ...valid, destination_id: foreign.id }, 'destination_id'],
          ['destination not an id', { ...valid, destination_id: 'esp' }, 'destination_id'],
          ['destination zero', { ...valid, destination_id: '0' }, 'destination_id'],
          ['group of another campaign', { ...valid, treatment_group_id: siblingGroup.id }, 'treatment_group_id'],
          ['group of another tenant', { ...valid, treatment_group_id: foreignGroup.id }, 'treatment_group_id'],
          ['group unknown', { ...valid, treatment_group_id: 999999999 }, 'treatment_group_id'],
          ['group not an id', { ...valid, treatment_group_id: 'control' }, 'treatment_group_id'],
          ['group negative', { ...valid, treatment_group_id: -3 }, 'treatment_group_id'],
          ['mapping missing', { ...valid, attribute_mapping: undefined }, 'attribute_mapping'],
          ['mapping null', { ...valid, attribute_mapping: null }, 'attribute_mapping'],
          ['mapping invalid JSON', { ...valid, attribute_mapping: '{"email":contact_email}' }, 'attribute_mapping'],
          ['mapping an object', { ...valid, attribute_mapping: { email: 'contact_email' } }, 'attribute_mapping'],
          ['is_active yes', { ...valid, is_active: 'yes' }, 'is_active'],
          ['is_active null', { ...valid, is_active: null }, 'is_active'],
        ];
        for (const [name, body, key] of cases) {
          const res = await api.post(path, body);
          expect({ name, ...outcome(res) }).toEqual({ name, ...invalidOn(key) });
        }
        expect(await dataOf(api.get(path))).toEqual([existing]);
        expect(await dataOf(api.get(`/api/campaigns/${sibling.id}/destinations`))).toEqual([]);
        // The sibling's group is fine for the sibling.
        await created(
          api.post(
            `/api/campaigns/${sibling.id}/destinations`,
            linkBody(destination.id, { treatment_group_id: siblingGroup.id }),
          ),
        );
      });
    });
  });

  describe('addCampaignDestination, listCampaignDestinations: deliverable and problems of an association', () => {
    it("reports the mapping's problems, then its destination's under destination., a switched-off destination too", async () => {
      const campaign = await newCampaign(api);
      const path = `/api/campaigns/${campaign.id}/destinations`;
      const destination = await newDestination(api, {
        destination_type: 'file',
        connection_details: '{"format":"csv"}',
      });
      expect(destination).toMatchObject({ deliverable: true, problems: [] });
      const good = await created(api.post(path, linkBody(destination.id, { attribute_mapping: '{"email":"email"}' })));
      expect(good).toMatchObject({ deliverable: true, problems: [] });
      const bad = await created(
        api.post(path, linkBody(destination.id, { attribute_mapping: '{"a":"nope","b":{"template":"{% if %}"}}' })),
      );
      expect((bad.problems as Row[]).map((p) => p.field)).toEqual(['attribute_mapping.a', 'attribute_mapping.b']);
      // The destination switched off, then made undeliverable: every association says so.
      const body = {
        name: destination.name,
        destination_type: 'file',
        connection_details: '{"format":"xml"}',
        is_active: false,
      };
      expect((await api.put(`/api/destinations/${destination.id}`, body)).status).toBe(200);
      const links = await dataOf(api.get(path, { sort: 'id' }));
      expect(links.map((l: Row) => [l.deliverable, (l.problems as Row[]).map((p) => p.field)])).toEqual([
        [false, ['destination.is_active', 'destination.connection_details.format']],
        [
          false,
          [
            'attribute_mapping.a',
            'attribute_mapping.b',
            'destination.is_active',
            'destination.connection_details.format',
          ],
        ],
      ]);
    });
  });

  describe('deleting', () => {
    describe('deleteDestination: DELETE /api/destinations/{id}', () => {
      it('refuses to delete a destination a campaign uses (409 naming it)', async () => {
        const campaign = await newCampaign(api);
        const destination = await newDestination(api);
        const link = await created(api.post(`/api/campaigns/${campaign.id}/destinations`, linkBody(destination.id)));
        const refused = await api.delete(`/api/destinations/${destination.id}`);
        expect(refused.status).toBe(409);
        expect(refused.headers['cache-control']).toBe('no-cache, private');
        expect(refused.body).toEqual({ message: expect.stringMatching(/campaign/) });
        expect(await dataOf(api.get(`/api/destinations/${destination.id}`))).toEqual(destination);
        expect(await dataOf(api.get(`/api/campaigns/${campaign.id}/destinations`))).toEqual([link]);

        expect((await api.delete(`/api/campaign-destinations/${link.id}`)).status).toBe(200);
        expect((await api.delete(`/api/destinations/${destination.id}`)).status).toBe(200);
      });
    });

    describe('deleteTreatmentGroup: DELETE /api/treatment-groups/{id}', () => {
      it('keeps the associations of a deleted treatment group, with treatment_group_id null', async () => {
        const campaign = await newCampaign(api);
        const doomed = await newTreatmentGroup(api, campaign.id);
        const kept = await newTreatmentGroup(api, campaign.id);
        const destination = await newDestination(api);
        const path = `/api/campaigns/${campaign.id}/destinations`;
        const first = await created(api.post(path, linkBody(destination.id, { treatment_group_id: doomed.id })));
        const second = await created(api.post(path, linkBody(destination.id, { treatment_group_id: doomed.id })));
        const third = await created(api.post(path, linkBody(destination.id, { treatment_group_id: kept.id })));

        expect((await api.delete(`/api/treatment-groups/${doomed.id}`)).status).toBe(200);
        expect((await api.get(`/api/treatment-groups/${doomed.id}`)).status).toBe(404);
        const list = await dataOf(api.get(path, { sort: 'id' }));
        expect(list).toEqual([
          { ...first, treatment_group_id: null, updated_at: ISO },
          { ...second, treatment_group_id: null, updated_at: ISO },
          third,
        ]);
      });
    });

    describe('deleteCampaign: DELETE /api/campaigns/{id}', () => {
      it('removes the destination links of a deleted campaign, freeing the destination', async () => {
        const campaign = await newCampaign(api);
        const group = await newTreatmentGroup(api, campaign.id);
        const destination = await newDestination(api);
        const other = await newCampaign(api);
        const link = await created(
          api.post(
            `/api/campaigns/${campaign.id}/destinations`,
            linkBody(destination.id, { treatment_group_id: group.id }),
          ),
        );
        const otherLink = await created(api.post(`/api/campaigns/${other.id}/destinations`, linkBody(destination.id)));

        expect((await api.delete(`/api/campaigns/${campaign.id}`)).status).toBe(200);
        expect((await api.get(`/api/campaigns/${campaign.id}/destinations`)).status).toBe(404);
        expect((await api.delete(`/api/campaign-destinations/${link.id}`)).status).toBe(404);
        expect(await dataOf(api.get(`/api/campaigns/${other.id}/destinations`))).toEqual([otherLink]);
        // Still used by the other campaign.
        expect((await api.delete(`/api/destinations/${destination.id}`)).status).toBe(409);
        expect((await api.delete(`/api/campaigns/${other.id}`)).status).toBe(200);
        expect((await api.delete(`/api/campaign-destinations/${otherLink.id}`)).status).toBe(404);
        expect((await api.delete(`/api/destinations/${destination.id}`)).status).toBe(200);
      });
    });
  });

  describe('not found and other tenants', () => {
    it('answers 404 for unknown, malformed and other-tenant ids on every route', async () => {
      const campaign = await newCampaign(api);
      const destination = await newDestination(api);
      const link = await created(api.post(`/api/campaigns/${campaign.id}/destinations`, linkBody(destination.id)));
      const theirCampaign = await newCampaign(b.manager);
      const theirDestination = await newDestination(b.manager);
      const theirLink = await created(
        b.manager.post(`/api/campaigns/${theirCampaign.id}/destinations`, linkBody(theirDestination.id)),
      );

      const routes = (ids: { destination: string; campaign: string; link: string }): [string, string, Body?][] => [
        ['get', `/api/destinations/${ids.destination}`],
        ['put', `/api/destinations/${ids.destination}`, destinationBody()],
        ['delete', `/api/destinations/${ids.destination}`],
        ['get', `/api/campaigns/${ids.campaign}/destinations`],
        ['post', `/api/campaigns/${ids.campaign}/destinations`, linkBody(destination.id)],
        ['delete', `/api/campaign-destinations/${ids.link}`],
      ];
      const attempts = [
        ...MISSING_IDS.map((id) => ({ destination: id, campaign: id, link: id })),
        {
          destination: String(theirDestination.id),
          campaign: String(theirCampaign.id),
          link: String(theirLink.id),
        },
      ];
      for (const ids of attempts) {
        for (const [method, path, body] of routes(ids)) {
          const res = await (method === 'get' || method === 'delete'
            ? api[method](path)
            : api[method as 'post' | 'put'](path, body));
          expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
          expect(res.body).toEqual({ message: expect.any(String) });
        }
      }
      expect(await dataOf(api.get(`/api/campaigns/${campaign.id}/destinations`))).toEqual([link]);
      expect(await dataOf(b.manager.get(`/api/campaigns/${theirCampaign.id}/destinations`))).toEqual([theirLink]);
      expect(await dataOf(b.manager.get(`/api/destinations/${theirDestination.id}`))).toEqual(theirDestination);
    });
  });

  describe('permissions', () => {
    it('lets a viewer read everything and write nothing (403)', async () => {
      const campaign = await newCampaign(api);
      const destination = await newDestination(api);
      const spare = await newDestination(api);
      const link = await created(api.post(`/api/campaigns/${campaign.id}/destinations`, linkBody(destination.id)));
      const viewer = a.viewer;
      expect(await dataOf(viewer.get(`/api/destinations/${destination.id}`))).toEqual(destination);
      expect(await dataOf(viewer.get(`/api/campaigns/${campaign.id}/destinations`))).toEqual([link]);
      expect((await viewer.get('/api/destinations')).status).toBe(200);

      const writes: [string, string, Body?][] = [
        ['post', '/api/destinations', destinationBody()],
        ['put', `/api/destinations/${destination.id}`, destinationBody()],
        ['delete', `/api/destinations/${spare.id}`],
        ['post', `/api/campaigns/${campaign.id}/destinations`, linkBody(spare.id)],
        ['delete', `/api/campaign-destinations/${link.id}`],
      ];
      for (const [method, path, body] of writes) {
        const res = await (method === 'delete' ? viewer.delete(path) : viewer[method as 'post' | 'put'](path, body));
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
        expect(res.body).toEqual({ message: 'This action is unauthorized.' });
      }
      expect(await dataOf(api.get(`/api/destinations/${destination.id}`))).toEqual(destination);
      expect(await dataOf(api.get(`/api/destinations/${spare.id}`))).toEqual(spare);
      expect(await dataOf(api.get(`/api/campaigns/${campaign.id}/destinations`))).toEqual([link]);
    });
  });
});
