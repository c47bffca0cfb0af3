import {
  COLUMN_FIELDS,
  OPERATORS_BY_FIELD_KIND,
  VALUE_OPERATORS,
  evaluableConditions,
  parseField,
  parseRule,
  validateRule,
  InvalidStoredRuleError,
  type Condition,
} from './rule-grammar.js';

const condition = (field: string, operator: string, rule_value: string): Condition => {
  const parsed = parseRule({ rule_type: 't', rule_value, field, operator });
  if (parsed.kind !== 'condition') throw new Error(`expected a condition, got ${JSON.stringify(parsed)}`);
  return parsed.condition;
};

describe('parseField', () => {
  it.each(COLUMN_FIELDS)('knows the column %s', (name) => {
    expect(parseField(name)).toMatchObject({ column: name });
  });

  it('reads attribute paths', () => {
    expect(parseField('attributes.country')).toEqual({ kind: 'attribute', path: ['country'] });
    expect(parseField('attributes.address.zip-code_2')).toEqual({ kind: 'attribute', path: ['address', 'zip-code_2'] });
  });

  it.each([
    'attributes',
    'attributes.',
    'attributes..a',
    'attributes.a b',
    'attributes.a.*',
    'attributes.$',
    'attributes."a"',
    'attributes.é',
    'attribute.a',
    'id',
    'tenant_id',
    'Email',
    '',
    `attributes${'.k'.repeat(11)}`,
    `attributes.${'k'.repeat(300)}`,
  ])('rejects %p', (name) => {
    expect(parseField(name)).toBeNull();
  });
});

