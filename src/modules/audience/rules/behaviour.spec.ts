import { parseSegment } from './condition-tree.js';
import { parseBehaviour, parseRule, validateRule, type Test } from './rule-grammar.js';
import { compileSegment, compileRules, type CompileOptions } from './sql-compiler.js';

const NOW = new Date('2026-01-06T12:00:00Z');
const DAY = 86_400_000;
const options = (dialect: 'mysql' | 'sqlite'): CompileOptions => ({
  dialect,
  alias: 'c',
  now: NOW,
  behaviour: {
    events: { table: 'customer_events', scope: (a) => ({ sql: `${a}.tenant_id = ?`, params: [7] }) },
    names: { table: 'customer_event_names', scope: (a) => ({ sql: `${a}.tenant_id = ?`, params: [7] }) },
  },
});

const rule = (operator: string, value: unknown) => ({
  rule_type: 'behaviour',
  field: 'event',
  operator,
  rule_value: typeof value === 'string' ? value : JSON.stringify(value),
});

describe('behaviour in the rule grammar', () => {
  it('reads performed with its defaults, and last_performed', () => {
    expect(parseBehaviour('performed', { event: 'purchase' })).toEqual({
      test: { kind: 'performed', performed: { event: 'purchase', min: 1, max: null, withinDays: null, where: [] } },
    });
    expect(
      parseBehaviour('performed', {
        event: 'Order Completed',
        min: '2',
        max: 5,
        within_days: 30,
        where: [
          { field: 'properties.amount', operator: 'gte', value: 100 },
          { field: 'properties.coupon', operator: 'not_exists' },
        ],
      }),
    ).toEqual({
      test: {
        kind: 'performed',
        performed: {
          event: 'Order Completed',
          min: 2,
          max: 5,
          withinDays: 30,
          where: [
            {
              path: ['amount'],
              negated: false,
              test: { kind: 'range', lower: { kind: 'number', value: 100, inclusive: true }, upper: null },
            },
            { path: ['coupon'], negated: true, test: { kind: 'exists' } },
          ],
        },
      },
    });
    expect(parseBehaviour('last_performed', { event: 'login', before_days: 30, after_days: 90 })).toEqual({
      test: { kind: 'last_performed', last: { event: 'login', beforeDays: 30, afterDays: 90, where: [] } },
    });
  });

  it.each<[string, 'performed' | 'last_performed', unknown, string, string]>([
    ['not an object', 'performed', [1], '', 'must be a JSON object with event, min, max, within_days, where.'],
    [
      'an unknown key',
      'performed',
      { event: 'a', since: 3 },
      'since',
      'unknown key (performed takes event, min, max, within_days, where).',
    ],
    [
      'a key of the other node',
      'last_performed',
      { event: 'a', within_days: 3 },
      'within_days',
      'unknown key (last_performed takes event, before_days, after_days, where).',
    ],
    [
      'no event',
      'performed',
      { min: 1 },
      'event',
      'must be an event name: 1 to 255 ASCII letters, digits, _ . : - and inner spaces.',
    ],
    [
      'an event with a trailing space',
      'performed',
      { event: 'a ' },
      'event',
      'must be an event name: 1 to 255 ASCII letters, digits, _ . : - and inner spaces.',
    ],
    ['a negative min', 'performed', { event: 'a', min: -1 }, 'min', 'must be a whole number from 0 to 1000000000.'],
    [
      'a fractional max',
      'performed',
      { event: 'a', max: 1.5 },
      'max',
      'must be null or a whole number from 0 to 1000000000.',
    ],
    ['min > max', 'performed', { event: 'a', min: 3, max: 2 }, 'min', 'must not be greater than max.'],
    [
      'within_days 0',
      'performed',
      { event: 'a', within_days: 0 },
      'within_days',
      'must be a whole number of days from 1 to 730.',
    ],
    [
      'within_days 731',
      'performed',
      { event: 'a', within_days: 731 },
      'within_days',
      'must be a whole number of days from 1 to 730.',
    ],
    [
      'within_days as text',
      'performed',
      { event: 'a', within_days: 'thirty' },
      'within_days',
      'must be a whole number of days from 1 to 730.',
    ],
    ['neither bound', 'last_performed', { event: 'a' }, '', 'needs before_days, after_days or both.'],
    [
      'after_days not beyond before_days',
      'last_performed',
      { event: 'a', before_days: 30, after_days: 30 },
      'after_days',
      'must be greater than before_days (the newest event is older than before_days and newer than after_days).',
    ],
    [
      'where not an array',
      'performed',
      { event: 'a', where: {} },
      'where',
      'must be an array of at most 20 conditions.',
    ],
    [
      'where of 21',
      'performed',
      { event: 'a', where: Array(21).fill({ field: 'properties.a', operator: 'exists' }) },
      'where',
      'must be an array of at most 20 conditions.',
    ],
    [
      'a where field outside properties',
      'performed',
      { event: 'a', where: [{ field: 'attributes.a', operator: 'exists' }] },
      'where.0.field',
      'must be properties.<key>[.<key>...] (keys [A-Za-z0-9_-]).',
    ],
    [
      'a behaviour operator in where',
      'performed',
      { event: 'a', where: [{ field: 'properties.a', operator: 'performed', value: {} }] },
      'where.0.operator',
      'must be one of equals, not_equals, contains, not_contains, starts_with, ends_with, in, not_in, gt, gte, lt, lte, between, exists, not_exists, within_last_days.',
    ],
    [
      'a where operand',
      'performed',
      { event: 'a', where: [{ field: 'properties.a', operator: 'gt', value: 'ten' }] },
      'where.0.value',
      'The value field must be a number or a date (YYYY-MM-DD).',
    ],
    [
      'a where key',
      'performed',
      { event: 'a', where: [{ field: 'properties.a', operator: 'exists', op: 1 }] },
      'where.0',
      'unknown key op.',
    ],
  ])('names what is wrong: %s', (_name, operator, value, path, reason) => {
    expect(parseBehaviour(operator, value)).toEqual({ error: { path, reason } });
  });

  it('takes an audience rule on `event`, its rule_value the node object (422 on rule_value otherwise)', () => {
    const parsed = parseRule(rule('performed', { event: 'purchase', min: 2 }));
    expect(parsed).toMatchObject({ kind: 'condition', condition: { field: { kind: 'event' }, operator: 'performed' } });
    expect(validateRule(rule('performed', { event: 'purchase', min: 3, max: 1 }))).toEqual({
      rule_value: ['The rule value field is not a valid performed condition at min: must not be greater than max.'],
    });
    expect(validateRule(rule('performed', 'purchase'))).toEqual({
      rule_value: [
        'The rule value field is not a valid performed condition: must be a JSON object with event, min, max, within_days, where.',
      ],
    });
    expect(validateRule(rule('equals', { event: 'purchase' }))).toEqual({
      operator: ['The selected operator cannot be used with this field.'],
    });
    expect(validateRule({ ...rule('performed', { event: 'a' }), field: 'attributes.a' })).toEqual({
      operator: ['The selected operator cannot be used with this field.'],
    });
  });

  it('takes tree nodes, alone and in all/any/not, and names a bad one by its path', () => {
    const tree = parseSegment(
      JSON.stringify({
        all: [
          { performed: { event: 'purchase', min: 2, within_days: 30 } },
          { not: { last_performed: { event: 'login', before_days: 7 } } },
          { field: 'event', operator: 'performed', value: { event: 'signup' } },
        ],
      }),
    );
    expect(tree.ok).toBe(true);
    expect(parseSegment('{"performed":{"event":"a","min":5,"max":1}}')).toEqual({
      ok: false,
      message:
        'The segment definition field must be a valid condition tree at performed.min: must not be greater than max.',
    });
    expect(parseSegment('{"any":[{"field":"email","operator":"exists"},{"last_performed":{"event":"a"}}]}')).toEqual({
      ok: false,
      message:
        'The segment definition field must be a valid condition tree at any.1.last_performed: needs before_days, after_days or both.',
    });
    expect(parseSegment('{"performed":{"event":"a"},"field":"email"}')).toEqual({
      ok: false,
      message: 'The segment definition field must be a valid condition tree: performed cannot be combined with field.',
    });
    expect(
      parseSegment('{"performed":{"event":"a","where":[{"field":"properties.x","operator":"in","value":[]}]}}'),
    ).toEqual({
      ok: false,
      message:
        'The segment definition field must be a valid condition tree at performed.where.0.value: The value field must be a JSON array of 1 to 1000 strings, numbers or booleans.',
    });
  });
});

