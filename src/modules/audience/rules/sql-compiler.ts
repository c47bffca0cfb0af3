import type { ConditionTree, Segment } from './condition-tree.js';
import {
  DAY_MS,
  asciiLower,
  type Bound,
  type Condition,
  type DateField,
  type EqualityValue,
  type FieldRef,
  type LastPerformed,
  type MatchMode,
  type Performed,
  type PropertyCondition,
  type Test,
  type TextField,
} from './rule-grammar.js';

/**
 * Compiles conditions into one SQL boolean expression over the customers table, for MariaDB
 * (`mysql`) and SQLite, with positional `?` parameters. The two dialects give the same truth
 * value for every customer; the semantics are in README.md beside this file. In short:
 *
 * - Every condition is two-valued (never NULL), so `NOT` is its exact complement and the negative
 *   operators match missing and null fields.
 * - Text compares ignoring ASCII case only; other characters (accents, non-Latin letters)
 *   compare exactly, and trailing spaces count. `email` is stored lower-cased, so its operand is
 *   lower-cased the same way (Unicode) and compared exactly.
 * - Attribute values are typed: text operators see JSON strings, numeric comparisons see JSON
 *   numbers, date comparisons see strings starting with `YYYY-MM-DD`; `equals` matches a string,
 *   a number or a boolean equal to the operand read each way.
 * - On MariaDB, text conditions first run a case-insensitive comparison in the column's
 *   collation (utf8mb4_unicode_ci: it can use an index, and it is true whenever the exact test
 *   is), then the exact test on the rows that pass it.
 * - No expression casts text that is not a number, so none raises a warning (strict mode makes
 *   warnings errors in INSERT ... SELECT and UPDATE).
 */

export type Dialect = 'mysql' | 'sqlite';
export type SqlParam = string | number;

export interface SqlFragment {
  sql: string;
  params: SqlParam[];
}

export interface CompileOptions {
  dialect: Dialect;
  /** Alias (or name) of the customers table in the surrounding query. */
  alias: string;
  /** The instant `within_last_days` counts back from. */
  now: Date;
  /** The tenant's tracked events, for the behaviour operators (`performed`, `last_performed`). */
  behaviour?: BehaviourTables;
}

/** A table a behaviour reads, and the condition that keeps it to the tenant (its gateway's scope). */
export interface ScopedTableRef {
  table: string;
  scope: (alias: string) => SqlFragment;
}

/** The tables behind the behaviour operators: the tenant's events and its dictionary of their names. */
export interface BehaviourTables {
  events: ScopedTableRef;
  names: ScopedTableRef;
}

export const MATCH_NOBODY: SqlFragment = { sql: '(1 = 0)', params: [] };
export const MATCH_EVERYBODY: SqlFragment = { sql: '(1 = 1)', params: [] };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const JSON_KEY = /^[A-Za-z0-9_-]+$/;
const ASCII_UPPER = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
const LIKE_ESCAPE = `ESCAPE '!'`;

const frag = (sql: string, params: SqlParam[] = []): SqlFragment => ({ sql, params });

/** Joins fragments with AND / OR, in parentheses; params stay in textual order. */
function combine(fragments: SqlFragment[], glue: 'AND' | 'OR'): SqlFragment {
  if (fragments.length === 1) return fragments[0];
  return frag(
    `(${fragments.map((f) => f.sql).join(` ${glue} `)})`,
    fragments.flatMap((f) => f.params),
  );
}

export const and = (...fragments: SqlFragment[]): SqlFragment =>
  fragments.length ? combine(fragments, 'AND') : MATCH_EVERYBODY;
export const or = (...fragments: SqlFragment[]): SqlFragment =>
  fragments.length ? combine(fragments, 'OR') : MATCH_NOBODY;
export const not = (fragment: SqlFragment): SqlFragment => frag(`(NOT ${fragment.sql})`, fragment.params);

/**
 * Rough evaluation cost of a condition: MariaDB evaluates AND / OR operands in the order written
 * and stops early, so cheap column tests go before attribute tests, which parse the JSON. Every
 * condition is two-valued, so the order never changes the result.
 */
const FIELD_COST: Record<FieldRef['kind'], number> = { boolean: 1, date: 1, text: 2, attribute: 10, event: 50 };

