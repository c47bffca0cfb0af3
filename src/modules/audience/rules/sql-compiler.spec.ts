import { DataSource } from 'typeorm';
import { parseSegment } from './condition-tree.js';
import { OPERATORS_BY_FIELD_KIND, VALUE_OPERATORS, parseRule, type Condition } from './rule-grammar.js';
import {
  compileCondition,
  compileRules,
  compileSegment,
  impliedLowerBound,
  toNamedParameters,
  type CompileOptions,
  type Dialect,
  type SqlFragment,
} from './sql-compiler.js';

const NOW = new Date('2026-01-06T12:00:00Z');
/** The events' tables as a tenant's gateways scope them. */
const BEHAVIOUR = {
  events: { table: 'customer_events', scope: (alias: string) => ({ sql: `${alias}.tenant_id = ?`, params: [7] }) },
  names: { table: 'customer_event_names', scope: (alias: string) => ({ sql: `${alias}.tenant_id = ?`, params: [7] }) },
};
const options = (dialect: Dialect): CompileOptions => ({ dialect, alias: 'c', now: NOW, behaviour: BEHAVIOUR });

const condition = (field: string, operator: string, rule_value = 'x'): Condition => {
  const parsed = parseRule({ rule_type: 't', rule_value, field, operator });
  if (parsed.kind !== 'condition') throw new Error(`${field} ${operator} ${rule_value}: ${JSON.stringify(parsed)}`);
  return parsed.condition;
};

const OPERANDS: Record<string, Record<string, string>> = {
  text: { in: '["a","B"]', not_in: '["a"]' },
  boolean: { equals: 'true', not_equals: '0' },
  date: {
    equals: '2026-01-05',
    not_equals: '2026-01-05T10:00:00Z',
    gt: '2026-01-05',
    gte: '2026-01-05',
    lt: '2026-01-05',
    lte: '2026-01-05T10:00:00Z',
    between: '["2026-01-01","2026-01-31"]',
    within_last_days: '7',
  },
  attribute: {
    equals: '1',
    not_equals: 'true',
    in: '["a", 2, false]',
    not_in: '["a"]',
    gt: '5',
    gte: '2026-01-01',
    lt: '-1',
    lte: '1.5',
    between: '[1, 2]',
    within_last_days: '30',
  },
  event: {
    performed:
      '{"event":"purchase","min":2,"within_days":30,"where":[{"field":"properties.amount","operator":"gte","value":100}]}',
    last_performed: '{"event":"login","before_days":30}',
  },
};
const FIELDS: Record<string, string> = {
  text: 'first_name',
  boolean: 'is_active',
  date: 'created_at',
  attribute: 'attributes.a.b',
  event: 'event',
};

const placeholders = (sql: string) => (sql.match(/\?/g) ?? []).length;

