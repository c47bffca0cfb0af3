import fc from 'fast-check';
import {
  compileMapping,
  CUSTOMER_FIELDS,
  CUSTOMER_FIELDS_MAPPING,
  hasTarget,
  MappingFailed,
  type MappingScope,
} from './attribute-mapping.js';

const scope = (overrides: Partial<MappingScope['customer']> = {}): MappingScope => ({
  customer: {
    id: 7,
    external_id: 'crm-7',
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    phone: null,
    attributes: { tier: 'gold', address: { city: 'London' }, tags: ['a', 'b'], zero: 0, none: null },
    is_active: true,
    created_at: '2026-01-02T03:04:05.000Z',
    updated_at: '2026-01-02T03:04:05.000Z',
    unsubscribed_at: null,
    ...overrides,
  },
  campaign: { id: 3, name: 'Spring' },
  treatment_group: { id: 4, name: 'Variant A', type: 'treatment' },
  unsubscribe_url: 'https://app.example.com/api/unsubscribe/t0k3n',
});

const mapOf = (mapping: unknown, s = scope()) => {
  const { mapping: compiled, problems } = compileMapping(JSON.stringify(mapping));
  if (!compiled) throw new Error(JSON.stringify(problems));
  return compiled.map(s);
};

describe('compileMapping', () => {
  it('maps every kind of source', () => {
    expect(
      mapOf({
        email: 'email',
        id: 'id',
        tier: 'attributes.tier',
        city: 'attributes.address.city',
        second_tag: 'attributes.tags.1',
        zero: 'attributes.zero',
        campaign: 'campaign.name',
        group: 'treatment_group.name',
        group_type: 'treatment_group.type',
        greeting: {
          template: 'Hi {{ customer.first_name }} ({{ customer.attributes.tier }}) from {{ campaign.name }}',
        },
        link: { template: '{{ unsubscribe_url }}' },
        source: { value: { a: [1, 2] } },
        phone: { field: 'phone', default: 'none' },
        nickname: { field: 'attributes.nickname', default: 'friend' },
        kept: { field: 'first_name', default: 'x' },
      }),
    ).toEqual({
      email: 'ada@example.com',
      id: 7,
      tier: 'gold',
      city: 'London',
      second_tag: 'b',
      zero: 0,
      campaign: 'Spring',
      group: 'Variant A',
      group_type: 'treatment',
      greeting: 'Hi Ada (gold) from Spring',
      link: 'https://app.example.com/api/unsubscribe/t0k3n',
      source: { a: [1, 2] },
      phone: 'none',
      nickname: 'friend',
      kept: 'Ada',
    });
  });

  it('builds nested objects from dotted targets, in the mapping order', () => {
    const { mapping } = compileMapping(
      '{"profile.first": "first_name", "profile.last": "last_name", "email": "email"}',
    );
    expect(mapping!.targets).toEqual(['profile.first', 'profile.last', 'email']);
    expect(mapping!.map(scope())).toEqual({ profile: { first: 'Ada', last: 'Lovelace' }, email: 'ada@example.com' });
  });

  it('maps missing values to null', () => {
    expect(
      mapOf(
        {
          a: 'attributes.missing',
          b: 'attributes.address.street',
          c: 'attributes.tags.9',
          d: 'attributes.tags.x',
          e: 'attributes.none',
          f: 'phone',
          g: 'treatment_group.name',
        },
        { ...scope(), treatment_group: null },
      ),
    ).toEqual({ a: null, b: null, c: null, d: null, e: null, f: null, g: null });
    expect(mapOf({ a: 'attributes.tier' }, scope({ attributes: null }))).toEqual({ a: null });
  });

  it('names the problem of every bad target and source', () => {
    const { mapping, problems } = compileMapping(
      JSON.stringify({
        ok: 'email',
        unknown: 'favourite_colour',
        'bad..target': 'email',
        'ok.inner': 'email',
        number: 3,
        list: ['email'],
        extra: { field: 'email', other: 1 },
        broken: { template: '{% if %}' },
        filter: { template: '{{ email | nosuchfilter }}' },
        'x.y': 'email',
        x: 'email',
        'attributes.': 'attributes.',
        nofield: { default: 1 },
      }),
    );
    expect(mapping).toBeUndefined();
    expect(problems.map((p) => p.field)).toEqual([
      'attribute_mapping.unknown',
      'attribute_mapping.bad..target',
      'attribute_mapping.ok.inner',
      'attribute_mapping.number',
      'attribute_mapping.list',
      'attribute_mapping.extra',
      'attribute_mapping.broken',
      'attribute_mapping.filter',
      'attribute_mapping.x',
      'attribute_mapping.attributes.',
      'attribute_mapping.nofield',
    ]);
    expect(problems[0].message).toMatch(/Unknown source "favourite_colour"/);
    expect(problems[6].message).toMatch(/does not parse/);
  });

  it('refuses what is no JSON object', () => {
    for (const text of ['[]', '"email"', 'null', '3', 'not json']) {
      expect(compileMapping(text).problems).toEqual([{ field: 'attribute_mapping', message: expect.any(String) }]);
    }
  });

  it('escapes nothing in text templates and fails one record when a template cannot render', () => {
    expect(mapOf({ t: { template: '{{ customer.first_name }} <b>' } }, scope({ first_name: '<i>' }))).toEqual({
      t: '<i> <b>',
    });
    const { mapping } = compileMapping('{"t": {"template": "{% include \'x\' %}"}}');
    expect(() => mapping!.map(scope())).toThrow(MappingFailed);
  });

  it('maps a __proto__ target as data', () => {
    const data = mapOf(JSON.parse('{"__proto__": "email", "a.__proto__": "id"}'));
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(JSON.stringify(data)).toBe('{"__proto__":"ada@example.com","a":{"__proto__":7}}');
  });

  it('keeps values too deep for a receiver out', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(compileMapping(JSON.stringify({ a: { value: deep } })).problems).toHaveLength(1);
    expect(mapOf({ a: 'attributes.deep' }, scope({ attributes: { deep } }))).toEqual({ a: null });
  });

  it('knows its targets', () => {
    const { mapping } = compileMapping('{"email": "email", "profile.email": "email"}');
    expect(hasTarget(mapping!, 'email')).toBe(true);
    expect(hasTarget(CUSTOMER_FIELDS_MAPPING, 'email')).toBe(true);
    expect(CUSTOMER_FIELDS_MAPPING.map(scope())).toEqual(scope().customer);
    expect(Object.keys(CUSTOMER_FIELDS_MAPPING.map(scope()))).toEqual([...CUSTOMER_FIELDS]);
  });
});