function treeCost(tree: ConditionTree): number {
  if (tree.kind === 'condition') return FIELD_COST[tree.condition.field.kind];
  if (tree.kind === 'not') return treeCost(tree.child);
  return tree.children.reduce((sum, child) => sum + treeCost(child), 0);
}

const cheapestFirst = <T>(items: T[], cost: (item: T) => number): T[] =>
  items
    .map((item, index) => ({ item, index, cost: cost(item) }))
    .sort((a, b) => a.cost - b.cost || a.index - b.index)
    .map(({ item }) => item);

/**
 * The fragment with named parameters (`:prefix0`, `:prefix1`, ...) for TypeORM's query builder,
 * which does not take positional ones. The compiled SQL has no `?` other than its parameters
 * (JSON paths are letters, digits, `_`, `-`), so every `?` is one.
 */
export function toNamedParameters(
  fragment: SqlFragment,
  prefix: string,
): { sql: string; parameters: Record<string, SqlParam> } {
  if (!IDENTIFIER.test(prefix)) throw new Error(`Not a parameter prefix: ${prefix}`);
  const parameters: Record<string, SqlParam> = {};
  let index = 0;
  const sql = fragment.sql.replace(/\?/g, () => {
    const name = `${prefix}${index}`;
    parameters[name] = fragment.params[index++];
    return `:${name}`;
  });
  if (index !== fragment.params.length) throw new Error('Placeholders and parameters differ in number');
  return { sql, parameters };
}

/** An audience: its evaluable conditions joined by `match`; no evaluable condition matches nobody. */
export function compileRules(conditions: Condition[], match: MatchMode, options: CompileOptions): SqlFragment {
  const compiled = cheapestFirst(conditions, (c) => FIELD_COST[c.field.kind]).map((c) => compileCondition(c, options));
  return match === 'any' ? or(...compiled) : compiled.length ? and(...compiled) : MATCH_NOBODY;
}

export function compileTree(tree: ConditionTree, options: CompileOptions): SqlFragment {
  switch (tree.kind) {
    case 'all':
      return and(...cheapestFirst(tree.children, treeCost).map((child) => compileTree(child, options)));
    case 'any':
      return or(...cheapestFirst(tree.children, treeCost).map((child) => compileTree(child, options)));
    case 'not':
      return not(compileTree(tree.child, options));
    case 'condition':
      return compileCondition(tree.condition, options);
  }
}

/** The narrowing a segment adds to its audience; null for an opaque segment (it narrows nothing). */
export function compileSegment(segment: Segment, options: CompileOptions): SqlFragment | null {
  return segment.kind === 'tree' ? compileTree(segment.tree, options) : null;
}

export function compileCondition(condition: Condition, options: CompileOptions): SqlFragment {
  if (!IDENTIFIER.test(options.alias)) throw new Error(`Not a table alias: ${options.alias}`);
  const positive = compileTest(condition.field, condition.test, options);
  return condition.negated ? not(positive) : positive;
}

function compileTest(field: FieldRef, test: Test, options: CompileOptions): SqlFragment {
  switch (field.kind) {
    case 'text':
      return textColumn(options.alias, field.column, test, options.dialect);
    case 'boolean':
      return booleanColumn(`${options.alias}.${field.column}`, test);
    case 'date':
      return dateColumn(`${options.alias}.${field.column}`, test, options.now);
    case 'attribute':
      return attribute(`${options.alias}.attributes`, field.path, test, options);
    case 'event':
      return behaviour(test, options);
  }
}

const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');
const inList = (expr: string, values: SqlParam[]): SqlFragment =>
  values.length === 1 ? frag(`${expr} = ?`, values) : frag(`${expr} IN (${placeholders(values.length)})`, values);

const likeEscape = (text: string) => text.replace(/[!%_]/g, (c) => `!${c}`);

function likePattern(match: 'contains' | 'starts_with' | 'ends_with', text: string): string {
  const escaped = likeEscape(text);
  return match === 'contains' ? `%${escaped}%` : match === 'starts_with' ? `${escaped}%` : `%${escaped}`;
}

/** MariaDB: the value in a binary, no-pad collation, with ASCII capitals lower-cased (only those). */
function mysqlExact(expr: string, foldCase: boolean): string {
  const binary = `(CONVERT(${expr} USING utf8mb4) COLLATE utf8mb4_nopad_bin)`;
  return foldCase
    ? ASCII_UPPER.reduce((inner, c) => `REPLACE(${inner}, '${c}', '${c.toLowerCase()}')`, binary)
    : binary;
}

