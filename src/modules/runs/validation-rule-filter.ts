import { parseSegment, usesConditionKeys, type ConditionTree } from '../audience/rules/condition-tree.js';
import { COLUMN_FIELDS } from '../audience/rules/rule-grammar.js';

/** The spellings of the contract's own example (`{"field":"age","operator":">=","value":18}`), as the grammar's operators. */
const SPELLED_OPERATORS: Record<string, string> = {
  '>=': 'gte',
  '<=': 'lte',
  '>': 'gt',
  '<': 'lt',
  '=': 'equals',
  '==': 'equals',
  '!=': 'not_equals',
};

/** A validation rule as a run evaluates it: the condition its members must meet, or why it cannot be evaluated. */
export type RuleCondition = { ok: true; tree: ConditionTree } | { ok: false; reason: string };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A field as the grammar names it: a customer column, `attributes.<path>`, or a bare name meaning `attributes.<name>`. */
function grammarField(field: unknown): unknown {
  if (typeof field !== 'string') return field;
  if (field.startsWith('attributes.') || (COLUMN_FIELDS as readonly string[]).includes(field)) return field;
  return `attributes.${field}`;
}

/**
 * The condition of a validation rule's definition (or the campaign's `rule_override` of it): a
 * condition tree (docs/audiences.md), one condition `{field, operator, value}` with the grammar's
 * operators or the spellings >=, <=, >, <, =, !=, or `{field, required: true}` (the field exists).
 * Anything else cannot be evaluated, and a run refuses to launch with it.
 */
export function ruleCondition(definition: string): RuleCondition {
  let value: unknown;
  try {
    value = JSON.parse(definition);
  } catch {
    return { ok: false, reason: 'it is not valid JSON' };
  }
  if (!isPlainObject(value)) return { ok: false, reason: 'it is not an object' };
  let tree: unknown = value;
  if (Object.hasOwn(value, 'required')) {
    const keys = Object.keys(value).sort().join(',');
    if (keys !== 'field,required' || value.required !== true) {
      return { ok: false, reason: 'a required rule is {"field": ..., "required": true}' };
    }
    tree = { field: grammarField(value.field), operator: 'exists' };
  } else if (Object.hasOwn(value, 'field') && !['all', 'any', 'not'].some((key) => Object.hasOwn(value, key))) {
    const operator =
      typeof value.operator === 'string' ? (SPELLED_OPERATORS[value.operator] ?? value.operator) : value.operator;
    tree = { ...value, field: grammarField(value.field), operator };
  } else if (!usesConditionKeys(value)) {
    return { ok: false, reason: 'it is neither a condition nor a condition tree' };
  }
  const parsed = parseSegment(JSON.stringify(tree), 'rule definition');
  if (!parsed.ok) return { ok: false, reason: parsed.message };
  if (parsed.segment.kind !== 'tree') return { ok: false, reason: 'it is neither a condition nor a condition tree' };
  return { ok: true, tree: parsed.segment.tree };
}