describe('compileMapping (properties)', () => {
  const step = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
  const target = fc.array(step, { minLength: 1, maxLength: 3 }).map((steps) => steps.join('.'));
  const constant = fc.jsonValue({ maxDepth: 3 });

  it('puts every constant at its dotted target, whatever the targets', () => {
    fc.assert(
      fc.property(fc.dictionary(target, constant, { maxKeys: 8 }), (raw) => {
        const compiled = compileMapping(
          JSON.stringify(Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, { value: v }]))),
        );
        const targets = Object.keys(raw);
        const clashes = targets.some((a) => targets.some((b) => a !== b && b.startsWith(`${a}.`)));
        if (clashes) {
          expect(compiled.mapping).toBeUndefined();
          expect(compiled.problems.length).toBeGreaterThan(0);
          return;
        }
        const data = compiled.mapping!.map(scope());
        for (const [dotted, value] of Object.entries(raw)) {
          let node: unknown = data;
          for (const s of dotted.split('.')) node = (node as Record<string, unknown>)[s];
          // As the mapping's JSON text holds it (-0 is 0 there).
          expect(node).toEqual(JSON.parse(JSON.stringify(value)));
        }
        // What it builds is JSON, and maps the same twice.
        expect(JSON.stringify(JSON.parse(JSON.stringify(data)))).toEqual(JSON.stringify(data));
        expect(compiled.mapping!.map(scope())).toEqual(data);
      }),
    );
  });

  it('reads any attributes path without throwing, and a missing one as null or the default', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        fc.array(step, { minLength: 1, maxLength: 4 }),
        constant,
        (attributes, path, fallback) => {
          const field = `attributes.${path.join('.')}`;
          const { mapping } = compileMapping(JSON.stringify({ a: field, b: { field, default: fallback } }));
          const data = mapping!.map(scope({ attributes }));
          const sent = JSON.parse(JSON.stringify(fallback)) as unknown;
          expect(data.a === null ? sent : data.a).toEqual(data.b);
        },
      ),
    );
  });

  it('never answers a problem-free mapping for an unknown field name', () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        const known =
          (CUSTOMER_FIELDS as readonly string[]).includes(name) ||
          /^(campaign\.(id|name)|treatment_group\.(id|name|type))$/.test(name) ||
          /^attributes(\.[^.]+)+$/.test(name);
        const { problems } = compileMapping(JSON.stringify({ t: name }));
        expect(problems.length === 0).toBe(known);
      }),
    );
  });
});