/** How a text test reads one value. */
interface TextValue {
  expr: string;
  /** SQL that is true when the value is text; null when the (folded) operands alone rule out any other value. */
  guard: (operands: string[]) => string | null;
  /** Lower-case the stored value's ASCII capitals (not for e-mail, stored lower-cased). */
  foldCase: boolean;
  /** The operand as the exact test compares it. */
  fold: (text: string) => string;
  /** MariaDB: run the case-insensitive prefilter first (worth it when an index serves it or the exact test is costly). */
  prefilter: (test: TextTestKind) => boolean;
  /**
   * MariaDB: the value compares bytes (a binary collation), so the prefilter cannot be a comparison in
   * it: it lists the stored spellings the operands allow instead (equals and in only).
   */
  binary?: boolean;
}

type TextTestKind = Extract<Test, { kind: 'equals' | 'text' }>;

/**
 * A text test. MariaDB: the case-insensitive prefilter in the value's own collation first (cheap,
 * sargable on an indexed column, and true whenever the exact test is), then the guard and the
 * exact test. SQLite: lower() and LIKE fold ASCII only, as the test wants.
 */
function textTest(value: TextValue, test: TextTestKind, dialect: Dialect): SqlFragment {
  const { expr } = value;
  const exact = dialect === 'mysql' ? mysqlExact(expr, value.foldCase) : value.foldCase ? `lower(${expr})` : expr;
  const operands = test.kind === 'equals' ? [...new Set(test.values.map((v) => value.fold(v.text)))] : [];
  const pattern = test.kind === 'text' ? likePattern(test.match, value.fold(test.text)) : '';
  const guard = value.guard(test.kind === 'equals' ? operands : [value.fold(test.text)]);
  const compare = (e: string) =>
    test.kind === 'equals' ? inList(e, operands) : frag(`${e} LIKE ? ${LIKE_ESCAPE}`, [pattern]);
  const prefilter =
    dialect !== 'mysql' || !value.prefilter(test) ? [] : value.binary ? spellings(expr, operands) : [compare(expr)];
  return and(...prefilter, ...(guard ? [frag(guard)] : []), compare(exact));
}

/** At most this many spellings make a prefilter; more are left to the exact test alone. */
const MAX_SPELLINGS = 1000;

/**
 * `expr IN (...)` over every spelling of the (folded) operands that differs only in ASCII case
 * (`e-003` → `e-003`, `E-003`): exact on a binary column and served by its index. Empty when
 * there are too many spellings.
 */
function spellings(expr: string, operands: string[]): SqlFragment[] {
  const all = new Set<string>();
  for (const operand of operands) {
    let variants = [''];
    for (const c of operand) {
      const upper = /[a-z]/.test(c) ? c.toUpperCase() : c;
      variants = variants.flatMap((v) => (upper === c ? [v + c] : [v + c, v + upper]));
      if (variants.length > MAX_SPELLINGS) return [];
    }
    for (const v of variants) all.add(v);
    if (all.size > MAX_SPELLINGS) return [];
  }
  return all.size ? [inList(expr, [...all])] : [];
}

/** Characters of the text MariaDB's JSON_VALUE gives numbers and booleans (`1e5`, `-2.5`, `1` for true). */
const NUMBER_TEXT = /^[0-9e+.-]*$/;

function unsupported(test: Test, field: string): never {
  throw new Error(`The ${test.kind} test does not apply to ${field}`);
}

/**
 * `external_id` and `email` are stored in a binary, no-pad collation on MariaDB (migration
 * 1764600000000): comparisons in the column's own collation are exact, case included. The other
 * text columns are in the database's case-insensitive collation (utf8mb4_unicode_ci).
 */