describe('behaviour compiled', () => {
  const performed = (p: Partial<{ min: number; max: number | null; within_days: number }>) =>
    compileRules([conditionOf({ performed: { event: 'purchase', ...p } })], 'all', options('sqlite'));
  const conditionOf = (node: object) => {
    const parsed = parseSegment(JSON.stringify(node));
    if (!parsed.ok || parsed.segment.kind !== 'tree' || parsed.segment.tree.kind !== 'condition')
      throw new Error('no condition');
    return parsed.segment.tree.condition;
  };
  const events = (sql: string) =>
    'SELECT be.customer_id FROM customer_events be WHERE (be.tenant_id = ? AND be.name_id = (SELECT bn.id FROM ' +
    `customer_event_names bn WHERE (bn.tenant_id = ? AND bn.name = ?))${sql})`;

  it('counts at least min, at most max, in the window; min 0 is the complement of more than max', () => {
    expect(performed({})).toEqual({ sql: `c.id IN (${events('')})`, params: [7, 7, 'purchase'] });
    expect(performed({ min: 2, within_days: 30 })).toEqual({
      sql: `c.id IN (${events(' AND be.occurred_at >= ?')} GROUP BY be.customer_id HAVING COUNT(*) >= ?)`,
      params: [7, 7, 'purchase', NOW.getTime() - 30 * DAY, 2],
    });
    expect(performed({ min: 1, max: 3 }).sql).toBe(
      `c.id IN (${events('')} GROUP BY be.customer_id HAVING COUNT(*) <= ?)`,
    );
    expect(performed({ min: 0, max: 0 })).toEqual({ sql: `(NOT c.id IN (${events('')}))`, params: [7, 7, 'purchase'] });
    expect(performed({ min: 0, max: 2 }).sql).toBe(
      `(NOT c.id IN (${events('')} GROUP BY be.customer_id HAVING COUNT(*) > ?))`,
    );
    expect(performed({ min: 0 })).toEqual({ sql: '(1 = 1)', params: [] });
  });

  it('looks at the newest event for last_performed: some event (since after_days), and none since before_days', () => {
    const last = (bounds: object) =>
      compileRules([conditionOf({ last_performed: { event: 'login', ...bounds } })], 'all', options('mysql'));
    expect(last({ before_days: 30 })).toEqual({
      sql: `(c.id IN (${events('')}) AND (NOT c.id IN (${events(' AND be.occurred_at >= ?')})))`,
      params: [7, 7, 'login', 7, 7, 'login', NOW.getTime() - 30 * DAY],
    });
    expect(last({ after_days: 7 })).toEqual({
      sql: `c.id IN (${events(' AND be.occurred_at >= ?')})`,
      params: [7, 7, 'login', NOW.getTime() - 7 * DAY],
    });
    expect(last({ before_days: 7, after_days: 30 }).params).toEqual([
      7,
      7,
      'login',
      NOW.getTime() - 30 * DAY,
      7,
      7,
      'login',
      NOW.getTime() - 7 * DAY,
    ]);
  });

  it('puts column tests before behaviour, and needs the events tables to compile one', () => {
    const parsed = parseSegment(
      JSON.stringify({ all: [{ performed: { event: 'a' } }, { field: 'email', operator: 'exists' }] }),
    );
    if (!parsed.ok) throw new Error(parsed.message);
    const compiled = compileSegment(parsed.segment, options('sqlite'))!;
    expect(compiled.sql.startsWith('((c.email IS NOT NULL) AND c.id IN (')).toBe(true);
    expect(() => compileSegment(parsed.segment, { dialect: 'sqlite', alias: 'c', now: NOW })).toThrow(
      /need the tables of the tenant's events/,
    );
  });

  it('tests the properties of the counted events as the attributes of customers', () => {
    const { test } = parseBehaviour('performed', {
      event: 'a',
      where: [{ field: 'properties.plan', operator: 'not_in', value: ['x'] }],
    }) as { test: Test };
    const sql = compileRules(
      [{ field: { kind: 'event' }, operator: 'performed', negated: false, test }],
      'all',
      options('sqlite'),
    ).sql;
    expect(sql).toContain(
      "AND (NOT COALESCE((json_type(be.properties, '$.\"plan\"') = 'text' AND lower(json_extract(be.properties, '$.\"plan\"')) = ?), 0))",
    );
  });
});
