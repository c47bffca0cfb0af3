import { parseDateLike } from '../../../common/fields/fields.js';
import { isEventName } from '../../tracking/track-input.js';

/**
 * The audience rule language: which customer fields a rule can name, which operators apply to
 * them, and what each operator's operand must look like. A rule is `{rule_type, rule_value}`
 * plus, when it is evaluable, `field` and `operator`; `rule_value` is then the operand.
 *
 * Everything here is pure: it parses and validates, and `sql-compiler.ts` turns the result into SQL.
 */

/** Customer columns a rule can name, grouped by the kind of value they hold. */
export const TEXT_FIELDS = ['external_id', 'first_name', 'last_name', 'email', 'phone'] as const;
export const BOOLEAN_FIELDS = ['is_active'] as const;
export const DATE_FIELDS = ['created_at', 'updated_at'] as const;
export const COLUMN_FIELDS = [...TEXT_FIELDS, ...BOOLEAN_FIELDS, ...DATE_FIELDS] as const;
/** What the customer did (tracked events): the field of the behaviour operators. */
export const EVENT_FIELD = 'event';

export type TextField = (typeof TEXT_FIELDS)[number];
export type BooleanField = (typeof BOOLEAN_FIELDS)[number];
export type DateField = (typeof DATE_FIELDS)[number];
export type ColumnField = (typeof COLUMN_FIELDS)[number];

/** `attributes.<key>[.<key>...]`: a path into the customer's `attributes` JSON. */
export const ATTRIBUTE_FIELD_PATTERN = '^attributes(\\.[A-Za-z0-9_-]+)+$';
export const ATTRIBUTE_KEY_PATTERN = /^[A-Za-z0-9_-]+$/;
export const MAX_ATTRIBUTE_PATH_KEYS = 10;
export const MAX_FIELD_LENGTH = 255;

export const TEXT_MATCH_OPERATORS = ['contains', 'not_contains', 'starts_with', 'ends_with'] as const;
/** The operators of a value (a column, an attribute, an event's property). */
export const VALUE_OPERATORS = [
  'equals',
  'not_equals',
  ...TEXT_MATCH_OPERATORS,
  'in',
  'not_in',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'exists',
  'not_exists',
  'within_last_days',
] as const;
/** The operators of `event`: what the customer did, counted over its tracked events (README.md, "Behaviour"). */
export const BEHAVIOUR_OPERATORS = ['performed', 'last_performed'] as const;
export const OPERATORS = [...VALUE_OPERATORS, ...BEHAVIOUR_OPERATORS] as const;
export type Operator = (typeof OPERATORS)[number];
export type BehaviourOperator = (typeof BEHAVIOUR_OPERATORS)[number];

/** Each negative operator is the exact complement of its positive one, so it also matches a missing or null field. */
export const NEGATED_OPERATORS: Partial<Record<Operator, Operator>> = {
  not_equals: 'equals',
  not_contains: 'contains',
  not_in: 'in',
  not_exists: 'exists',
};

export const MATCH_MODES = ['all', 'any'] as const;
export type MatchMode = (typeof MATCH_MODES)[number];
export const DEFAULT_MATCH: MatchMode = 'all';

export type FieldKind = 'text' | 'boolean' | 'date' | 'attribute' | 'event';

/** The operators each kind of field accepts; any other pairing is a 422 on `operator`. */
export const OPERATORS_BY_FIELD_KIND: Record<FieldKind, readonly Operator[]> = {
  text: ['equals', 'not_equals', ...TEXT_MATCH_OPERATORS, 'in', 'not_in', 'exists', 'not_exists'],
  boolean: ['equals', 'not_equals', 'exists', 'not_exists'],
  date: ['equals', 'not_equals', 'gt', 'gte', 'lt', 'lte', 'between', 'exists', 'not_exists', 'within_last_days'],
  attribute: VALUE_OPERATORS,
  event: BEHAVIOUR_OPERATORS,
};

export const MAX_LIST_ITEMS = 1000;
export const MAX_WITHIN_LAST_DAYS = 36500;