function textColumn(alias: string, name: TextField, test: Test, dialect: Dialect): SqlFragment {
  const column = `${alias}.${name}`;
  const present = `${column} IS NOT NULL`;
  if (test.kind === 'exists') return frag(`(${present})`);
  if (test.kind !== 'equals' && test.kind !== 'text') unsupported(test, column);
  const value = { expr: column, guard: () => present };
  if (name === 'external_id') {
    // Rules ignore ASCII case here too, so a comparison in the binary collation cannot prefilter
    // (`= 'e-003'` misses `E-003`): equals and in list the operands' spellings instead.
    const prefilter = (t: TextTestKind) => t.kind === 'equals';
    return textTest({ ...value, foldCase: true, fold: asciiLower, prefilter, binary: true }, test, dialect);
  }
  // E-mails are stored lower-cased (Unicode, as the DTO does): the operand is lower-cased the same
  // way and the exact test is a plain binary comparison, so the prefilter only serves the index.
  return name === 'email'
    ? textTest(
        {
          ...value,
          foldCase: false,
          fold: (text) => text.toLowerCase(),
          prefilter: (t) => t.kind === 'equals' || t.match === 'starts_with',
        },
        test,
        dialect,
      )
    : textTest({ ...value, foldCase: true, fold: asciiLower, prefilter: () => true }, test, dialect);
}

function booleanColumn(column: string, test: Test): SqlFragment {
  const present = `${column} IS NOT NULL`;
  if (test.kind === 'exists') return frag(`(${present})`);
  if (test.kind !== 'equals') unsupported(test, column);
  const values = [...new Set(test.values.map((v) => (v.boolean ? 1 : 0)))];
  return and(frag(present), inList(column, values));
}

const SECOND_MS = 1000;
const instantText = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/**
 * Date columns hold whole UTC seconds: MariaDB `timestamp`, SQLite text `YYYY-MM-DD HH:MM:SS.SSS`.
 * Each bound becomes an inclusive whole-second bound, the lower one written without a fraction
 * and the upper one with `.999`, so that the text comparison on SQLite is right with or without
 * milliseconds in the stored text ("...:SS" sorts before "...:SS.000"), and MariaDB reads the
 * same text as a timestamp. The comparisons stay sargable on (tenant_id, created_at).
 */
function instantRange(column: string, lower: Bound | null, upper: Bound | null): SqlFragment {
  const parts = [frag(`${column} IS NOT NULL`)];
  if (lower) parts.push(frag(`${column} >= ?`, [instantText(firstSecond(lower) * SECOND_MS)]));
  if (upper) parts.push(frag(`${column} <= ?`, [`${instantText(lastSecond(upper) * SECOND_MS)}.999`]));
  return and(...parts);
}

const instantMs = (b: Bound) => {
  if (b.kind !== 'instant') throw new Error(`A ${b.kind} bound does not apply to a date column`);
  return b.at.getTime();
};
/** The first whole second (epoch seconds) a lower bound admits, and the last one an upper bound admits. */
const firstSecond = (b: Bound) =>
  b.inclusive ? Math.ceil(instantMs(b) / SECOND_MS) : Math.floor(instantMs(b) / SECOND_MS) + 1;
const lastSecond = (b: Bound) =>
  b.inclusive ? Math.floor(instantMs(b) / SECOND_MS) : Math.ceil(instantMs(b) / SECOND_MS) - 1;

/** The bounds of a date test: `recent` counts back from now. */
function instantBounds(test: Test, now: Date): { lower: Bound | null; upper: Bound | null } | null {
  if (test.kind === 'range') return test;
  if (test.kind !== 'recent') return null;
  return {
    lower: { kind: 'instant', at: new Date(now.getTime() - test.days * DAY_MS), inclusive: true },
    upper: { kind: 'instant', at: now, inclusive: true },
  };
}

function dateColumn(column: string, test: Test, now: Date): SqlFragment {
  if (test.kind === 'exists') return frag(`(${column} IS NOT NULL)`);
  const bounds = instantBounds(test, now);
  if (!bounds) unsupported(test, column);
  return instantRange(column, bounds.lower, bounds.upper);
}

/**
 * The earliest `column` value every member of an audience has, when its rules imply one (a
 * positive range or within_last_days on the column, in `all` mode or as the only rule), as the
 * parameter text the compiled SQL uses; null otherwise. A keyset list by id can turn it into an
 * exact id floor, `SELECT MIN(id) FROM customers` of the tenant `AND created_at >= ?` (one
 * range read of (tenant_id, created_at, id)), so that its last page stops at the oldest
 * candidate instead of scanning every older customer.
 */
