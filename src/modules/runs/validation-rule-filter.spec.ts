import { ruleCondition } from './validation-rule-filter.js';

const condition = (definition: unknown) => {
  const parsed = ruleCondition(JSON.stringify(definition));
  return parsed.ok ? parsed.tree : parsed.reason;
};

describe('ruleCondition: a validation rule as a run evaluates it', () => {
  it("reads the contract's own example, a bare name meaning attributes.<name>, >= meaning gte", () => {
    expect(condition({ field: 'age', operator: '>=', value: 18 })).toMatchObject({
      kind: 'condition',
      condition: { field: { kind: 'attribute', path: ['age'] }, operator: 'gte' },
    });
  });

  it.each([
    ['<=', 'lte'],
    ['>', 'gt'],
    ['<', 'lt'],
    ['=', 'equals'],
    ['!=', 'not_equals'],
    ['gte', 'gte'],
  ])('spells %s as %s', (spelled, operator) => {
    expect(condition({ field: 'attributes.score', operator: spelled, value: 3 })).toMatchObject({
      condition: { operator },
    });
  });

  it('keeps a customer column a column', () => {
    expect(condition({ field: 'email', operator: 'contains', value: '@example.com' })).toMatchObject({
      condition: { field: { kind: 'text', column: 'email' }, operator: 'contains' },
    });
  });

  it('reads {field, required: true} as exists', () => {
    expect(condition({ field: 'phone', required: true })).toMatchObject({
      condition: { field: { kind: 'text', column: 'phone' }, operator: 'exists' },
    });
    expect(condition({ field: 'loyalty_id', required: true })).toMatchObject({
      condition: { field: { kind: 'attribute' }, operator: 'exists' },
    });
  });

  it('reads a condition tree', () => {
    expect(
      condition({
        all: [{ field: 'is_active', operator: 'equals', value: true }, { not: { field: 'email', operator: 'exists' } }],
      }),
    ).toMatchObject({ kind: 'all' });
  });

  it.each([
    ['not JSON', '{', 'it is not valid JSON'],
    ['an array', [1], 'it is not an object'],
    ['an opaque object', { min_orders: 2 }, 'it is neither a condition nor a condition tree'],
    ['required false', { field: 'age', required: false }, 'a required rule is {"field": ..., "required": true}'],
  ])('cannot evaluate %s', (_, definition, reason) => {
    const text = typeof definition === 'string' ? definition : JSON.stringify(definition);
    expect(ruleCondition(text)).toEqual({ ok: false, reason });
  });

  it('cannot evaluate an unknown operator, naming what is wrong', () => {
    const parsed = ruleCondition(JSON.stringify({ field: 'age', operator: '~', value: 1 }));
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toMatch(/operator/);
  });
});