describe('parseRule', () => {
  it('keeps a rule without field and operator as a descriptive tag', () => {
    expect(parseRule({ rule_type: 'country', rule_value: 'NL' })).toEqual({ kind: 'descriptive' });
    expect(parseRule({ rule_type: 'country', rule_value: 'NL', field: null, operator: null })).toEqual({
      kind: 'descriptive',
    });
  });

  it('requires field and operator together', () => {
    expect(validateRule({ rule_type: 't', rule_value: 'x', field: 'email' })).toEqual({
      operator: ['The operator field is required when field is present.'],
    });
    expect(validateRule({ rule_type: 't', rule_value: 'x', operator: 'equals' })).toEqual({
      field: ['The field field is required when operator is present.'],
    });
  });

  it('names an unknown field or operator', () => {
    expect(validateRule({ rule_type: 't', rule_value: 'x', field: 'shoe_size', operator: 'equals' })).toEqual({
      field: ['The selected field is invalid.'],
    });
    expect(validateRule({ rule_type: 't', rule_value: 'x', field: 'email', operator: 'like' })).toEqual({
      operator: ['The selected operator is invalid.'],
    });
    expect(validateRule({ rule_type: 't', rule_value: 'x', field: 5, operator: ['equals'] })).toEqual({
      field: ['The field field must be a string.'],
      operator: ['The operator field must be a string.'],
    });
  });

  it('refuses operators the field cannot use', () => {
    for (const [field, operator] of [
      ['first_name', 'gt'],
      ['email', 'within_last_days'],
      ['is_active', 'contains'],
      ['is_active', 'in'],
      ['created_at', 'contains'],
      ['created_at', 'in'],
    ]) {
      expect(validateRule({ rule_type: 't', rule_value: '1', field, operator })).toEqual({
        operator: ['The selected operator cannot be used with this field.'],
      });
    }
  });

  it('accepts every operator on an attribute path', () => {
    expect(OPERATORS_BY_FIELD_KIND.attribute).toEqual(VALUE_OPERATORS);
    const operands: Record<string, string> = {
      in: '["a"]',
      not_in: '[1, true]',
      between: '[1, 2]',
      gt: '1',
      gte: '2026-01-01',
      lt: '-1.5e3',
      lte: '0',
      within_last_days: '30',
    };
    for (const operator of VALUE_OPERATORS) {
      expect(
        validateRule({ rule_type: 't', rule_value: operands[operator] ?? 'x', field: 'attributes.a', operator }),
      ).toEqual({});
    }
  });

  it('reports the operand on rule_value', () => {
    const cases: [string, string, string, string][] = [
      ['is_active', 'equals', 'yes', 'The rule value field must be true, false, 1 or 0.'],
      ['created_at', 'gt', '2026-02-30', 'The rule value field must be a valid date.'],
      ['created_at', 'equals', 'yesterday', 'The rule value field must be a valid date.'],
      ['attributes.ltv', 'gt', 'ten', 'The rule value field must be a number or a date (YYYY-MM-DD).'],
      ['attributes.ltv', 'gt', '01', 'The rule value field must be a number or a date (YYYY-MM-DD).'],
      ['attributes.ltv', 'gt', '2026-01-01T10:00:00Z', 'The rule value field must be a number or a date (YYYY-MM-DD).'],
      ['email', 'in', 'a@b.c', 'The rule value field must be a JSON array of 1 to 1000 strings, numbers or booleans.'],
      ['email', 'in', '[]', 'The rule value field must be a JSON array of 1 to 1000 strings, numbers or booleans.'],
      ['email', 'in', '[null]', 'The rule value field must be a JSON array of 1 to 1000 strings, numbers or booleans.'],
      [
        'email',
        'not_in',
        '[["a"]]',
        'The rule value field must be a JSON array of 1 to 1000 strings, numbers or booleans.',
      ],
      [
        'attributes.ltv',
        'between',
        '[5, 1]',
        'The rule value field must be a JSON array [low, high] of two numbers or two dates (YYYY-MM-DD), low not greater than high.',
      ],
      [
        'attributes.ltv',
        'between',
        '[1, "2026-01-01"]',
        'The rule value field must be a JSON array [low, high] of two numbers or two dates (YYYY-MM-DD), low not greater than high.',
      ],
      [
        'created_at',
        'between',
        '["2026-02-01", "2026-01-01"]',
        'The rule value field must be a JSON array [low, high] of two dates, low not greater than high.',
      ],
      ['created_at', 'within_last_days', '1.5', 'The rule value field must be a whole number of days from 0 to 36500.'],
      ['created_at', 'within_last_days', '-1', 'The rule value field must be a whole number of days from 0 to 36500.'],
      [
        'created_at',
        'within_last_days',
        '36501',
        'The rule value field must be a whole number of days from 0 to 36500.',
      ],
    ];
    for (const [field, operator, rule_value, message] of cases) {
      expect([field, operator, validateRule({ rule_type: 't', rule_value, field, operator })]).toEqual([
        field,
        operator,
        { rule_value: [message] },
      ]);
    }
  });

  it('reports a rule_value that is not a string with the DTO message', () => {
    expect(validateRule({ rule_type: 't', rule_value: 5, field: 'email', operator: 'exists' })).toEqual({
      rule_value: ['The rule value field must be a string.'],
    });
  });

  it('reads equality operands every way they can match', () => {
    expect(condition('attributes.a', 'equals', '5')).toEqual({
      field: { kind: 'attribute', path: ['a'] },
      operator: 'equals',
      negated: false,
      test: { kind: 'equals', values: [{ text: '5', number: 5, boolean: null }] },
    });
    expect(condition('attributes.a', 'not_in', '["1", 2.5, true, "TRUE", "05"]').test).toEqual({
      kind: 'equals',
      values: [
        { text: '1', number: 1, boolean: true },
        { text: '2.5', number: 2.5, boolean: null },
        { text: 'true', number: null, boolean: true },
        { text: 'TRUE', number: null, boolean: true },
        { text: '05', number: null, boolean: null },
      ],
    });
    expect(condition('attributes.a', 'not_in', '["x"]').negated).toBe(true);
    expect(condition('is_active', 'equals', 'False').test).toEqual({
      kind: 'equals',
      values: [{ text: 'False', number: null, boolean: false }],
    });
  });

  it('keeps text operands as sent, `%` and `_` included', () => {
    expect(condition('first_name', 'not_contains', '50%_off').test).toEqual({
      kind: 'text',
      match: 'contains',
      text: '50%_off',
    });
    expect(condition('email', 'ends_with', '@Example.com')).toMatchObject({
      negated: false,
      test: { kind: 'text', match: 'ends_with', text: '@Example.com' },
    });
  });

  it('reads a date-only operand on a date column as its whole UTC day', () => {
    const at = (iso: string) => new Date(iso);
    expect(condition('created_at', 'equals', '2026-01-05').test).toEqual({
      kind: 'range',
      lower: { kind: 'instant', at: at('2026-01-05T00:00:00Z'), inclusive: true },
      upper: { kind: 'instant', at: at('2026-01-06T00:00:00Z'), inclusive: false },
    });
    expect(condition('created_at', 'gt', '2026-01-05').test).toEqual({
      kind: 'range',
      lower: { kind: 'instant', at: at('2026-01-06T00:00:00Z'), inclusive: true },
      upper: null,
    });
    expect(condition('created_at', 'lte', '2026-01-05').test).toEqual({
      kind: 'range',
      lower: null,
      upper: { kind: 'instant', at: at('2026-01-06T00:00:00Z'), inclusive: false },
    });
    expect(condition('updated_at', 'lt', '2026-01-05T10:00:00+02:00').test).toEqual({
      kind: 'range',
      lower: null,
      upper: { kind: 'instant', at: at('2026-01-05T08:00:00Z'), inclusive: false },
    });
    expect(condition('created_at', 'between', '["2026-01-01", "2026-01-31T12:00:00Z"]').test).toEqual({
      kind: 'range',
      lower: { kind: 'instant', at: at('2026-01-01T00:00:00Z'), inclusive: true },
      upper: { kind: 'instant', at: at('2026-01-31T12:00:00Z'), inclusive: true },
    });
  });

  it('reads attribute bounds as numbers or days', () => {
    expect(condition('attributes.ltv', 'gte', '100').test).toEqual({
      kind: 'range',
      lower: { kind: 'number', value: 100, inclusive: true },
      upper: null,
    });
    expect(condition('attributes.signup', 'lt', '2026-01-05').test).toEqual({
      kind: 'range',
      lower: null,
      upper: { kind: 'day', day: '2026-01-05', inclusive: false },
    });
    expect(condition('attributes.ltv', 'between', '[1, "2.5"]').test).toEqual({
      kind: 'range',
      lower: { kind: 'number', value: 1, inclusive: true },
      upper: { kind: 'number', value: 2.5, inclusive: true },
    });
    expect(condition('attributes.x', 'within_last_days', '0').test).toEqual({ kind: 'recent', days: 0 });
  });

  it('ignores the operand of exists and not_exists', () => {
    expect(condition('phone', 'not_exists', 'anything')).toEqual({
      field: { kind: 'text', column: 'phone' },
      operator: 'not_exists',
      negated: true,
      test: { kind: 'exists' },
    });
  });
});

describe('evaluableConditions', () => {
  it('keeps the evaluable rules, in order', () => {
    const conditions = evaluableConditions([
      { rule_type: 'note', rule_value: 'VIP list' },
      { rule_type: 'a', rule_value: 'NL', field: 'attributes.country', operator: 'equals' },
      { rule_type: 'b', rule_value: 'x', field: 'email', operator: 'exists' },
    ]);
    expect(conditions.map((c) => c.operator)).toEqual(['equals', 'exists']);
  });

  it('refuses a stored rule that is not valid', () => {
    expect(() => evaluableConditions([{ rule_type: 'a', rule_value: 'x', field: 'nope', operator: 'equals' }])).toThrow(
      InvalidStoredRuleError,
    );
  });
});