export function impliedLowerBound(
  conditions: Condition[],
  match: MatchMode,
  column: DateField,
  now: Date,
): string | null {
  if (match === 'any' && conditions.length !== 1) return null;
  const seconds = conditions.flatMap((c) => {
    if (c.negated || c.field.kind !== 'date' || c.field.column !== column) return [];
    const lower = instantBounds(c.test, now)?.lower;
    return lower ? [firstSecond(lower)] : [];
  });
  return seconds.length ? instantText(Math.max(...seconds) * SECOND_MS) : null;
}

/** The JSON path of attribute keys, quoted member by member (keys are letters, digits, `_`, `-`). */
function jsonPath(path: string[]): string {
  if (!path.length || !path.every((key) => JSON_KEY.test(key))) throw new Error('Not an attribute path');
  return `'$${path.map((key) => `."${key}"`).join('')}'`;
}

interface JsonAccess {
  /** The value's JSON type name (NULL when the path is missing). */
  type: string;
  /** The scalar value: unquoted text of a string, the number, ... */
  value: string;
  /** The type name of JSON strings. */
  string: string;
  /** True when the value is present and not JSON null. */
  exists: string;
  /** The value as a double, for JSON numbers only (NULL otherwise). */
  number: string;
  /** True when the value is a JSON boolean of one of these truth values. */
  booleanIn: (values: boolean[]) => string;
}

function jsonAccess(column: string, path: string[], dialect: Dialect): JsonAccess {
  const p = jsonPath(path);
  if (dialect === 'mysql') {
    const extracted = `JSON_EXTRACT(${column}, ${p})`;
    const type = `JSON_TYPE(${extracted})`;
    // Compared as plain binary text: MariaDB compares JSON_EXTRACT's own result as JSON (`"true"` = 'true').
    const raw = `(CONVERT(${extracted} USING utf8mb4) COLLATE utf8mb4_nopad_bin)`;
    const value = `JSON_VALUE(${column}, ${p})`;
    return {
      type,
      value,
      string: 'STRING',
      // JSON_EXTRACT writes JSON null and booleans as bare words, strings quoted.
      exists: `${raw} <> 'null'`,
      number: `CASE WHEN ${type} IN ('INTEGER', 'DOUBLE') THEN CAST(${value} AS DOUBLE) END`,
      booleanIn: (values) => `${raw} IN (${quoteList(values.map(String))})`,
    };
  }
  const type = `json_type(${column}, ${p})`;
  const value = `json_extract(${column}, ${p})`;
  return {
    type,
    value,
    string: 'text',
    exists: `${type} <> 'null'`,
    // As a double on both databases (SQLite would compare big integers exactly).
    number: `CASE WHEN ${type} IN ('integer', 'real') THEN CAST(${value} AS REAL) END`,
    booleanIn: (values) => `${type} IN (${quoteList(values.map(String))})`,
  };
}

const quoteList = (names: string[]) => names.map((n) => `'${n}'`).join(', ');

/**
 * An attribute as text. MariaDB's JSON_VALUE also gives numbers and booleans as text, so the
 * string-type guard (a second JSON parse) is needed only for operands made of number characters.
 */
function attributeText(json: JsonAccess, dialect: Dialect): TextValue {
  const isString = `${json.type} = '${json.string}'`;
  return {
    expr: json.value,
    guard: (operands) => (dialect === 'sqlite' || operands.some((o) => NUMBER_TEXT.test(o)) ? isString : null),
    foldCase: true,
    fold: asciiLower,
    prefilter: () => true,
  };
}

function attribute(column: string, path: string[], test: Test, options: CompileOptions): SqlFragment {
  const { dialect } = options;
  const json = jsonAccess(column, path, dialect);
  // COALESCE makes each test two-valued: a missing path or a NULL column is false, never NULL.
  const twoValued = (inner: SqlFragment) => frag(`COALESCE(${inner.sql}, 0)`, inner.params);

  switch (test.kind) {
    case 'exists':
      return twoValued(frag(json.exists));
    case 'text':
      return twoValued(textTest(attributeText(json, dialect), test, dialect));
    case 'equals':
      return twoValued(attributeEquals(json, test.values, dialect));
    case 'range':
      return twoValued(attributeRange(json, dialect, test.lower, test.upper));
    case 'performed':
    case 'last_performed':
      return unsupported(test, column);
    case 'recent': {
      const today = utcDay(options.now);
      const from = utcDay(new Date(options.now.getTime() - test.days * DAY_MS));
      return twoValued(
        attributeRange(
          json,
          dialect,
          { kind: 'day', day: from, inclusive: true },
          { kind: 'day', day: today, inclusive: true },
        ),
      );
    }
  }
}