export type FieldRef =
  | { kind: 'text'; column: TextField }
  | { kind: 'boolean'; column: BooleanField }
  | { kind: 'date'; column: DateField }
  | { kind: 'attribute'; path: string[] }
  | { kind: 'event' };

/**
 * One operand of `equals` / `in`, read every way it can match: a string equal to `text` (ignoring
 * ASCII case), a JSON number equal to `number`, a boolean equal to `boolean`.
 */
export interface EqualityValue {
  text: string;
  number: number | null;
  boolean: boolean | null;
}

/** A bound of a range: a number, an instant (date columns) or a calendar day `YYYY-MM-DD` (attribute dates). */
export type Bound =
  | { kind: 'number'; value: number; inclusive: boolean }
  | { kind: 'instant'; at: Date; inclusive: boolean }
  | { kind: 'day'; day: string; inclusive: boolean };

/** What a condition checks, before negation. */
export type Test =
  | { kind: 'equals'; values: EqualityValue[] }
  | { kind: 'text'; match: 'contains' | 'starts_with' | 'ends_with'; text: string }
  | { kind: 'range'; lower: Bound | null; upper: Bound | null }
  | { kind: 'recent'; days: number }
  | { kind: 'exists' }
  | { kind: 'performed'; performed: Performed }
  | { kind: 'last_performed'; last: LastPerformed };

/** A condition on the properties of the events a behaviour counts: as one on `attributes.<path>`. */
export interface PropertyCondition {
  path: string[];
  negated: boolean;
  test: Test;
}

/** `performed`: the customer did `event` at least `min` and at most `max` times (in the last `withinDays`). */
export interface Performed {
  event: string;
  min: number;
  /** null: no upper bound. */
  max: number | null;
  /** null: every kept event. */
  withinDays: number | null;
  where: PropertyCondition[];
}

/** `last_performed`: the customer's newest such event is older than `beforeDays` and/or newer than `afterDays`. */
export interface LastPerformed {
  event: string;
  beforeDays: number | null;
  afterDays: number | null;
  where: PropertyCondition[];
}

/** An evaluable rule or condition-tree leaf: `negated` flips the whole test (missing or null fields included). */
export interface Condition {
  field: FieldRef;
  operator: Operator;
  negated: boolean;
  test: Test;
}

export interface RuleInput {
  rule_type?: unknown;
  rule_value?: unknown;
  field?: unknown;
  operator?: unknown;
}

export type RuleErrorKey = 'field' | 'operator' | 'rule_value';
export type RuleErrors = Partial<Record<RuleErrorKey, string[]>>;

export type ParsedRule =
  { kind: 'descriptive' } | { kind: 'condition'; condition: Condition } | { kind: 'invalid'; errors: RuleErrors };

const isOneOf = <T extends string>(list: readonly T[], value: unknown): value is T =>
  typeof value === 'string' && (list as readonly string[]).includes(value);

export const isOperator = (value: unknown): value is Operator => isOneOf(OPERATORS, value);
export const isMatchMode = (value: unknown): value is MatchMode => isOneOf(MATCH_MODES, value);

/** Reads a field name; null when it names no field of the catalogue. */
export function parseField(value: unknown): FieldRef | null {
  if (typeof value !== 'string' || value.length > MAX_FIELD_LENGTH) return null;
  if (isOneOf(TEXT_FIELDS, value)) return { kind: 'text', column: value };
  if (isOneOf(BOOLEAN_FIELDS, value)) return { kind: 'boolean', column: value };
  if (isOneOf(DATE_FIELDS, value)) return { kind: 'date', column: value };
  if (value === EVENT_FIELD) return { kind: 'event' };
  const [head, ...path] = value.split('.');
  if (head !== 'attributes' || path.length === 0 || path.length > MAX_ATTRIBUTE_PATH_KEYS) return null;
  return path.every((key) => ATTRIBUTE_KEY_PATTERN.test(key)) ? { kind: 'attribute', path } : null;
}

