import { login } from './support/auth.js';
import {
  created,
  dataOf,
  invalidOn,
  newAudience,
  newCampaign,
  newWorkspace,
  outcome,
  snapshot,
  startApp,
  type Body,
  type Client,
} from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';

/**
 * The rule grammar on the API: rules with `field` and `operator`, audiences with
 * `match`, condition trees in segment_definition and segment_override, and their 422s.
 * What the rules select is in audience-members.e2e-spec.ts.
 */
describe('audience rule grammar on the API', () => {
  let t: TestApp;
  let api: Client;

  beforeAll(async () => {
    t = await startApp();
    api = (await newWorkspace(t, await login(t))).manager;
  });
  afterAll(() => t.close());

  const rule = (field: unknown, operator: unknown, rule_value: unknown = 'x', rule_type = 'segment'): Body => ({
    rule_type,
    rule_value,
    field,
    operator,
  });

  describe('createAudience, updateAudience, previewAudience: rules with field, operator and match', () => {
    it('stores and returns field, operator and match; rules without them stay descriptive tags', async () => {
      const audience = await created(
        api.post('/api/audiences', {
          name: 'NL buyers',
          match: 'any',
          rules: [
            rule('attributes.country', 'equals', 'NL', 'country'),
            { rule_type: 'note', rule_value: 'hand-picked' },
            rule(null, null, 'also a tag', 'note'),
            rule('created_at', 'within_last_days', '30', 'recent'),
            rule('email', 'in', '["a@example.com", "b@example.com"]', 'list'),
          ],
        }),
      );
      expect(audience).toMatchObject({
        match: 'any',
        rules: [
          {
            id: expect.any(Number),
            rule_type: 'country',
            rule_value: 'NL',
            field: 'attributes.country',
            operator: 'equals',
          },
          { id: expect.any(Number), rule_type: 'note', rule_value: 'hand-picked', field: null, operator: null },
          { id: expect.any(Number), rule_type: 'note', rule_value: 'also a tag', field: null, operator: null },
          { rule_type: 'recent', rule_value: '30', field: 'created_at', operator: 'within_last_days' },
          { rule_type: 'list', rule_value: '["a@example.com", "b@example.com"]', field: 'email', operator: 'in' },
        ],
      });
      expect(await dataOf(api.get(`/api/audiences/${audience.id}`))).toEqual(audience);
      expect((await dataOf(api.get('/api/audiences', { q: 'NL buyers' })))[0]).toEqual(audience);

      // match defaults to all, and a PUT without it keeps it.
      const plain = await newAudience(api, { rules: [] });
      expect(plain.match).toBe('all');
      const renamed = await dataOf(api.put(`/api/audiences/${audience.id}`, { name: 'Renamed' }));
      expect(renamed.match).toBe('any');
      expect(renamed.rules).toEqual(audience.rules);
      const switched = await dataOf(api.put(`/api/audiences/${audience.id}`, { name: 'Renamed', match: 'all' }));
      expect(switched.match).toBe('all');
    });

    it('logs a change of field or operator alone as an update of the audience', async () => {
      const audience = await newAudience(api, { rules: [rule('email', 'ends_with', '@example.com')] });
      await dataOf(
        api.put(`/api/audiences/${audience.id}`, {
          name: audience.name,
          rules: [rule('email', 'starts_with', '@example.com')],
        }),
      );
      const superAdmin = await login(t);
      const log = await t.http
        .get('/api/admin/activity-log')
        .query({ subject_type: 'Audience', subject_id: audience.id, limit: 100 })
        .set('Authorization', superAdmin);
      expect(log.status).toBe(200);
      const updates = (log.body.data as { event: string; subject_id: number; properties: Body }[]).filter(
        (entry) => entry.subject_id === audience.id && entry.event === 'updated',
      );
      expect(updates).toHaveLength(1);
      expect(updates[0].properties).toMatchObject({
        attributes: { rules: [{ field: 'email', operator: 'starts_with' }] },
        old: { rules: [{ field: 'email', operator: 'ends_with' }] },
      });
    });

    it('answers 422 on rules.N.field, rules.N.operator or rules.N.rule_value, writing nothing', async () => {
      const existing = await newAudience(api, { name: 'Unchanged', rules: [rule('is_active', 'equals', 'true')] });
      const ok = rule('email', 'exists', '-');
      const cases: [string, Body[], string][] = [
        ['unknown column', [rule('age', 'equals', '5')], 'rules.0.field'],
        ['a column not in the catalogue', [rule('tenant_id', 'equals', '5')], 'rules.0.field'],
        ['field in another case', [rule('Email', 'equals', 'a@b.c')], 'rules.0.field'],
        ['attributes without a key', [rule('attributes', 'exists')], 'rules.0.field'],
        ['attribute key with a space', [ok, rule('attributes.a b', 'exists')], 'rules.1.field'],
        ['attribute path of 11 keys', [rule(`attributes${'.k'.repeat(11)}`, 'exists')], 'rules.0.field'],
        ['field not a string', [rule(5, 'equals')], 'rules.0.field'],
        ['field without operator', [rule('email', null)], 'rules.0.operator'],
        ['field with operator missing', [{ rule_type: 't', rule_value: 'x', field: 'email' }], 'rules.0.operator'],
        ['operator without field', [ok, ok, rule(undefined, 'equals')], 'rules.2.field'],
        ['unknown operator', [rule('email', 'like')], 'rules.0.operator'],
        ['operator not a string', [rule('email', ['equals'])], 'rules.0.operator'],
        ['operator in another case', [rule('email', 'EQUALS')], 'rules.0.operator'],
        ['gt on a text column', [rule('first_name', 'gt', 'a')], 'rules.0.operator'],
        ['contains on a boolean', [rule('is_active', 'contains', 'tr')], 'rules.0.operator'],
        ['in on a date', [rule('created_at', 'in', '["2026-01-01"]')], 'rules.0.operator'],
        ['within_last_days on text', [rule('email', 'within_last_days', '3')], 'rules.0.operator'],
        ['a boolean that is not one', [rule('is_active', 'equals', 'yes')], 'rules.0.rule_value'],
        ['a date that is not one', [rule('created_at', 'gt', '2026-02-30')], 'rules.0.rule_value'],
        ['a date equal to text', [rule('updated_at', 'equals', 'yesterday')], 'rules.0.rule_value'],
        ['in without a JSON array', [rule('email', 'in', 'a@b.c')], 'rules.0.rule_value'],
        ['in with an empty array', [rule('attributes.x', 'in', '[]')], 'rules.0.rule_value'],
        ['in with an object', [rule('attributes.x', 'not_in', '[{"a":1}]')], 'rules.0.rule_value'],
        [
          'in with 1001 items',
          [rule('attributes.x', 'in', JSON.stringify(Array.from({ length: 1001 }, (_, i) => i)))],
          'rules.0.rule_value',
        ],
        ['between with one bound', [rule('attributes.ltv', 'between', '[5]')], 'rules.0.rule_value'],
        ['between low above high', [rule('attributes.ltv', 'between', '[10, 5]')], 'rules.0.rule_value'],
        ['between a number and a day', [rule('attributes.ltv', 'between', '[5, "2026-01-01"]')], 'rules.0.rule_value'],
        [
          'between dates reversed',
          [rule('created_at', 'between', '["2026-02-01", "2026-01-01"]')],
          'rules.0.rule_value',
        ],
        ['gt a word on an attribute', [rule('attributes.ltv', 'gt', 'many')], 'rules.0.rule_value'],
        ['within_last_days a fraction', [rule('created_at', 'within_last_days', '1.5')], 'rules.0.rule_value'],
        ['within_last_days negative', [rule('attributes.signup', 'within_last_days', '-1')], 'rules.0.rule_value'],
        ['within_last_days too many', [rule('created_at', 'within_last_days', '36501')], 'rules.0.rule_value'],
        ['rule_value not a string', [rule('email', 'equals', 5)], 'rules.0.rule_value'],
      ];
      const before = await snapshot(api, '/api/audiences');
      for (const [name, rules, key] of cases) {
        const post = await api.post('/api/audiences', { name: 'A', rules });
        expect({ name, method: 'POST', ...outcome(post) }).toEqual({ name, method: 'POST', ...invalidOn(key) });
        expect(post.body.message).toBe(post.body.errors[key][0]);
        const put = await api.put(`/api/audiences/${existing.id}`, { name: 'A', rules });
        expect({ name, method: 'PUT', ...outcome(put) }).toEqual({ name, method: 'PUT', ...invalidOn(key) });
        const preview = await api.post('/api/audiences/preview', { rules });
        expect({ name, method: 'preview', ...outcome(preview) }).toEqual({
          name,
          method: 'preview',
          ...invalidOn(key),
        });
      }
      expect(await snapshot(api, '/api/audiences')).toEqual(before);
      expect(await dataOf(api.get(`/api/audiences/${existing.id}`))).toEqual(existing);
    });

    it('reports the grammar errors with the other field errors, one message per key', async () => {
      const res = await api.post('/api/audiences', {
        rules: [
          rule('age', 'like', '1'),
          rule('email', null),
          { rule_type: 'x', rule_value: null, field: 'email', operator: 'equals' },
        ],
        match: 'some',
      });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({
        name: ['The name field is required.'],
        match: ['The selected match is invalid.'],
        'rules.0.field': ['The selected field is invalid.'],
        'rules.0.operator': ['The selected operator is invalid.'],
        'rules.1.operator': ['The operator field is required when field is present.'],
        'rules.2.rule_value': ['The rule value field is required.'],
      });
      expect(res.body.message).toBe('The name field is required. (and 5 more errors)');
      const messages = await api.post('/api/audiences', {
        name: 'A',
        rules: [rule('first_name', 'gt', 'a'), rule('is_active', 'equals', 'maybe')],
      });
      expect(messages.body.errors).toEqual({
        'rules.0.operator': ['The selected operator cannot be used with this field.'],
        'rules.1.rule_value': ['The rule value field must be true, false, 1 or 0.'],
      });
    });

    it('answers 422 on match for anything but all and any', async () => {
      for (const match of ['ALL', 'none', '', null, 1, ['any']]) {
        expect({ match, ...outcome(await api.post('/api/audiences', { name: 'A', match })) }).toEqual({
          match,
          ...invalidOn('match'),
        });
      }
    });
  });

  describe('createSubAudience, updateSubAudience, addCampaignAudience: condition trees in segment_definition and segment_override', () => {
    const TREE = JSON.stringify({
      all: [
        { field: 'attributes.plan', operator: 'in', value: ['pro', 'enterprise'] },
        { not: { field: 'email', operator: 'ends_with', value: '@example.com' } },
        {
          any: [
            { field: 'created_at', operator: 'within_last_days', value: 30 },
            { field: 'phone', operator: 'exists' },
          ],
        },
      ],
    });
    const BAD_TREES: [string, string][] = [
      ['a leaf without operator', '{"field":"email","value":"x"}'],
      ['an unknown field', '{"field":"age","operator":"gt","value":18}'],
      ['an unknown operator', '{"field":"email","operator":"like","value":"x"}'],
      ['an operator the field cannot use', '{"field":"is_active","operator":"gt","value":1}'],
      ['an operand the operator cannot use', '{"field":"attributes.ltv","operator":"between","value":[9,1]}'],
      ['an empty all', '{"all":[]}'],
      ['all with another key', '{"all":[{"field":"email","operator":"exists"}],"note":"x"}'],
      ['a leaf with another key', '{"field":"email","operator":"exists","min_orders":2}'],
      ['not of an array', '{"not":[{"field":"email","operator":"exists"}]}'],
      ['a nested node that is not an object', '{"any":[1]}'],
      ['only a value', '{"value":1}'],
      ['eleven levels', `${'{"not":'.repeat(10)}{"field":"email","operator":"exists"}${'}'.repeat(10)}`],
    ];
    const OPAQUE = ['{"min_orders":2}', '[{"field":"email"}]', '"field"', '42', 'null', '{"Field":"email"}'];

    it('stores a valid tree or opaque JSON byte for byte, and refuses a broken tree (422 on the field)', async () => {
      const campaign = await newCampaign(api);
      const audience = await newAudience(api);
      const subs = `/api/campaigns/${campaign.id}/sub-audiences`;
      const sub = (segment_definition: string) => ({ audience_id: audience.id, name: 'Sub', segment_definition });
      for (const text of [TREE, ...OPAQUE]) {
        expect((await created(api.post(subs, sub(text)))).segment_definition).toBe(text);
      }
      const existing = await created(api.post(subs, sub(TREE)));
      const links = `/api/campaigns/${campaign.id}/audiences`;
      for (const text of [TREE, ...OPAQUE]) {
        const other = await newAudience(api);
        expect(
          (await created(api.post(links, { audience_id: other.id, segment_override: text }))).segment_override,
        ).toBe(text);
      }

      const before = { subs: await snapshot(api, subs), links: await snapshot(api, links) };
      for (const [name, text] of BAD_TREES) {
        const post = await api.post(subs, sub(text));
        expect({ name, ...outcome(post) }).toEqual({ name, ...invalidOn('segment_definition') });
        expect(post.body.message).toMatch(/^The segment definition field must be a valid condition tree/);
        const put = await api.put(`/api/sub-audiences/${existing.id}`, sub(text));
        expect({ name, ...outcome(put) }).toEqual({ name, ...invalidOn('segment_definition') });
        const other = await newAudience(api);
        const link = await api.post(links, { audience_id: other.id, segment_override: text });
        expect({ name, ...outcome(link) }).toEqual({ name, ...invalidOn('segment_override') });
        expect(link.body.message).toMatch(/^The segment override field must be a valid condition tree/);
      }
      expect(await snapshot(api, subs)).toEqual(before.subs);
      expect(await snapshot(api, links)).toEqual(before.links);
      // Where it went wrong is named.
      const deep = await api.post(
        subs,
        sub('{"all":[{"field":"email","operator":"exists"},{"field":"age","operator":"exists"}]}'),
      );
      expect(deep.body.errors.segment_definition[0]).toMatch(/at all\.1\.field/);
    });
  });
});