const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** equals / in: a string equal ignoring ASCII case, a number equal as a double, a boolean of the same truth. */
function attributeEquals(json: JsonAccess, values: EqualityValue[], dialect: Dialect): SqlFragment {
  const parts = [textTest(attributeText(json, dialect), { kind: 'equals', values }, dialect)];
  const numbers = [...new Set(values.flatMap((v) => (v.number === null ? [] : [v.number])))];
  if (numbers.length) parts.push(inList(json.number, numbers));
  const booleans = [...new Set(values.flatMap((v) => (v.boolean === null ? [] : [v.boolean])))];
  if (booleans.length) parts.push(frag(json.booleanIn(booleans)));
  return or(...parts);
}

/**
 * A range on an attribute: numbers compare as doubles with JSON numbers; days compare with the
 * first ten characters of a JSON string when they read `DDDD-DD-DD`.
 */
function attributeRange(json: JsonAccess, dialect: Dialect, lower: Bound | null, upper: Bound | null): SqlFragment {
  const kind = (lower ?? upper)!.kind;
  let expr: string;
  if (kind === 'number') expr = json.number;
  else if (dialect === 'mysql') {
    const head = `(CONVERT(LEFT(${json.value}, 10) USING utf8mb4) COLLATE utf8mb4_nopad_bin)`;
    expr = `CASE WHEN ${json.type} = '${json.string}' AND ${json.value} REGEXP '^[0-9]{4}-[0-9]{2}-[0-9]{2}' THEN ${head} END`;
  } else {
    const head = `substr(${json.value}, 1, 10)`;
    expr = `CASE WHEN ${json.type} = '${json.string}' AND ${head} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' THEN ${head} END`;
  }
  const param = (b: Bound): SqlParam => {
    if (b.kind !== kind || b.kind === 'instant') throw new Error('Mixed bounds in one range');
    return b.kind === 'number' ? b.value : b.day;
  };
  if (lower && upper && lower.inclusive && upper.inclusive)
    return frag(`${expr} BETWEEN ? AND ?`, [param(lower), param(upper)]);
  const parts: SqlFragment[] = [];
  if (lower) parts.push(frag(`${expr} >${lower.inclusive ? '=' : ''} ?`, [param(lower)]));
  if (upper) parts.push(frag(`${expr} <${upper.inclusive ? '=' : ''} ?`, [param(upper)]));
  return and(...parts);
}

// ---- behaviour: the customer's tracked events ----

/** Aliases of the behaviour subqueries (each is its own scope, so one pair serves every node). */
const EVENTS = 'be';
const NAMES = 'bn';

/**
 * A behaviour node as `c.id IN (...)` / `c.id NOT IN (...)` over the customer ids of the tenant's
 * matching events: one uncorrelated subquery, which MariaDB materializes once (or semi-joins when
 * it has no GROUP BY) and SQLite evaluates once. The name's id is a scalar subquery on the
 * dictionary's unique (tenant, name) key, which both databases evaluate once, as a constant: the
 * events are then read by (tenant, name, timestamp), or by (tenant, name, customer) in customer
 * order for a count over every kept event (a join with the dictionary made MariaDB group them in a
 * temporary table instead). Two-valued: customer_id is never NULL, so NOT IN is the exact
 * complement.
 *
 * - performed, min ≥ 1: the customers with at least `min` (and at most `max`) matching events;
 *   min 0 with a max: NOT the customers with more than `max`; min 0 without a max: everybody.
 * - last_performed: before_days B: customers with a matching event and none at or after now − B
 *   days; after_days A: customers with a matching event at or after now − A days; both: those with
 *   one at or after now − A and none at or after now − B.
 */
function behaviour(test: Test, options: CompileOptions): SqlFragment {
  const tables = options.behaviour;
  if (!tables)
    throw new Error("Behaviour conditions need the tables of the tenant's events (CompileOptions.behaviour)");
  const customer = `${options.alias}.id`;
  const cutoff = (days: number) => options.now.getTime() - days * DAY_MS;
  if (test.kind === 'performed') return performed(test.performed, tables, customer, options, cutoff);
  if (test.kind === 'last_performed') return lastPerformed(test.last, tables, customer, options, cutoff);
  return unsupported(test, 'event');
}