export const fieldName = (field: FieldRef): string =>
  field.kind === 'attribute'
    ? `attributes.${field.path.join('.')}`
    : field.kind === 'event'
      ? EVENT_FIELD
      : field.column;

/** A JSON number literal, exactly as JSON writes it (no sign `+`, no leading zeros, no spaces). */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const BOOLEAN_WORDS: Record<string, boolean> = { true: true, '1': true, false: false, '0': false };

/** Lower-cases ASCII capitals only, as rule comparisons fold case. */
export const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

function jsonNumber(text: string): number | null {
  if (!JSON_NUMBER.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** `true`, `false`, `1`, `0` (API-CONVENTIONS §6), ignoring ASCII case. */
function booleanWord(text: string): boolean | null {
  return BOOLEAN_WORDS[asciiLower(text)] ?? null;
}

/** A scalar operand as text: numbers and booleans as JSON writes them. */
function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return null;
}

function equalityValue(text: string): EqualityValue {
  return { text, number: jsonNumber(text), boolean: booleanWord(text) };
}

export const DAY_MS = 86_400_000;
const addDays = (date: Date, days: number) => new Date(date.getTime() + days * DAY_MS);

/** Reads a date operand: a whole UTC day (`YYYY-MM-DD`) or an instant (an ISO 8601 date-time). */
function dateOperand(value: unknown): { day: string; start: Date } | { instant: Date } | null {
  if (typeof value !== 'string') return null;
  const date = parseDateLike(value);
  if (!date) return null;
  return DATE_ONLY.test(value) ? { day: value, start: date } : { instant: date };
}

type RangeOperator = 'gt' | 'gte' | 'lt' | 'lte';

/**
 * The bounds a comparison puts on a date column. A date-only operand names its whole UTC day:
 * `gt 2026-01-05` starts at 2026-01-06T00:00Z, `lte 2026-01-05` ends before it.
 */
function instantBounds(operator: RangeOperator | 'equals', operand: NonNullable<ReturnType<typeof dateOperand>>) {
  const [from, until] =
    'day' in operand ? [operand.start, addDays(operand.start, 1)] : [operand.instant, operand.instant];
  const exclusiveEnd = 'day' in operand;
  const bound = (at: Date, inclusive: boolean): Bound => ({ kind: 'instant', at, inclusive });
  switch (operator) {
    case 'gt':
      return { lower: bound(until, exclusiveEnd), upper: null };
    case 'gte':
      return { lower: bound(from, true), upper: null };
    case 'lt':
      return { lower: null, upper: bound(from, false) };
    case 'lte':
      return { lower: null, upper: bound(until, !exclusiveEnd) };
    case 'equals':
      return { lower: bound(from, true), upper: bound(until, !exclusiveEnd) };
  }
}

/** A bound on an attribute: a JSON number, or a calendar day compared with the date a string starts with. */
function attributeBound(value: unknown, inclusive: boolean): Bound | null {
  if (typeof value === 'number' && Number.isFinite(value)) return { kind: 'number', value, inclusive };
  if (typeof value !== 'string') return null;
  const number = jsonNumber(value);
  if (number !== null) return { kind: 'number', value: number, inclusive };
  return DATE_ONLY.test(value) && parseDateLike(value) ? { kind: 'day', day: value, inclusive } : null;
}

/** Messages in the style of src/common/validation/fields.ts; `label` is `rule value` or `value`. */
export const ruleMessages = {
  fieldType: 'The field field must be a string.',
  fieldInvalid: 'The selected field is invalid.',
  fieldRequired: 'The field field is required.',
  fieldRequiredWith: 'The field field is required when operator is present.',
  operatorType: 'The operator field must be a string.',
  operatorInvalid: 'The selected operator is invalid.',
  operatorRequired: 'The operator field is required.',
  operatorRequiredWith: 'The operator field is required when field is present.',
  operatorForField: 'The selected operator cannot be used with this field.',
  boolean: (label: string) => `The ${label} field must be true, false, 1 or 0.`,
  date: (label: string) => `The ${label} field must be a valid date.`,
  numberOrDay: (label: string) => `The ${label} field must be a number or a date (YYYY-MM-DD).`,
  scalar: (label: string) => `The ${label} field must be a string, a number or a boolean.`,
  string: (label: string) => `The ${label} field must be a string.`,
  list: (label: string) =>
    `The ${label} field must be a JSON array of 1 to ${MAX_LIST_ITEMS} strings, numbers or booleans.`,
  between: (label: string, dates: boolean) =>
    `The ${label} field must be a JSON array [low, high] of two ${dates ? 'dates' : 'numbers or two dates (YYYY-MM-DD)'}, low not greater than high.`,
  days: (label: string) => `The ${label} field must be a whole number of days from 0 to ${MAX_WITHIN_LAST_DAYS}.`,
} as const;

/**
 * Reads the operand of `operator` on `field` into a test. `value` is a JSON value: a condition
 * tree's `value` as sent, or a rule's `rule_value` (decoded from JSON text for `in`, `not_in`
 * and `between`). Returns the error message for the operand instead when the operator cannot use it.
 */
export function parseOperand(
  field: FieldRef,
  operator: Operator,
  value: unknown,
  label: string,
): { test: Test } | { error: string } {
  const positive = NEGATED_OPERATORS[operator] ?? operator;
  switch (positive) {
    case 'exists':
      return { test: { kind: 'exists' } };

    case 'equals': {
      const text = scalarText(value);
      if (text === null) return { error: ruleMessages.scalar(label) };
      if (field.kind === 'date') {
        const date = dateOperand(text);
        return date
          ? { test: { kind: 'range', ...instantBounds('equals', date) } }
          : { error: ruleMessages.date(label) };
      }
      const parsed = equalityValue(text);
      if (field.kind === 'boolean' && parsed.boolean === null) return { error: ruleMessages.boolean(label) };
      return { test: { kind: 'equals', values: [parsed] } };
    }

    case 'in': {
      const texts = Array.isArray(value) ? value.map(scalarText) : null;
      if (!texts || texts.length === 0 || texts.length > MAX_LIST_ITEMS || texts.some((t) => t === null)) {
        return { error: ruleMessages.list(label) };
      }
      return { test: { kind: 'equals', values: (texts as string[]).map(equalityValue) } };
    }

    case 'contains':
    case 'starts_with':
    case 'ends_with':
      return typeof value === 'string'
        ? { test: { kind: 'text', match: positive, text: value } }
        : { error: ruleMessages.string(label) };

    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (field.kind === 'date') {
        const date = dateOperand(value);
        return date
          ? { test: { kind: 'range', ...instantBounds(positive, date) } }
          : { error: ruleMessages.date(label) };
      }
      const bound = attributeBound(value, positive === 'gte' || positive === 'lte');
      if (!bound) return { error: ruleMessages.numberOrDay(label) };
      const lower = positive === 'gt' || positive === 'gte';
      return { test: { kind: 'range', lower: lower ? bound : null, upper: lower ? null : bound } };
    }

    case 'between': {
      const message = ruleMessages.between(label, field.kind === 'date');
      if (!Array.isArray(value) || value.length !== 2) return { error: message };
      if (field.kind === 'date') {
        const [low, high] = value.map(dateOperand);
        if (!low || !high) return { error: message };
        const lower = instantBounds('gte', low).lower;
        const upper = instantBounds('lte', high).upper;
        if (lower!.kind !== 'instant' || upper!.kind !== 'instant' || lower!.at > upper!.at) return { error: message };
        return { test: { kind: 'range', lower, upper } };
      }
      const [low, high] = value.map((v) => attributeBound(v, true));
      if (!low || !high || low.kind !== high.kind || compareBounds(low, high) > 0) return { error: message };
      return { test: { kind: 'range', lower: low, upper: high } };
    }

    case 'performed':
    case 'last_performed': {
      const parsed = parseBehaviour(positive, value);
      if ('error' in parsed) {
        const where = parsed.error.path ? ` at ${parsed.error.path}` : '';
        return { error: `The ${label} field is not a valid ${positive} condition${where}: ${parsed.error.reason}` };
      }
      return { test: parsed.test };
    }

    case 'within_last_days': {
      const text = scalarText(value);
      const days = text !== null && /^\d{1,5}$/.test(text) ? Number(text) : NaN;
      if (!(days <= MAX_WITHIN_LAST_DAYS)) return { error: ruleMessages.days(label) };
      return { test: { kind: 'recent', days } };
    }

    default:
      return { error: ruleMessages.operatorInvalid };
  }
}

