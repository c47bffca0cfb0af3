import fc from 'fast-check';
import type { Customer } from '../entities/customer.entity.js';
import { mergedAttributes, mergedValues } from './merge-plan.js';

function customer(values: Partial<Customer>): Customer {
  return {
    id: 1,
    tenant_id: 1,
    external_id: null,
    first_name: null,
    last_name: null,
    last_name_key: null,
    email: null,
    phone: null,
    attributes: null,
    is_active: true,
    unsubscribed_at: null,
    created_at: null,
    updated_at: null,
    ...values,
  };
}

describe('mergedValues', () => {
  it('keeps the survivor out of e-mail when a source unsubscribed (since the earliest)', () => {
    const early = new Date('2026-01-01T00:00:00Z');
    const late = new Date('2026-02-01T00:00:00Z');
    expect(
      mergedValues(customer({}), [customer({ unsubscribed_at: late }), customer({ unsubscribed_at: early })], 'target'),
    ).toEqual({ unsubscribed_at: early });
    expect(mergedValues(customer({ unsubscribed_at: late }), [customer({ unsubscribed_at: early })], 'source')).toEqual(
      {},
    );
    expect(mergedValues(customer({}), [customer({})], 'target')).toEqual({});
  });

  it('fills each empty field of the survivor from the first source that has it', () => {
    const survivor = customer({ first_name: 'Ada', email: '' });
    const sources = [
      customer({ first_name: 'Augusta', last_name: null }),
      customer({ last_name: 'King', email: 'a@x.io' }),
    ];
    expect(mergedValues(survivor, sources, 'target')).toEqual({ last_name: 'King', email: 'a@x.io' });
  });

  it('keeps the survivor on a conflict, unless the sources are preferred', () => {
    const survivor = customer({ first_name: 'Ada', phone: '1' });
    const sources = [customer({ first_name: 'Augusta' }), customer({ first_name: 'Lady', phone: '2' })];
    expect(mergedValues(survivor, sources, 'target')).toEqual({});
    expect(mergedValues(survivor, sources, 'source')).toEqual({ first_name: 'Augusta', phone: '2' });
  });

  it('moves external_id only to a survivor that has none, whatever is preferred', () => {
    const sources = [customer({ external_id: null }), customer({ external_id: 'crm-2' })];
    expect(mergedValues(customer({}), sources, 'target').external_id).toBe('crm-2');
    expect(mergedValues(customer({ external_id: 'crm-1' }), sources, 'source').external_id).toBeUndefined();
    // An empty string is an external id like any other.
    expect(mergedValues(customer({ external_id: '' }), sources, 'source').external_id).toBeUndefined();
  });

  it('takes is_active from the first source only when the sources are preferred', () => {
    const sources = [customer({ is_active: false })];
    expect(mergedValues(customer({ is_active: true }), sources, 'target')).toEqual({});
    expect(mergedValues(customer({ is_active: true }), sources, 'source')).toEqual({ is_active: false });
  });
});

describe('mergedAttributes', () => {
  it('merges objects key by key under the same rule', () => {
    const survivor = '{"tier":"gold","city":""}';
    const sources = ['{"tier":"silver","city":"Paris"}', '{"city":"Rome","vip":true}'];
    expect(JSON.parse(mergedAttributes(survivor, sources, 'target')!)).toEqual({
      tier: 'gold',
      city: 'Paris',
      vip: true,
    });
    expect(JSON.parse(mergedAttributes(survivor, sources, 'source')!)).toEqual({
      tier: 'silver',
      city: 'Paris',
      vip: true,
    });
  });

  it('keeps the survivor text byte for byte when no key changes', () => {
    const survivor = '{ "tier" : "gold" }';
    expect(mergedAttributes(survivor, ['{"tier":"silver"}', null, '[1]'], 'target')).toBe(survivor);
    expect(mergedAttributes(survivor, ['{"tier":"gold"}'], 'source')).toBe(survivor);
  });

  it('treats an empty survivor as an empty object and text that is no object as a whole field', () => {
    expect(mergedAttributes(null, ['{"a":1}'], 'target')).toBe('{"a":1}');
    expect(mergedAttributes('', ['[1,2]', '{"a":1}'], 'target')).toBe('[1,2]');
    expect(mergedAttributes(null, ['', '"vip"'], 'target')).toBe('"vip"');
    expect(mergedAttributes('', [null, '{"a":1}', '[1]', '{"b":2}'], 'target')).toBe('{"a":1,"b":2}');
    expect(mergedAttributes('[1]', ['{"a":1}'], 'target')).toBe('[1]');
    expect(mergedAttributes('[1]', ['{"a":1}'], 'source')).toBe('{"a":1}');
  });

  it('takes keys named like members of every object as keys', () => {
    const source = '{"constructor":"ACME","toString":"x","__proto__":{"a":1},"plain":true}';
    expect(JSON.parse(mergedAttributes('{"tier":"gold"}', [source], 'target')!)).toEqual(
      JSON.parse('{"tier":"gold","constructor":"ACME","toString":"x","__proto__":{"a":1},"plain":true}'),
    );
    expect(mergedAttributes(null, ['{"constructor":"ACME"}'], 'target')).toBe('{"constructor":"ACME"}');
  });

  it('never loses a key of the survivor, and takes every key only the sources have', () => {
    const object = fc.dictionary(
      fc.constantFrom('a', 'b', 'c', 'd'),
      fc.oneof(fc.constant(null), fc.constant(''), fc.integer(), fc.string()),
    );
    fc.assert(
      fc.property(
        object,
        fc.array(object, { maxLength: 4 }),
        fc.constantFrom('target', 'source'),
        (base, sources, prefer) => {
          const merged = JSON.parse(
            mergedAttributes(
              JSON.stringify(base),
              sources.map((s) => JSON.stringify(s)),
              prefer,
            )!,
          ) as Record<string, unknown>;
          for (const key of Object.keys(base)) expect(key in merged).toBe(true);
          for (const source of sources) {
            for (const [key, value] of Object.entries(source)) {
              if (value !== null && value !== '') expect(merged[key] === null || merged[key] === '').toBe(false);
            }
          }
          if (prefer === 'target') {
            for (const [key, value] of Object.entries(base))
              if (value !== null && value !== '') expect(merged[key]).toEqual(value);
          }
        },
      ),
    );
  });
});
