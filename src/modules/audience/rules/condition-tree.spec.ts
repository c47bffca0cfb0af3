import { MAX_TREE_CONDITIONS, parseSegment, usesConditionKeys, type ConditionTree } from './condition-tree.js';

const tree = (text: string): ConditionTree => {
  const parsed = parseSegment(text);
  if (!parsed.ok || parsed.segment.kind !== 'tree') throw new Error(`expected a tree, got ${JSON.stringify(parsed)}`);
  return parsed.segment.tree;
};
const error = (text: string, label?: string): string => {
  const parsed = parseSegment(text, label);
  if (parsed.ok) throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
  return parsed.message;
};

describe('usesConditionKeys', () => {
  it('is true for a top-level object naming any tree key', () => {
    for (const key of ['all', 'any', 'not', 'field', 'operator', 'value']) {
      expect(usesConditionKeys({ [key]: null, other: 1 })).toBe(true);
    }
  });

  it('is false for anything else', () => {
    for (const value of [{ min_orders: 2 }, { nested: { all: [] } }, [{ all: [] }], 'all', 5, null, true]) {
      expect(usesConditionKeys(value)).toBe(false);
    }
  });
});

describe('parseSegment', () => {
  it('keeps other JSON opaque', () => {
    for (const text of ['{"last_order_days":30}', '[]', '[{"all":[]}]', '"all"', '42', 'null', '{}']) {
      expect(parseSegment(text)).toEqual({ ok: true, segment: { kind: 'opaque' } });
    }
  });

  it('reads a leaf at the top', () => {
    expect(tree('{"field":"attributes.ltv","operator":"gte","value":100}')).toEqual({
      kind: 'condition',
      condition: {
        field: { kind: 'attribute', path: ['ltv'] },
        operator: 'gte',
        negated: false,
        test: { kind: 'range', lower: { kind: 'number', value: 100, inclusive: true }, upper: null },
      },
    });
  });

  it('reads nested all / any / not', () => {
    const parsed = tree(
      JSON.stringify({
        all: [
          { field: 'email', operator: 'ends_with', value: '@example.com' },
          {
            not: {
              any: [
                { field: 'attributes.plan', operator: 'in', value: ['free', 'trial'] },
                { field: 'phone', operator: 'exists' },
              ],
            },
          },
        ],
      }),
    );
    expect(parsed.kind).toBe('all');
    if (parsed.kind !== 'all') return;
    expect(parsed.children[1]).toMatchObject({ kind: 'not', child: { kind: 'any' } });
  });

  it('takes JSON values for value: numbers, booleans, arrays', () => {
    expect(tree('{"field":"attributes.vip","operator":"equals","value":true}')).toMatchObject({
      condition: { test: { kind: 'equals', values: [{ text: 'true', number: null, boolean: true }] } },
    });
    expect(tree('{"field":"is_active","operator":"not_equals","value":0}')).toMatchObject({
      condition: { negated: true, test: { kind: 'equals', values: [{ boolean: false }] } },
    });
    expect(tree('{"field":"attributes.ltv","operator":"between","value":[10, "20"]}')).toMatchObject({
      condition: { test: { kind: 'range', lower: { value: 10 }, upper: { value: 20 } } },
    });
  });

  it('names the first problem and where it is', () => {
    expect(error('{"all":[]}')).toBe(
      'The segment definition field must be a valid condition tree at all: must be a non-empty array of nodes.',
    );
    expect(
      error('{"all":[{"field":"email","operator":"equals","value":"a"}, {"field":"x","operator":"equals"}]}'),
    ).toBe(
      'The segment definition field must be a valid condition tree at all.1.field: The selected field is invalid.',
    );
    expect(error('{"any":[{"field":"email","operator":"equals"}]}', 'segment override')).toBe(
      'The segment override field must be a valid condition tree at any.0.value: The value field must be a string, a number or a boolean.',
    );
    expect(error('{"field":"email","operator":"equals","value":"a","note":"x"}')).toBe(
      'The segment definition field must be a valid condition tree: unknown key note.',
    );
    expect(error('{"all":[{"field":"email","operator":"exists"}],"any":[]}')).toBe(
      'The segment definition field must be a valid condition tree: all cannot be combined with any.',
    );
    expect(error('{"not":[{"field":"email","operator":"exists"}]}')).toBe(
      'The segment definition field must be a valid condition tree at not: each node must be an object with all, any, not, performed, last_performed, or field and operator.',
    );
    expect(error('{"value":1}')).toBe(
      'The segment definition field must be a valid condition tree at field: The field field is required.',
    );
    expect(error('{"field":"created_at","operator":"contains","value":"2026"}')).toBe(
      'The segment definition field must be a valid condition tree at operator: The selected operator cannot be used with this field.',
    );
    expect(error('{"field":"email","operator":"in","value":"a@b.c"}')).toMatch(
      /at value: The value field must be a JSON array/,
    );
    expect(error('not json')).toBe('The segment definition field must be a valid JSON string.');
  });

  it('bounds depth and size', () => {
    let deep: unknown = { field: 'email', operator: 'exists' };
    for (let i = 0; i < 10; i++) deep = { not: deep };
    expect(error(JSON.stringify(deep))).toMatch(/nesting is deeper than 10 levels/);
    const wide = {
      any: Array.from({ length: MAX_TREE_CONDITIONS + 1 }, () => ({ field: 'email', operator: 'exists' })),
    };
    expect(error(JSON.stringify(wide))).toMatch(/at most 100 conditions/);
  });
});