function compareBounds(a: Bound, b: Bound): number {
  if (a.kind === 'number' && b.kind === 'number') return a.value - b.value;
  if (a.kind === 'day' && b.kind === 'day') return a.day < b.day ? -1 : a.day > b.day ? 1 : 0;
  return 0;
}

/** Operators whose rule_value is JSON text (an array, an object); the others take rule_value as it is. */
const JSON_OPERAND_OPERATORS: readonly Operator[] = ['in', 'not_in', 'between', ...BEHAVIOUR_OPERATORS];

/**
 * Checks `field` and `operator` and reads them with their operand into a condition; shared by
 * audience rules (`value` is rule_value, JSON text for `in`, `not_in`, `between`) and
 * condition-tree leaves (`value` is a JSON value). Errors are keyed `field`, `operator`, `value`.
 */
export function parseFieldAndOperator(
  input: { field?: unknown; operator?: unknown; value: unknown; valueIsText: boolean },
  label: string,
): { condition: Condition } | { errors: Partial<Record<'field' | 'operator' | 'value', string>> } {
  const { field: rawField, operator: rawOperator } = input;
  const errors: Partial<Record<'field' | 'operator' | 'value', string>> = {};
  const hasField = rawField !== undefined && rawField !== null;
  const hasOperator = rawOperator !== undefined && rawOperator !== null;

  let field: FieldRef | null = null;
  if (!hasField) errors.field = hasOperator ? ruleMessages.fieldRequiredWith : ruleMessages.fieldRequired;
  else if (typeof rawField !== 'string') errors.field = ruleMessages.fieldType;
  else if (!(field = parseField(rawField))) errors.field = ruleMessages.fieldInvalid;

  let operator: Operator | null = null;
  if (!hasOperator) errors.operator = hasField ? ruleMessages.operatorRequiredWith : ruleMessages.operatorRequired;
  else if (typeof rawOperator !== 'string') errors.operator = ruleMessages.operatorType;
  else if (!isOperator(rawOperator)) errors.operator = ruleMessages.operatorInvalid;
  else operator = rawOperator;

  if (field && operator && !OPERATORS_BY_FIELD_KIND[field.kind].includes(operator)) {
    errors.operator = ruleMessages.operatorForField;
    operator = null;
  }
  if (!field || !operator) return { errors };

  let value = input.value;
  if (input.valueIsText && JSON_OPERAND_OPERATORS.includes(operator)) {
    try {
      value = JSON.parse(value as string);
    } catch {
      value = undefined;
    }
  }
  const operand = parseOperand(field, operator, value, label);
  if ('error' in operand) return { errors: { value: operand.error } };
  return { condition: { field, operator, negated: operator in NEGATED_OPERATORS, test: operand.test } };
}