describe('compileCondition', () => {
  it('emits one ? per parameter for every field kind, operator and dialect', () => {
    for (const [kind, operators] of Object.entries(OPERATORS_BY_FIELD_KIND)) {
      for (const operator of operators) {
        const c = condition(FIELDS[kind], operator, OPERANDS[kind][operator] ?? 'x');
        for (const dialect of ['mysql', 'sqlite'] as const) {
          const { sql, params } = compileCondition(c, options(dialect));
          expect([kind, operator, dialect, placeholders(sql)]).toEqual([kind, operator, dialect, params.length]);
        }
      }
    }
    expect(OPERATORS_BY_FIELD_KIND.attribute).toEqual(VALUE_OPERATORS);
  });

  it('prefilters text in the column collation on MariaDB, then compares exactly', () => {
    expect(compileCondition(condition('last_name', 'starts_with', 'O_Br'), options('mysql'))).toEqual({
      sql:
        "(c.last_name LIKE ? ESCAPE '!' AND c.last_name IS NOT NULL AND " +
        [...'ZYXWVUTSRQPONMLKJIHGFEDCBA'].map(() => 'REPLACE(').join('') +
        '(CONVERT(c.last_name USING utf8mb4) COLLATE utf8mb4_nopad_bin)' +
        [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((ch) => `, '${ch}', '${ch.toLowerCase()}')`).join('') +
        " LIKE ? ESCAPE '!')",
      params: ['o!_br%', 'o!_br%'],
    });
    expect(compileCondition(condition('last_name', 'starts_with', 'O_Br'), options('sqlite'))).toEqual({
      sql: "(c.last_name IS NOT NULL AND lower(c.last_name) LIKE ? ESCAPE '!')",
      params: ['o!_br%'],
    });
  });

  it('prefilters external_id (binary on MariaDB) by the spellings of equals and in, not in its collation', () => {
    const replaced = (expr: string) =>
      [...'ZYXWVUTSRQPONMLKJIHGFEDCBA'].map(() => 'REPLACE(').join('') +
      `(CONVERT(${expr} USING utf8mb4) COLLATE utf8mb4_nopad_bin)` +
      [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((ch) => `, '${ch}', '${ch.toLowerCase()}')`).join('');
    expect(compileCondition(condition('external_id', 'in', '["E-001", "e-1x"]'), options('mysql'))).toEqual({
      sql: `(c.external_id IN (?, ?, ?, ?, ?, ?) AND c.external_id IS NOT NULL AND ${replaced('c.external_id')} IN (?, ?))`,
      params: ['e-001', 'E-001', 'e-1x', 'e-1X', 'E-1x', 'E-1X', 'e-001', 'e-1x'],
    });
    expect(compileCondition(condition('external_id', 'starts_with', 'P%_'), options('mysql'))).toEqual({
      sql: `(c.external_id IS NOT NULL AND ${replaced('c.external_id')} LIKE ? ESCAPE '!')`,
      params: ['p!%!_%'],
    });
    // Too many spellings: the exact test alone.
    expect(compileCondition(condition('external_id', 'equals', 'abcdefghij'), options('mysql')).sql).toMatch(
      /^\(c\.external_id IS NOT NULL AND REPLACE\(/,
    );
  });

  it('compares e-mail with the operand lower-cased like stored e-mails', () => {
    expect(compileCondition(condition('email', 'ends_with', '@ÉXAMPLE.com'), options('sqlite'))).toEqual({
      sql: "(c.email IS NOT NULL AND c.email LIKE ? ESCAPE '!')",
      params: ['%@éxample.com'],
    });
    expect(compileCondition(condition('email', 'not_equals', 'A@B.C'), options('mysql'))).toEqual({
      sql: '(NOT (c.email = ? AND c.email IS NOT NULL AND (CONVERT(c.email USING utf8mb4) COLLATE utf8mb4_nopad_bin) = ?))',
      params: ['a@b.c', 'a@b.c'],
    });
  });

  it('prefilters e-mail only where the (tenant_id, email) index serves it', () => {
    expect(compileCondition(condition('email', 'ends_with', '@Gmail.com'), options('mysql'))).toEqual({
      sql: "(c.email IS NOT NULL AND (CONVERT(c.email USING utf8mb4) COLLATE utf8mb4_nopad_bin) LIKE ? ESCAPE '!')",
      params: ['%@gmail.com'],
    });
    expect(compileCondition(condition('email', 'starts_with', 'Ana'), options('mysql')).sql).toMatch(
      /^\(c\.email LIKE \? ESCAPE '!' AND c\.email IS NOT NULL AND /,
    );
  });

  it('checks an attribute is a string on MariaDB only when a number or boolean could read as the operand', () => {
    const typeCheck = `JSON_TYPE(JSON_EXTRACT(c.attributes, '$."a"')) = 'STRING'`;
    expect(compileCondition(condition('attributes.a', 'contains', 'x1'), options('mysql')).sql).not.toContain(
      typeCheck,
    );
    expect(compileCondition(condition('attributes.a', 'contains', 'E'), options('mysql')).sql).toContain(typeCheck);
    expect(compileCondition(condition('attributes.a', 'in', '["nl", "1"]'), options('mysql')).sql).toContain(typeCheck);
  });

  it('compares date columns with whole-second UTC text, a date-only operand being its whole day', () => {
    expect(compileCondition(condition('created_at', 'equals', '2026-01-05'), options('sqlite'))).toEqual({
      sql: '(c.created_at IS NOT NULL AND c.created_at >= ? AND c.created_at <= ?)',
      params: ['2026-01-05 00:00:00', '2026-01-05 23:59:59.999'],
    });
    expect(compileCondition(condition('updated_at', 'within_last_days', '2'), options('mysql'))).toEqual({
      sql: '(c.updated_at IS NOT NULL AND c.updated_at >= ? AND c.updated_at <= ?)',
      params: ['2026-01-04 12:00:00', '2026-01-06 12:00:00.999'],
    });
    expect(compileCondition(condition('created_at', 'gt', '2026-01-05T10:00:00.250Z'), options('sqlite'))).toEqual({
      sql: '(c.created_at IS NOT NULL AND c.created_at >= ?)',
      params: ['2026-01-05 10:00:01'],
    });
  });

  it('reads attributes through quoted JSON paths, typed', () => {
    const { sql, params } = compileCondition(condition('attributes.a-b.c_1', 'gt', '5'), options('sqlite'));
    expect(sql).toBe(
      `COALESCE(CASE WHEN json_type(c.attributes, '$."a-b"."c_1"') IN ('integer', 'real') ` +
        `THEN CAST(json_extract(c.attributes, '$."a-b"."c_1"') AS REAL) END > ?, 0)`,
    );
    expect(params).toEqual([5]);
    expect(compileCondition(condition('attributes.a', 'exists'), options('mysql')).sql).toBe(
      `COALESCE((CONVERT(JSON_EXTRACT(c.attributes, '$."a"') USING utf8mb4) COLLATE utf8mb4_nopad_bin) <> 'null', 0)`,
    );
  });

  it('refuses an alias that is not an identifier', () => {
    expect(() => compileCondition(condition('email', 'exists'), { ...options('sqlite'), alias: 'c; DROP' })).toThrow();
  });
});

describe('compileRules', () => {
  it('matches nobody without evaluable rules, whatever the match mode', () => {
    expect(compileRules([], 'all', options('sqlite')).sql).toBe('(1 = 0)');
    expect(compileRules([], 'any', options('mysql')).sql).toBe('(1 = 0)');
  });

  it('puts column tests before attribute tests, which parse JSON', () => {
    const rules = [
      condition('attributes.a', 'exists'),
      condition('email', 'exists'),
      condition('created_at', 'exists'),
    ];
    expect(compileRules(rules, 'all', options('sqlite')).sql).toBe(
      "((c.created_at IS NOT NULL) AND (c.email IS NOT NULL) AND COALESCE(json_type(c.attributes, '$.\"a\"') <> 'null', 0))",
    );
  });

  it('joins rules by match', () => {
    const rules = [condition('email', 'exists'), condition('phone', 'not_exists')];
    expect(compileRules(rules, 'all', options('sqlite')).sql).toBe(
      '((c.email IS NOT NULL) AND (NOT (c.phone IS NOT NULL)))',
    );
    expect(compileRules(rules, 'any', options('sqlite')).sql).toBe(
      '((c.email IS NOT NULL) OR (NOT (c.phone IS NOT NULL)))',
    );
  });
});

describe('toNamedParameters', () => {
  it('names the parameters in order for the query builder', () => {
    const fragment = compileRules(
      [condition('first_name', 'in', '["a","b"]'), condition('created_at', 'gt', '2026-01-01')],
      'all',
      options('sqlite'),
    );
    expect(toNamedParameters(fragment, 'rule')).toEqual({
      sql: '((c.created_at IS NOT NULL AND c.created_at >= :rule0) AND (c.first_name IS NOT NULL AND lower(c.first_name) IN (:rule1, :rule2)))',
      parameters: { rule0: '2026-01-02 00:00:00', rule1: 'a', rule2: 'b' },
    });
  });
});

describe('impliedLowerBound', () => {
  it('is the latest lower bound on the column that every member must meet', () => {
    const rules = [
      condition('created_at', 'within_last_days', '30'),
      condition('created_at', 'gt', '2025-12-20'),
      condition('updated_at', 'gte', '2026-01-01'),
      condition('email', 'exists'),
    ];
    expect(impliedLowerBound(rules, 'all', 'created_at', NOW)).toBe('2025-12-21 00:00:00');
    expect(impliedLowerBound(rules, 'all', 'updated_at', NOW)).toBe('2026-01-01 00:00:00');
    expect(impliedLowerBound([rules[0]], 'any', 'created_at', NOW)).toBe('2025-12-07 12:00:00');
  });

  it('is null when members need not meet one', () => {
    expect(impliedLowerBound([condition('created_at', 'lt', '2026-01-01')], 'all', 'created_at', NOW)).toBeNull();
    expect(
      impliedLowerBound([condition('created_at', 'not_equals', '2026-01-01')], 'all', 'created_at', NOW),
    ).toBeNull();
    const either = [condition('created_at', 'within_last_days', '3'), condition('email', 'exists')];
    expect(impliedLowerBound(either, 'any', 'created_at', NOW)).toBeNull();
  });
});

/** Evaluates compiled conditions on an in-memory SQLite table (the e2e matrix compares both databases). */
describe('on SQLite', () => {
  const db = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
  const members = async (fragment: SqlFragment) =>
    (
      (await db.query(
        `SELECT external_id FROM customers c WHERE ${fragment.sql} ORDER BY external_id`,
        fragment.params,
      )) as {
        external_id: string;
      }[]
    ).map((r) => r.external_id);
  const run = (field: string, operator: string, value = 'x') =>
    members(compileCondition(condition(field, operator, value), options('sqlite')));

  beforeAll(async () => {
    await db.initialize();
    await db.query(`CREATE TABLE customers (id INTEGER PRIMARY KEY, external_id TEXT, first_name TEXT, email TEXT,
      is_active BOOLEAN NOT NULL DEFAULT 1, attributes TEXT, created_at DATETIME)`);
    const rows: [string, string | null, string | null, number, string | null, string | null][] = [
      ['a', 'Ana', 'ana@example.com', 1, '{"n":5,"s":"5","b":true,"d":"2026-01-01"}', '2026-01-05 10:00:00.000'],
      ['b', 'ANA', null, 0, '{"n":5.0,"s":"Five","b":false,"x":null}', '2026-01-06 00:00:00.000'],
      ['c', 'Ána', 'x%y@example.org', 1, '{"n":"7","o":{"k":1},"d":"2025-12-31T23:00:00Z"}', null],
      ['d', null, 'd@example.com', 1, null, '2025-06-01 00:00:00.000'],
      ['e', '50%_off', 'e@example.com', 1, '[1,2]', '2026-01-06 12:00:00.000'],
    ];
    for (const row of rows) {
      await db.query(
        'INSERT INTO customers (external_id, first_name, email, is_active, attributes, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        row,
      );
    }
  });
  afterAll(() => db.destroy());

  it.each<[string, string, string, string[]]>([
    ['first_name', 'equals', 'ana', ['a', 'b']],
    ['first_name', 'not_equals', 'ana', ['c', 'd', 'e']],
    ['first_name', 'contains', '%_', ['e']],
    ['first_name', 'contains', '%', ['e']],
    ['first_name', 'starts_with', 'á', []],
    ['email', 'ends_with', '@EXAMPLE.COM', ['a', 'd', 'e']],
    ['email', 'contains', 'x%', ['c']],
    ['email', 'not_exists', '-', ['b']],
    ['is_active', 'equals', 'FALSE', ['b']],
    ['attributes.n', 'equals', '5', ['a', 'b']],
    ['attributes.n', 'gt', '4', ['a', 'b']],
    ['attributes.n', 'not_in', '[5]', ['c', 'd', 'e']],
    ['attributes.s', 'equals', '5', ['a']],
    ['attributes.s', 'gt', '1', []],
    ['attributes.b', 'equals', '1', ['a']],
    ['attributes.b', 'equals', 'false', ['b']],
    ['attributes.x', 'exists', '-', []],
    ['attributes.x', 'not_exists', '-', ['a', 'b', 'c', 'd', 'e']],
    ['attributes.o', 'exists', '-', ['c']],
    ['attributes.o', 'not_equals', 'x', ['a', 'b', 'c', 'd', 'e']],
    ['attributes.o.k', 'equals', '1', ['c']],
    ['attributes.d', 'lt', '2026-01-01', ['c']],
    ['attributes.d', 'within_last_days', '5', ['a']],
    ['created_at', 'equals', '2026-01-06', ['b', 'e']],
    ['created_at', 'gt', '2026-01-05', ['b', 'e']],
    ['created_at', 'lte', '2026-01-05', ['a', 'd']],
    ['created_at', 'within_last_days', '1', ['b', 'e']],
    ['created_at', 'within_last_days', '2', ['a', 'b', 'e']],
    ['created_at', 'not_exists', '-', ['c']],
  ])('%s %s %s', async (field, operator, value, expected) => {
    expect(await run(field, operator, value)).toEqual(expected);
  });

  it('plugs into a TypeORM query builder with named parameters', async () => {
    const filter = toNamedParameters(
      compileRules(
        [condition('first_name', 'equals', 'ANA'), condition('is_active', 'equals', '1')],
        'all',
        options('sqlite'),
      ),
      'audience',
    );
    const rows = await db
      .createQueryBuilder()
      .select('c.external_id', 'external_id')
      .from('customers', 'c')
      .where(filter.sql, filter.parameters)
      .orderBy('c.id', 'DESC')
      .getRawMany();
    expect(rows).toEqual([{ external_id: 'a' }]);
  });

  it('narrows by a condition tree', async () => {
    const parsed = parseSegment(
      '{"all":[{"field":"is_active","operator":"equals","value":true},{"not":{"field":"email","operator":"ends_with","value":".org"}}]}',
    );
    if (!parsed.ok) throw new Error(parsed.message);
    expect(await members(compileSegment(parsed.segment, options('sqlite'))!)).toEqual(['a', 'd', 'e']);
  });
});