/** `SELECT e.customer_id FROM events e WHERE ... e.name_id = (SELECT n.id ...)` for one name, its `where` and `extra`. */
function matchingEvents(
  event: string,
  where: readonly PropertyCondition[],
  tables: BehaviourTables,
  options: CompileOptions,
  extra: SqlFragment[],
): SqlFragment {
  const [e, n] = [EVENTS, NAMES];
  const eventScope = tables.events.scope(e);
  const nameScope = tables.names.scope(n);
  const nameId = and(nameScope, frag(`${n}.name = ?`, [event]));
  const conditions = [
    eventScope,
    frag(`${e}.name_id = (SELECT ${n}.id FROM ${tables.names.table} ${n} WHERE ${nameId.sql})`, nameId.params),
    ...extra,
    ...propertyConditions(e, where, options),
  ];
  const joined = and(...conditions);
  return frag(`SELECT ${e}.customer_id FROM ${tables.events.table} ${e} WHERE ${joined.sql}`, joined.params);
}

/**
 * The `where` conditions of a behaviour (or of a customer goal) over the `properties` of the events
 * aliased `alias`: one two-valued fragment each, negated operators as NOT of their positive one.
 */
export function propertyConditions(
  alias: string,
  where: readonly PropertyCondition[],
  options: CompileOptions,
): SqlFragment[] {
  return where.map((condition) => {
    const test = attribute(`${alias}.properties`, condition.path, condition.test, options);
    return condition.negated ? not(test) : test;
  });
}

/** The event property at `path` of the events aliased `alias` as a double when it is a JSON number, NULL otherwise. */
export function numericProperty(alias: string, path: string[], dialect: Dialect): string {
  return jsonAccess(`${alias}.properties`, path, dialect).number;
}

const inSet = (customer: string, set: SqlFragment, suffix = '', params: SqlParam[] = []): SqlFragment =>
  frag(`${customer} IN (${set.sql}${suffix})`, [...set.params, ...params]);

function performed(
  p: Performed,
  tables: BehaviourTables,
  customer: string,
  options: CompileOptions,
  cutoff: (days: number) => number,
): SqlFragment {
  if (p.min === 0 && p.max === null) return MATCH_EVERYBODY;
  const window = p.withinDays === null ? [] : [frag(`${EVENTS}.occurred_at >= ?`, [cutoff(p.withinDays)])];
  const set = matchingEvents(p.event, p.where, tables, options, window);
  const group = ` GROUP BY ${EVENTS}.customer_id HAVING `;
  if (p.min === 0) {
    // Not more than max: the complement of the customers with more.
    return p.max === 0 ? not(inSet(customer, set)) : not(inSet(customer, set, `${group}COUNT(*) > ?`, [p.max!]));
  }
  if (p.min === 1 && p.max === null) return inSet(customer, set);
  const having = [...(p.min > 1 ? ['COUNT(*) >= ?'] : []), ...(p.max !== null ? ['COUNT(*) <= ?'] : [])];
  const params = [...(p.min > 1 ? [p.min] : []), ...(p.max !== null ? [p.max] : [])];
  return inSet(customer, set, `${group}${having.join(' AND ')}`, params);
}

function lastPerformed(
  l: LastPerformed,
  tables: BehaviourTables,
  customer: string,
  options: CompileOptions,
  cutoff: (days: number) => number,
): SqlFragment {
  // The newest matching event is at or after now − after_days (or exists at all), and none is at
  // or after now − before_days: two sets without GROUP BY (a MAX per customer over every kept event
  // took twice as long on MariaDB), the second one small (the recent events only).
  const since = l.afterDays === null ? [] : [frag(`${EVENTS}.occurred_at >= ?`, [cutoff(l.afterDays)])];
  const some = inSet(customer, matchingEvents(l.event, l.where, tables, options, since));
  if (l.beforeDays === null) return some;
  const recent = frag(`${EVENTS}.occurred_at >= ?`, [cutoff(l.beforeDays)]);
  return and(some, not(inSet(customer, matchingEvents(l.event, l.where, tables, options, [recent]))));
}