/**
 * Reads one audience rule. Without `field` and `operator` it is a descriptive tag; with both it is
 * a condition; anything else is invalid, with messages keyed `field`, `operator` or `rule_value`.
 */
export function parseRule(rule: RuleInput): ParsedRule {
  const hasField = rule.field !== undefined && rule.field !== null;
  const hasOperator = rule.operator !== undefined && rule.operator !== null;
  if (!hasField && !hasOperator) return { kind: 'descriptive' };
  const parsed = parseFieldAndOperator(
    { field: rule.field, operator: rule.operator, value: rule.rule_value, valueIsText: true },
    'rule value',
  );
  if ('condition' in parsed && typeof rule.rule_value === 'string') {
    return { kind: 'condition', condition: parsed.condition };
  }
  const errors: RuleErrors = {};
  if ('errors' in parsed) {
    if (parsed.errors.field) errors.field = [parsed.errors.field];
    if (parsed.errors.operator) errors.operator = [parsed.errors.operator];
  }
  // The same message as the DTO's, so that merged error lists can drop the duplicate.
  if (typeof rule.rule_value !== 'string') errors.rule_value = [ruleMessages.string('rule value')];
  else if ('errors' in parsed && parsed.errors.value) errors.rule_value = [parsed.errors.value];
  return { kind: 'invalid', errors };
}

