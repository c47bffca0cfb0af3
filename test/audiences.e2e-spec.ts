import { DataSource } from 'typeorm';
import { login } from './support/auth.js';
import {
  ISO,
  MISSING_IDS,
  audienceBody,
  created,
  dataOf,
  invalidOn,
  listAll,
  newAudience,
  newCampaign,
  newCampaignIn,
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

const SEGMENT = '{ "min_orders" : 2, "tags": ["vip", "€", "🎯"] ,"nested":{"a":[1, 2.50, 1e3]}}';
const DEFINITION = '[ {"last_order_days":30} , null ]';

const subAudienceBody = (audienceId: number | string, overrides: Body = {}): Body => ({
  audience_id: audienceId,
  name: 'Recent buyers in NL',
  description: 'Bought in the last month',
  segment_definition: DEFINITION,
  ...overrides,
});

describe('audiences, sub-audiences and campaign audiences', () => {
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

  describe('audiences', () => {
    describe('createAudience, getAudience, listAudiences, updateAudience, deleteAudience: every route of /api/audiences', () => {
      it('creates, reads, lists, updates and deletes an audience with its rules', async () => {
        const res = await api.post('/api/audiences', {
          name: 'Returning buyers',
          description: 'Two orders or more',
          rules: [
            { rule_type: 'country', rule_value: 'NL', id: 77, extra: 'ignored' },
            { rule_type: 'orders', rule_value: '{"min":2}' },
          ],
          id: 12345,
          tenant_id: b.tenantId,
          created_at: '2000-01-01T00:00:00Z',
          unknown: 'ignored',
        });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ code: 201, message: expect.any(String) });
        const audience = res.body.data;
        expect(audience).toEqual({
          id: expect.any(Number),
          tenant_id: a.tenantId,
          name: 'Returning buyers',
          description: 'Two orders or more',
          match: 'all',
          rules: [
            { id: expect.any(Number), rule_type: 'country', rule_value: 'NL', field: null, operator: null },
            { id: expect.any(Number), rule_type: 'orders', rule_value: '{"min":2}', field: null, operator: null },
          ],
          created_at: ISO,
          updated_at: ISO,
        });
        expect(audience.id).not.toBe(12345);
        expect(audience.created_at).not.toMatch(/^2000/);

        expect(await dataOf(api.get(`/api/audiences/${audience.id}`))).toEqual(audience);
        const list = await api.get('/api/audiences', { q: 'Returning' });
        expect(list.status).toBe(200);
        expect(list.body.data).toEqual([audience]);
        expect(list.body.meta).toEqual({ limit: 25, next_cursor: null, has_more: false });

        // Without `rules` the rules stay; null clears the description.
        const renamed = await dataOf(
          api.put(`/api/audiences/${audience.id}`, { name: 'Loyal buyers', description: null }),
        );
        expect(renamed).toEqual({ ...audience, name: 'Loyal buyers', description: null, updated_at: ISO });
        // Left out, the description stays as it is.
        const again = await dataOf(api.put(`/api/audiences/${audience.id}`, { name: 'Loyal buyers' }));
        expect(again.rules).toEqual(audience.rules);
        expect(again.description).toBeNull();

        // `rules` replaces the whole set: new ids, the old rules gone.
        const replaced = await dataOf(
          api.put(`/api/audiences/${audience.id}`, {
            name: 'Loyal buyers',
            rules: [{ rule_type: 'tier', rule_value: 'gold' }],
          }),
        );
        expect(replaced.rules).toEqual([
          { id: expect.any(Number), rule_type: 'tier', rule_value: 'gold', field: null, operator: null },
        ]);
        const oldIds = (audience.rules as Row[]).map((r) => r.id);
        expect(oldIds).not.toContain((replaced.rules as Row[])[0].id);
        expect((await dataOf(api.get(`/api/audiences/${audience.id}`))).rules).toEqual(replaced.rules);

        // An empty array empties the set.
        const emptied = await dataOf(api.put(`/api/audiences/${audience.id}`, { name: 'Loyal buyers', rules: [] }));
        expect(emptied.rules).toEqual([]);
        expect((await dataOf(api.get(`/api/audiences/${audience.id}`))).rules).toEqual([]);

        const deleted = await api.delete(`/api/audiences/${audience.id}`);
        expect(deleted.status).toBe(200);
        expect(deleted.body).toEqual({ code: 200, message: expect.any(String), data: null });
        expect((await api.get(`/api/audiences/${audience.id}`)).status).toBe(404);
        expect((await api.delete(`/api/audiences/${audience.id}`)).status).toBe(404);
      });
    });

    describe('createAudience: POST /api/audiences', () => {
      it('accepts an audience without rules, and with rule values of 255 characters', async () => {
        const bare = await created(api.post('/api/audiences', { name: 'Bare' }));
        expect(bare).toMatchObject({ name: 'Bare', description: null, rules: [] });
        const long = await created(
          api.post('/api/audiences', {
            name: 'n'.repeat(255),
            rules: [{ rule_type: 't'.repeat(255), rule_value: 'v'.repeat(255) }],
          }),
        );
        expect(long.name).toHaveLength(255);
        expect(long.rules).toEqual([
          {
            id: expect.any(Number),
            rule_type: 't'.repeat(255),
            rule_value: 'v'.repeat(255),
            field: null,
            operator: null,
          },
        ]);
        // Characters, not bytes.
        const unicode = await created(api.post('/api/audiences', { name: 'é'.repeat(255) }));
        expect(unicode.name).toBe('é'.repeat(255));
        const emoji = await created(
          api.post('/api/audiences', {
            name: '🎯'.repeat(255),
            rules: [{ rule_type: '🎯', rule_value: '🎯'.repeat(255) }],
          }),
        );
        expect(emoji).toMatchObject({
          name: '🎯'.repeat(255),
          rules: [{ rule_type: '🎯', rule_value: '🎯'.repeat(255) }],
        });
        expect(await dataOf(api.get(`/api/audiences/${emoji.id}`))).toEqual(emoji);
      });
    });

    describe('createAudience, updateAudience: POST /api/audiences, PUT /api/audiences/{id}', () => {
      it('accepts up to 1000 rules and refuses more', async () => {
        const rules = Array.from({ length: 1000 }, (_, i) => ({ rule_type: 'zip', rule_value: String(10000 + i) }));
        const audience = await created(api.post('/api/audiences', { name: 'Many rules', rules }));
        expect((audience.rules as Row[]).map((r) => r.rule_value)).toEqual(rules.map((r) => r.rule_value));
        const more = await api.put(`/api/audiences/${audience.id}`, {
          name: 'Too many',
          rules: [...rules, { rule_type: 'zip', rule_value: '1' }],
        });
        expect(outcome(more)).toEqual(invalidOn('rules'));
        expect(await dataOf(api.get(`/api/audiences/${audience.id}`))).toEqual(audience);
      });

      it('answers 422 on the right key for every field rule, on create and update, writing nothing', async () => {
        const existing = await newAudience(api, { name: 'Unchanged audience' });
        const rule = { rule_type: 'country', rule_value: 'NL' };
        const cases: [string, Body, string][] = [
          ['name missing', { rules: [rule] }, 'name'],
          ['name null', { name: null }, 'name'],
          ['name empty', { name: '' }, 'name'],
          ['name 256', { name: 'x'.repeat(256) }, 'name'],
          ['name 256 emoji', { name: '🎯'.repeat(256) }, 'name'],
          ['name not a string', { name: 42 }, 'name'],
          ['description not a string', { name: 'A', description: { a: 1 } }, 'description'],
          ['rules not an array', { name: 'A', rules: 'country=NL' }, 'rules'],
          ['rules an object', { name: 'A', rules: { rule_type: 'country', rule_value: 'NL' } }, 'rules'],
          ['rules null', { name: 'A', rules: null }, 'rules'],
          ['rule not an object', { name: 'A', rules: ['country'] }, 'rules'],
          ['rule_type missing', { name: 'A', rules: [{ rule_value: 'NL' }] }, 'rules.0.rule_type'],
          ['rule_value missing', { name: 'A', rules: [rule, { rule_type: 'x' }] }, 'rules.1.rule_value'],
          ['rule_value null', { name: 'A', rules: [{ rule_type: 'x', rule_value: null }] }, 'rules.0.rule_value'],
          [
            'rule_value 256',
            { name: 'A', rules: [{ rule_type: 'x', rule_value: 'v'.repeat(256) }] },
            'rules.0.rule_value',
          ],
          [
            'rule_type 256',
            { name: 'A', rules: [rule, rule, { rule_type: 't'.repeat(256), rule_value: 'x' }] },
            'rules.2.rule_type',
          ],
          ['rule_type not a string', { name: 'A', rules: [{ rule_type: 5, rule_value: 'NL' }] }, 'rules.0.rule_type'],
          [
            'rule_value not a string',
            { name: 'A', rules: [{ rule_type: 'x', rule_value: true }] },
            'rules.0.rule_value',
          ],
        ];
        const before = await snapshot(api, '/api/audiences');
        for (const [name, body, key] of cases) {
          const post = await api.post('/api/audiences', body);
          expect({ name, method: 'POST', ...outcome(post) }).toEqual({ name, method: 'POST', ...invalidOn(key) });
          expect(post.body.message).toEqual(expect.any(String));
          const put = await api.put(`/api/audiences/${existing.id}`, body);
          expect({ name, method: 'PUT', ...outcome(put) }).toEqual({ name, method: 'PUT', ...invalidOn(key) });
        }
        expect(await snapshot(api, '/api/audiences')).toEqual(before);
        expect(await dataOf(api.get(`/api/audiences/${existing.id}`))).toEqual(existing);
      });
    });

    describe('updateAudience: PUT /api/audiences/{id}', () => {
      it('keeps the old rules when a PUT with rules fails', async () => {
        const audience = await newAudience(api);
        const res = await api.put(`/api/audiences/${audience.id}`, {
          name: 'Renamed',
          rules: [{ rule_type: 'a', rule_value: 'b' }, { rule_type: 'a' }],
        });
        expect(outcome(res)).toEqual(invalidOn('rules.1.rule_value'));
        expect(res.body.message).toBe('The rule value field is required.');
        expect(await dataOf(api.get(`/api/audiences/${audience.id}`))).toEqual(audience);
      });

      // A PUT that changed only the rules left updated_at as it was: a client syncing "changed since"
      // missed the change, and on Galera two such PUTs with one If-Match did not conflict on the row.
      it('moves updated_at when a PUT changes only the rules, and not when it changes nothing', async () => {
        const audience = await created(api.post('/api/audiences', audienceBody({ name: 'Rules only' })));
        const backdate = () =>
          t.app
            .get(DataSource)
            .query('UPDATE audiences SET updated_at = ? WHERE id = ?', ['2020-01-01 00:00:00', audience.id]);
        const put = (rules: Body[]) => dataOf(api.put(`/api/audiences/${audience.id}`, { name: 'Rules only', rules }));

        await backdate();
        const same = await put([{ rule_type: 'country', rule_value: 'NL' }]);
        expect(Date.parse(String(same.updated_at))).toBe(Date.parse('2020-01-01T00:00:00Z'));

        const changed = await put([{ rule_type: 'tier', rule_value: 'silver' }]);
        expect(Date.parse(String(changed.updated_at))).toBeGreaterThan(Date.parse('2021-01-01'));
        expect((await dataOf(api.get(`/api/audiences/${audience.id}`))).updated_at).toBe(changed.updated_at);
      });

      it('replaces the rules as a whole under concurrent PUTs (one full set wins, never a mix)', async () => {
        const audience = await newAudience(api, { name: 'Contended' });
        const sets = Array.from({ length: 8 }, (_, i) =>
          Array.from({ length: 3 }, (_, n) => ({ rule_type: `set-${i}`, rule_value: `value-${n}` })),
        );
        const answers = await Promise.all(
          sets.map((rules) => api.put(`/api/audiences/${audience.id}`, { name: 'Contended', rules })),
        );
        expect(answers.map((r) => r.status)).toEqual(sets.map(() => 200));
        const final = (await dataOf(api.get(`/api/audiences/${audience.id}`))).rules as Row[];
        expect(final).toHaveLength(3);
        expect(new Set(final.map((r) => r.rule_type)).size).toBe(1);
      });
    });

    describe('listAudiences: GET /api/audiences', () => {
      it('lists audiences with search, sorts and keyset pages, each with its own rules', async () => {
        const w = await newWorkspace(t, root);
        const names = ['Delta', 'Alpha 50%', 'Charlie', 'Bravo', 'Echo', 'Foxtrot', 'Golf'];
        const made: Row[] = [];
        for (const [i, name] of names.entries()) {
          made.push(
            await created(
              w.manager.post('/api/audiences', {
                name,
                rules: Array.from({ length: i % 3 }, (_, n) => ({ rule_type: `type-${i}`, rule_value: `value-${n}` })),
              }),
            ),
          );
        }
        const all = await listAll(w.manager, '/api/audiences', { limit: 2, with_total: true });
        expect(all.pages).toBe(4);
        expect(all.totals).toEqual([7, 7, 7, 7]);
        expect(all.rows).toEqual([...made].reverse());

        const byName = await listAll(w.manager, '/api/audiences', { limit: 3, sort: 'name' });
        expect(byName.rows.map((r) => r.name)).toEqual([
          'Alpha 50%',
          'Bravo',
          'Charlie',
          'Delta',
          'Echo',
          'Foxtrot',
          'Golf',
        ]);
        const byNameDesc = await listAll(w.manager, '/api/audiences', { limit: 3, sort: '-name' });
        expect(byNameDesc.rows.map((r) => r.name)).toEqual([...byName.rows.map((r) => r.name)].reverse());
        const byCreated = await listAll(w.manager, '/api/audiences', { limit: 3, sort: 'created_at' });
        expect(byCreated.rows.map((r) => r.id)).toEqual(made.map((r) => r.id));

        expect((await dataOf(w.manager.get('/api/audiences', { q: '50%' }))).map((r: Row) => r.name)).toEqual([
          'Alpha 50%',
        ]);
        expect(await dataOf(w.manager.get('/api/audiences', { q: 'o', sort: 'name' }))).toEqual(
          made.filter((r) => /o/i.test(String(r.name))).sort((x, y) => String(x.name).localeCompare(String(y.name))),
        );
        // Another tenant sees none of them.
        expect(await dataOf(b.manager.get('/api/audiences', { q: 'Foxtrot' }))).toEqual([]);

        for (const bad of [{ limit: 0 }, { limit: 101 }, { sort: 'description' }, { cursor: 'nope' }] as Query[]) {
          expect({ bad, status: (await w.manager.get('/api/audiences', bad)).status }).toEqual({ bad, status: 422 });
        }
      });
    });
  });

  describe('campaign audiences', () => {
    describe('addCampaignAudience, listCampaignAudiences, removeCampaignAudience: every route of /api/campaigns/{campaign_id}/audiences', () => {
      it('associates audiences with a campaign, lists them with segment_override, and removes them', async () => {
        const campaign = await newCampaign(api);
        const first = await newAudience(api, {
          rules: [
            { rule_type: 'country', rule_value: 'NL' },
            { rule_type: 'tier', rule_value: 'gold' },
          ],
        });
        const second = await newAudience(api, { rules: [] });
        const path = `/api/campaigns/${campaign.id}/audiences`;
        expect(await dataOf(api.get(path))).toEqual([]);

        const one = await created(api.post(path, { audience_id: first.id, segment_override: SEGMENT }));
        expect(one).toEqual({ ...first, segment_override: SEGMENT });
        // A digit string is an id too; segment_override is optional.
        const two = await created(api.post(path, { audience_id: String(second.id) }));
        expect(two).toEqual({ ...second, segment_override: null });

        const list = await api.get(path);
        expect(list.status).toBe(200);
        expect(list.body.data).toEqual([two, one]);
        expect(list.body.meta).toEqual({ limit: 25, next_cursor: null, has_more: false });
        const paged = await listAll(api, path, { limit: 1, with_total: true });
        expect(paged.rows).toEqual([two, one]);
        expect(paged.totals).toEqual([2, 2]);
        expect((await listAll(api, path, { sort: 'id' })).rows).toEqual([one, two]);

        // segment_override comes back byte for byte, and null is accepted.
        const third = await newAudience(api);
        const nulled = await created(api.post(path, { audience_id: third.id, segment_override: null }));
        expect(nulled.segment_override).toBeNull();

        const removed = await api.delete(`${path}/${first.id}`);
        expect(removed.status).toBe(200);
        expect(removed.body).toEqual({ code: 200, message: expect.any(String), data: null });
        expect((await api.delete(`${path}/${first.id}`)).status).toBe(404);
        expect((await dataOf(api.get(path))).map((r: Row) => r.id)).toEqual([third.id, second.id]);
        // The audience itself stays.
        expect(await dataOf(api.get(`/api/audiences/${first.id}`))).toEqual(first);
        // It may be associated again after removal.
        await created(api.post(path, { audience_id: first.id }));
      });
    });

    describe('addCampaignAudience: POST /api/campaigns/{campaign_id}/audiences', () => {
      it('answers 422 on audience_id or segment_override for bad and duplicate references, writing nothing', async () => {
        const campaign = await newCampaign(api);
        const audience = await newAudience(api);
        const foreign = await newAudience(b.manager);
        const path = `/api/campaigns/${campaign.id}/audiences`;
        const linked = await created(api.post(path, { audience_id: audience.id }));
        const other = await newAudience(api);
        const cases: [string, Body, string][] = [
          ['missing', {}, 'audience_id'],
          ['null', { audience_id: null }, 'audience_id'],
          ['unknown', { audience_id: 999999999 }, 'audience_id'],
          ['unknown digit string', { audience_id: '999999999' }, 'audience_id'],
          ['other tenant', { audience_id: foreign.id }, 'audience_id'],
          ['not an id', { audience_id: 'abc' }, 'audience_id'],
          ['zero', { audience_id: 0 }, 'audience_id'],
          ['negative', { audience_id: -1 }, 'audience_id'],
          ['fraction', { audience_id: 1.5 }, 'audience_id'],
          ['duplicate', { audience_id: audience.id }, 'audience_id'],
          ['duplicate as string', { audience_id: String(audience.id) }, 'audience_id'],
          ['override invalid JSON', { audience_id: other.id, segment_override: '{min_orders: 2}' }, 'segment_override'],
          ['override an object', { audience_id: other.id, segment_override: { min_orders: 2 } }, 'segment_override'],
          ['override a number', { audience_id: other.id, segment_override: 2 }, 'segment_override'],
          ['override empty', { audience_id: other.id, segment_override: '' }, 'segment_override'],
        ];
        for (const [name, body, key] of cases) {
          expect({ name, ...outcome(await api.post(path, body)) }).toEqual({ name, ...invalidOn(key) });
        }
        const duplicate = await api.post(path, { audience_id: audience.id });
        expect(duplicate.body.message).toMatch(/already/);
        expect(await dataOf(api.get(path))).toEqual([{ ...linked }]);
      });

      it('links an audience once when the same association is posted concurrently', async () => {
        const campaign = await newCampaign(api);
        const audience = await newAudience(api);
        const path = `/api/campaigns/${campaign.id}/audiences`;
        const answers = await Promise.all(
          Array.from({ length: 6 }, () => api.post(path, { audience_id: audience.id })),
        );
        expect(answers.map(outcome).sort((x, y) => x.status - y.status)).toEqual([
          { status: 201, keys: [] },
          ...Array.from({ length: 5 }, () => invalidOn('audience_id')),
        ]);
        expect((await dataOf(api.get(path))).map((r: Row) => r.id)).toEqual([audience.id]);
      });
    });
  });

  describe('sub-audiences', () => {
    describe('createSubAudience, getSubAudience, listSubAudiences, updateSubAudience, deleteSubAudience: every route of /api/campaigns/{campaign_id}/sub-audiences and /api/sub-audiences/{id}', () => {
      it('creates, reads, lists, updates and deletes a sub-audience', async () => {
        const campaign = await newCampaign(api);
        const audience = await newAudience(api);
        const otherAudience = await newAudience(api);
        const path = `/api/campaigns/${campaign.id}/sub-audiences`;
        const sub = await created(api.post(path, { ...subAudienceBody(String(audience.id)), id: 5 }));
        expect(sub).toEqual({
          id: expect.any(Number),
          tenant_id: a.tenantId,
          campaign_id: campaign.id,
          audience_id: audience.id,
          name: 'Recent buyers in NL',
          description: 'Bought in the last month',
          segment_definition: DEFINITION,
          created_at: ISO,
          updated_at: ISO,
        });
        expect(await dataOf(api.get(`/api/sub-audiences/${sub.id}`))).toEqual(sub);
        const list = await api.get(path);
        expect(list.body.data).toEqual([sub]);
        expect(list.body.meta).toEqual({ limit: 25, next_cursor: null, has_more: false });

        // The audience is chosen on create only: a PUT ignores audience_id.
        const updated = await dataOf(
          api.put(`/api/sub-audiences/${sub.id}`, {
            audience_id: otherAudience.id,
            campaign_id: 1,
            name: 'Renamed',
            description: null,
            segment_definition: '"just a JSON string"',
          }),
        );
        expect(updated).toEqual({
          ...sub,
          name: 'Renamed',
          description: null,
          segment_definition: '"just a JSON string"',
          updated_at: ISO,
        });
        expect(await dataOf(api.get(`/api/sub-audiences/${sub.id}`))).toEqual(updated);

        const second = await created(
          api.post(path, subAudienceBody(audience.id, { name: 'Another', description: undefined })),
        );
        expect(second.description).toBeNull();
        expect((await dataOf(api.get(path, { sort: 'name' }))).map((r: Row) => r.name)).toEqual(['Another', 'Renamed']);
        expect((await dataOf(api.get(path, { q: 'Anoth' }))).map((r: Row) => r.id)).toEqual([second.id]);

        expect((await api.delete(`/api/sub-audiences/${sub.id}`)).body).toEqual({
          code: 200,
          message: expect.any(String),
          data: null,
        });
        expect((await api.get(`/api/sub-audiences/${sub.id}`)).status).toBe(404);
        expect((await dataOf(api.get(path))).map((r: Row) => r.id)).toEqual([second.id]);
      });
    });

    describe('createSubAudience, updateSubAudience: POST /api/campaigns/{campaign_id}/sub-audiences, PUT /api/sub-audiences/{id}', () => {
      it('answers 422 on the right key for every field rule, on create and update, writing nothing', async () => {
        const campaign = await newCampaign(api);
        const audience = await newAudience(api);
        const foreign = await newAudience(b.manager);
        const path = `/api/campaigns/${campaign.id}/sub-audiences`;
        const existing = await created(api.post(path, subAudienceBody(audience.id)));
        const valid = subAudienceBody(audience.id);
        const fieldCases: [string, Body, string][] = [
          ['name missing', { ...valid, name: undefined }, 'name'],
          ['name null', { ...valid, name: null }, 'name'],
          ['name 256', { ...valid, name: 'x'.repeat(256) }, 'name'],
          ['description a number', { ...valid, description: 7 }, 'description'],
          ['definition missing', { ...valid, segment_definition: undefined }, 'segment_definition'],
          ['definition null', { ...valid, segment_definition: null }, 'segment_definition'],
          ['definition invalid JSON', { ...valid, segment_definition: "{'a':1}" }, 'segment_definition'],
          ['definition trailing text', { ...valid, segment_definition: '{"a":1} x' }, 'segment_definition'],
          ['definition an object', { ...valid, segment_definition: { a: 1 } }, 'segment_definition'],
          ['definition an array', { ...valid, segment_definition: [1] }, 'segment_definition'],
        ];
        const createOnly: [string, Body, string][] = [
          ['audience missing', { ...valid, audience_id: undefined }, 'audience_id'],
          ['audience null', { ...valid, audience_id: null }, 'audience_id'],
          ['audience unknown', { ...valid, audience_id: 999999999 }, 'audience_id'],
          ['audience of another tenant', { ...valid, audience_id: foreign.id }, 'audience_id'],
          ['audience not an id', { ...valid, audience_id: 'first' }, 'audience_id'],
        ];
        for (const [name, body, key] of [...fieldCases, ...createOnly]) {
          expect({ name, ...outcome(await api.post(path, body)) }).toEqual({ name, ...invalidOn(key) });
        }
        for (const [name, body, key] of fieldCases) {
          const put = await api.put(`/api/sub-audiences/${existing.id}`, body);
          expect({ name, ...outcome(put) }).toEqual({ name, ...invalidOn(key) });
        }
        expect(await dataOf(api.get(path))).toEqual([existing]);
        expect(await dataOf(api.get(`/api/sub-audiences/${existing.id}`))).toEqual(existing);
        // An audience of another tenant is ignored on update like any audience_id.
        const ignored = await dataOf(
          api.put(`/api/sub-audiences/${existing.id}`, { ...valid, audience_id: foreign.id }),
        );
        expect(ignored.audience_id).toBe(audience.id);
      });
    });
  });

  describe('deleting', () => {
    describe('deleteAudience: DELETE /api/audiences/{id}', () => {
      it('refuses to delete an audience used by a campaign or a sub-audience (409 naming it)', async () => {
        const campaign = await newCampaign(api);
        const linked = await newAudience(api);
        const segmented = await newAudience(api);
        const both = await newAudience(api);
        await created(api.post(`/api/campaigns/${campaign.id}/audiences`, { audience_id: linked.id }));
        const sub = await created(
          api.post(`/api/campaigns/${campaign.id}/sub-audiences`, subAudienceBody(segmented.id)),
        );
        await created(api.post(`/api/campaigns/${campaign.id}/audiences`, { audience_id: both.id }));
        await created(api.post(`/api/campaigns/${campaign.id}/sub-audiences`, subAudienceBody(both.id)));

        const byCampaign = await api.delete(`/api/audiences/${linked.id}`);
        expect(byCampaign.status).toBe(409);
        expect(byCampaign.headers['cache-control']).toBe('no-cache, private');
        expect(byCampaign.body).toEqual({ message: expect.stringMatching(/campaign/) });
        expect(byCampaign.body.message).not.toMatch(/sub-audience/);

        const bySub = await api.delete(`/api/audiences/${segmented.id}`);
        expect(bySub.status).toBe(409);
        expect(bySub.body).toEqual({ message: expect.stringMatching(/sub-audience/) });

        const byBoth = await api.delete(`/api/audiences/${both.id}`);
        expect(byBoth.status).toBe(409);
        expect(byBoth.body.message).toMatch(/campaign/);
        expect(byBoth.body.message).toMatch(/sub-audience/);

        // Nothing was deleted, rules included.
        expect(await dataOf(api.get(`/api/audiences/${linked.id}`))).toEqual(linked);
        expect(await dataOf(api.get(`/api/audiences/${segmented.id}`))).toEqual(segmented);

        // Once nothing uses them, they can go.
        expect((await api.delete(`/api/campaigns/${campaign.id}/audiences/${linked.id}`)).status).toBe(200);
        expect((await api.delete(`/api/audiences/${linked.id}`)).status).toBe(200);
        expect((await api.delete(`/api/sub-audiences/${sub.id}`)).status).toBe(200);
        expect((await api.delete(`/api/audiences/${segmented.id}`)).status).toBe(200);
      });
    });

    describe('deleteCampaign: DELETE /api/campaigns/{id}', () => {
      it('removes the sub-audiences and audience links of a deleted campaign', async () => {
        const program = await created(
          api.post('/api/marketing-programs', {
            name: 'Program',
            description: 'd',
            status: 'draft',
            start_date: '2026-01-01',
            end_date: '2026-12-31',
            budget: 0,
            goal: 'g',
          }),
        );
        const first = await newCampaignIn(api, program.id);
        const second = await newCampaignIn(api, program.id);
        const audience = await newAudience(api);
        await created(api.post(`/api/campaigns/${first.id}/audiences`, { audience_id: audience.id }));
        const sub = await created(api.post(`/api/campaigns/${first.id}/sub-audiences`, subAudienceBody(audience.id)));
        const kept = await created(api.post(`/api/campaigns/${second.id}/sub-audiences`, subAudienceBody(audience.id)));
        await created(api.post(`/api/campaigns/${second.id}/audiences`, { audience_id: audience.id }));

        expect((await api.delete(`/api/campaigns/${first.id}`)).status).toBe(200);
        expect((await api.get(`/api/sub-audiences/${sub.id}`)).status).toBe(404);
        expect((await api.get(`/api/campaigns/${first.id}/audiences`)).status).toBe(404);
        expect((await api.get(`/api/campaigns/${first.id}/sub-audiences`)).status).toBe(404);
        // The other campaign keeps its own.
        expect(await dataOf(api.get(`/api/sub-audiences/${kept.id}`))).toEqual(kept);
        expect((await dataOf(api.get(`/api/campaigns/${second.id}/audiences`))).map((r: Row) => r.id)).toEqual([
          audience.id,
        ]);

        // Still used by the second campaign (one link, one sub-audience).
        const refused = await api.delete(`/api/audiences/${audience.id}`);
        expect(refused.status).toBe(409);
        expect(refused.body.message).toMatch(/1 campaign\b/);
        expect(refused.body.message).toMatch(/1 sub-audience\b/);

        // A new campaign uses the same audience; once no campaign uses it, it can be deleted.
        const third = await newCampaignIn(api, program.id);
        await created(api.post(`/api/campaigns/${third.id}/audiences`, { audience_id: audience.id }));
        expect((await api.delete(`/api/campaigns/${second.id}`)).status).toBe(200);
        expect((await api.get(`/api/sub-audiences/${kept.id}`)).status).toBe(404);
        expect((await api.delete(`/api/audiences/${audience.id}`)).status).toBe(409);
        expect((await api.delete(`/api/campaigns/${third.id}`)).status).toBe(200);
        expect((await api.delete(`/api/audiences/${audience.id}`)).status).toBe(200);
        expect((await api.get(`/api/audiences/${audience.id}`)).status).toBe(404);
      });
    });
  });

  describe('not found and other tenants', () => {
    it('answers 404 for unknown, malformed and other-tenant ids on every route', async () => {
      const campaign = await newCampaign(api);
      const audience = await newAudience(api);
      const sub = await created(api.post(`/api/campaigns/${campaign.id}/sub-audiences`, subAudienceBody(audience.id)));
      await created(api.post(`/api/campaigns/${campaign.id}/audiences`, { audience_id: audience.id }));
      const unlinked = await newAudience(api);
      // Records of tenant B, reached by tenant A's manager.
      const theirCampaign = await newCampaign(b.manager);
      const theirAudience = await newAudience(b.manager);
      const theirSub = await created(
        b.manager.post(`/api/campaigns/${theirCampaign.id}/sub-audiences`, subAudienceBody(theirAudience.id)),
      );
      await created(b.manager.post(`/api/campaigns/${theirCampaign.id}/audiences`, { audience_id: theirAudience.id }));

      const routes = (ids: { audience: string; campaign: string; sub: string }): [string, string, Body?][] => [
        ['get', `/api/audiences/${ids.audience}`],
        ['put', `/api/audiences/${ids.audience}`, audienceBody()],
        ['delete', `/api/audiences/${ids.audience}`],
        ['get', `/api/campaigns/${ids.campaign}/audiences`],
        ['post', `/api/campaigns/${ids.campaign}/audiences`, { audience_id: unlinked.id }],
        ['delete', `/api/campaigns/${ids.campaign}/audiences/${audience.id}`],
        ['delete', `/api/campaigns/${campaign.id}/audiences/${ids.audience}`],
        ['get', `/api/campaigns/${ids.campaign}/sub-audiences`],
        ['post', `/api/campaigns/${ids.campaign}/sub-audiences`, subAudienceBody(audience.id)],
        ['get', `/api/sub-audiences/${ids.sub}`],
        ['put', `/api/sub-audiences/${ids.sub}`, subAudienceBody(audience.id)],
        ['delete', `/api/sub-audiences/${ids.sub}`],
      ];
      const attempts = [
        ...MISSING_IDS.map((id) => ({ audience: id, campaign: id, sub: id })),
        { audience: String(theirAudience.id), campaign: String(theirCampaign.id), sub: String(theirSub.id) },
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
      // The audience exists but is not associated with the campaign.
      const notLinked = await api.delete(`/api/campaigns/${campaign.id}/audiences/${unlinked.id}`);
      expect(notLinked.status).toBe(404);

      // Nothing of either tenant changed.
      expect(await dataOf(api.get(`/api/sub-audiences/${sub.id}`))).toEqual(sub);
      expect((await dataOf(api.get(`/api/campaigns/${campaign.id}/audiences`))).map((r: Row) => r.id)).toEqual([
        audience.id,
      ]);
      expect(await dataOf(b.manager.get(`/api/sub-audiences/${theirSub.id}`))).toEqual(theirSub);
      expect(await dataOf(b.manager.get(`/api/audiences/${theirAudience.id}`))).toEqual(theirAudience);
      expect(
        (await dataOf(b.manager.get(`/api/campaigns/${theirCampaign.id}/audiences`))).map((r: Row) => r.id),
      ).toEqual([theirAudience.id]);
    });
  });

  describe('permissions', () => {
    it('lets a viewer read everything and write nothing (403)', async () => {
      const campaign = await newCampaign(api);
      const audience = await newAudience(api);
      const spare = await newAudience(api);
      const sub = await created(api.post(`/api/campaigns/${campaign.id}/sub-audiences`, subAudienceBody(audience.id)));
      await created(api.post(`/api/campaigns/${campaign.id}/audiences`, { audience_id: audience.id }));
      const viewer = a.viewer;

      for (const path of [
        '/api/audiences',
        `/api/audiences/${audience.id}`,
        `/api/campaigns/${campaign.id}/audiences`,
        `/api/campaigns/${campaign.id}/sub-audiences`,
        `/api/sub-audiences/${sub.id}`,
      ]) {
        expect({ path, status: (await viewer.get(path)).status }).toEqual({ path, status: 200 });
      }
      const writes: [string, string, Body?][] = [
        ['post', '/api/audiences', audienceBody()],
        ['put', `/api/audiences/${audience.id}`, audienceBody()],
        ['delete', `/api/audiences/${spare.id}`],
        ['post', `/api/campaigns/${campaign.id}/audiences`, { audience_id: spare.id }],
        ['delete', `/api/campaigns/${campaign.id}/audiences/${audience.id}`],
        ['post', `/api/campaigns/${campaign.id}/sub-audiences`, subAudienceBody(audience.id)],
        ['put', `/api/sub-audiences/${sub.id}`, subAudienceBody(audience.id, { name: 'x' })],
        ['delete', `/api/sub-audiences/${sub.id}`],
      ];
      for (const [method, path, body] of writes) {
        const res = await (method === 'delete' ? viewer.delete(path) : viewer[method as 'post' | 'put'](path, body));
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
        expect(res.body).toEqual({ message: 'This action is unauthorized.' });
      }
      expect(await dataOf(api.get(`/api/audiences/${audience.id}`))).toEqual(audience);
      expect(await dataOf(api.get(`/api/sub-audiences/${sub.id}`))).toEqual(sub);
      expect(await dataOf(api.get(`/api/audiences/${spare.id}`))).toEqual(spare);
      expect((await dataOf(api.get(`/api/campaigns/${campaign.id}/audiences`))).map((r: Row) => r.id)).toEqual([
        audience.id,
      ]);
      // Without a token: 401.
      expect((await t.http.get('/api/audiences')).status).toBe(401);
    });
  });
});