/** The field-keyed messages of one rule (empty when it is valid). */
export function validateRule(rule: RuleInput): RuleErrors {
  const parsed = parseRule(rule);
  return parsed.kind === 'invalid' ? parsed.errors : {};
}

export class InvalidStoredRuleError extends Error {}

/** The evaluable conditions of stored rules, in order; descriptive rules take no part. */
export function evaluableConditions(rules: RuleInput[]): Condition[] {
  return rules.flatMap((rule, index) => {
    const parsed = parseRule(rule);
    if (parsed.kind === 'invalid') {
      throw new InvalidStoredRuleError(`Rule ${index} is not valid: ${JSON.stringify(parsed.errors)}`);
    }
    return parsed.kind === 'condition' ? [parsed.condition] : [];
  });
}

// ---- behaviour: what the customer did (tracked events) ----

/** Days a behaviour looks back at most (`within_days`, `before_days`, `after_days`). */
export const MAX_BEHAVIOUR_DAYS = 730;
/** The largest `min` or `max` count. */
export const MAX_BEHAVIOUR_COUNT = 1_000_000_000;
/** Conditions on the events' properties one behaviour may hold. */
export const MAX_WHERE_CONDITIONS = 20;
/** `properties.<key>[.<key>...]`: a path into an event's properties, keys as in attribute paths. */
export const PROPERTY_FIELD_PATTERN = '^properties(\\.[A-Za-z0-9_-]+)+$';

export const BEHAVIOUR_KEYS: Record<BehaviourOperator, readonly string[]> = {
  performed: ['event', 'min', 'max', 'within_days', 'where'],
  last_performed: ['event', 'before_days', 'after_days', 'where'],
};

/** A behaviour's error: the key it is about ('' for the whole object) and why. */
export interface BehaviourError {
  path: string;
  reason: string;
}

/** A whole number from `min` to `max`, as a JSON number or a string of digits; undefined otherwise. */
function wholeNumber(value: unknown, min: number, max: number): number | undefined {
  const n = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
}

/** `field` of a `where` condition: `properties.<key>[.<key>...]`, as an attribute path. */
export function propertyPath(value: unknown): string[] | null {
  if (typeof value !== 'string' || value.length > MAX_FIELD_LENGTH) return null;
  const [head, ...path] = value.split('.');
  if (head !== 'properties' || path.length === 0 || path.length > MAX_ATTRIBUTE_PATH_KEYS) return null;
  return path.every((key) => ATTRIBUTE_KEY_PATTERN.test(key)) ? path : null;
}

/** A behaviour's `where` (also a customer goal's): its conditions, or what is wrong and where. */
export function parseWhere(value: unknown): { where: PropertyCondition[] } | { error: BehaviourError } {
  if (value === undefined || value === null) return { where: [] };
  if (!Array.isArray(value) || value.length > MAX_WHERE_CONDITIONS) {
    return { error: { path: 'where', reason: `must be an array of at most ${MAX_WHERE_CONDITIONS} conditions.` } };
  }
  const where: PropertyCondition[] = [];
  for (const [index, item] of value.entries()) {
    const at = (key?: string) => `where.${index}${key ? `.${key}` : ''}`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      return { error: { path: at(), reason: 'must be an object with field, operator and value.' } };
    }
    const unknown = Object.keys(item).filter((key) => !['field', 'operator', 'value'].includes(key));
    if (unknown.length) return { error: { path: at(), reason: `unknown key ${unknown.join(', ')}.` } };
    const { field, operator, value: operand } = item as Record<string, unknown>;
    const path = propertyPath(field);
    if (!path)
      return { error: { path: at('field'), reason: 'must be properties.<key>[.<key>...] (keys [A-Za-z0-9_-]).' } };
    if (!(VALUE_OPERATORS as readonly unknown[]).includes(operator)) {
      return { error: { path: at('operator'), reason: `must be one of ${VALUE_OPERATORS.join(', ')}.` } };
    }
    const op = operator as Operator;
    const parsed = parseOperand({ kind: 'attribute', path }, op, operand, 'value');
    if ('error' in parsed) return { error: { path: at('value'), reason: parsed.error } };
    where.push({ path, negated: op in NEGATED_OPERATORS, test: parsed.test });
  }
  return { where };
}

/**
 * Reads the object of a behaviour node (`{"performed": {...}}`, or an `event` rule's rule_value):
 * its keys are those of BEHAVIOUR_KEYS, `event` an event name; counts, days and `where` as the
 * README's "Behaviour" says. Answers the test, or what is wrong and where.
 */
export function parseBehaviour(
  operator: BehaviourOperator,
  value: unknown,
): { test: Test } | { error: BehaviourError } {
  const fail = (path: string, reason: string) => ({ error: { path, reason } });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail('', `must be a JSON object with ${BEHAVIOUR_KEYS[operator].join(', ')}.`);
  }
  const object = value as Record<string, unknown>;
  const unknown = Object.keys(object).filter((key) => !BEHAVIOUR_KEYS[operator].includes(key));
  if (unknown.length) {
    return fail(unknown[0], `unknown key (${operator} takes ${BEHAVIOUR_KEYS[operator].join(', ')}).`);
  }
  const event = object.event;
  // An event name as `POST /api/track` takes it: a name it refuses can never match.
  if (!isEventName(event)) {
    return fail('event', 'must be an event name: 1 to 255 ASCII letters, digits, _ . : - and inner spaces.');
  }
  const where = parseWhere(object.where);
  if ('error' in where) return where;
  const days = (key: string) => {
    const raw = object[key];
    if (raw === undefined || raw === null) return null;
    return wholeNumber(raw, 1, MAX_BEHAVIOUR_DAYS) ?? NaN;
  };
  const badDays = (key: string) => fail(key, `must be a whole number of days from 1 to ${MAX_BEHAVIOUR_DAYS}.`);

  if (operator === 'performed') {
    const min = object.min === undefined || object.min === null ? 1 : wholeNumber(object.min, 0, MAX_BEHAVIOUR_COUNT);
    if (min === undefined) return fail('min', `must be a whole number from 0 to ${MAX_BEHAVIOUR_COUNT}.`);
    const max =
      object.max === undefined || object.max === null ? null : wholeNumber(object.max, 0, MAX_BEHAVIOUR_COUNT);
    if (max === undefined) return fail('max', `must be null or a whole number from 0 to ${MAX_BEHAVIOUR_COUNT}.`);
    if (max !== null && min > max) return fail('min', 'must not be greater than max.');
    const withinDays = days('within_days');
    if (Number.isNaN(withinDays)) return badDays('within_days');
    return { test: { kind: 'performed', performed: { event, min, max, withinDays, where: where.where } } };
  }
  const beforeDays = days('before_days');
  if (Number.isNaN(beforeDays)) return badDays('before_days');
  const afterDays = days('after_days');
  if (Number.isNaN(afterDays)) return badDays('after_days');
  if (beforeDays === null && afterDays === null) return fail('', 'needs before_days, after_days or both.');
  if (beforeDays !== null && afterDays !== null && afterDays <= beforeDays) {
    return fail(
      'after_days',
      'must be greater than before_days (the newest event is older than before_days and newer than after_days).',
    );
  }
  return { test: { kind: 'last_performed', last: { event, beforeDays, afterDays, where: where.where } } };
}
