import { BEHAVIOUR_OPERATORS, parseBehaviour, parseFieldAndOperator, type Condition } from './rule-grammar.js';

/**
 * Condition trees: the form of a sub-audience's `segment_definition` and of a campaign audience's
 * `segment_override` that narrows the audience's members.
 *
 *   node := {"all": [node, ...]} | {"any": [node, ...]} | {"not": node}
 *         | {"field": <field>, "operator": <operator>, "value": <JSON value>}
 *         | {"performed": {"event", "min", "max", "within_days", "where"}}
 *         | {"last_performed": {"event", "before_days", "after_days", "where"}}
 *
 * A JSON text whose top level is an object with at least one of the keys below "uses those keys"
 * and must be a valid tree (else a 422 on the whole field). Any other valid JSON text (an array,
 * a scalar, an object such as {"min_orders": 2}) stays opaque: it does not narrow the audience.
 */
export const CONDITION_TREE_KEYS = ['all', 'any', 'not', 'field', 'operator', 'value', ...BEHAVIOUR_OPERATORS] as const;
export const MAX_TREE_DEPTH = 10;
export const MAX_TREE_CONDITIONS = 100;

export type ConditionTree =
  | { kind: 'all'; children: ConditionTree[] }
  | { kind: 'any'; children: ConditionTree[] }
  | { kind: 'not'; child: ConditionTree }
  | { kind: 'condition'; condition: Condition };

export type Segment = { kind: 'opaque' } | { kind: 'tree'; tree: ConditionTree };

export type SegmentParse = { ok: true; segment: Segment } | { ok: false; message: string };

const LEAF_KEYS = ['field', 'operator', 'value'];

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** True when `value` is an object that names any of all/any/not/field/operator/value at its top level. */
export function usesConditionKeys(value: unknown): boolean {
  return isPlainObject(value) && CONDITION_TREE_KEYS.some((key) => Object.hasOwn(value, key));
}

class TreeError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

/**
 * Parses a segment_definition / segment_override text. `label` names the field in the message
 * (`segment definition`, `segment override`); the message is the whole field's 422 text.
 */
export function parseSegment(text: string, label = 'segment definition'): SegmentParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: `The ${label} field must be a valid JSON string.` };
  }
  if (!usesConditionKeys(value)) return { ok: true, segment: { kind: 'opaque' } };
  try {
    const counter = { conditions: 0 };
    return { ok: true, segment: { kind: 'tree', tree: readNode(value, '', 1, counter) } };
  } catch (error) {
    if (!(error instanceof TreeError)) throw error;
    const where = error.path ? ` at ${error.path}` : '';
    return { ok: false, message: `The ${label} field must be a valid condition tree${where}: ${error.reason}` };
  }
}

function readNode(node: unknown, path: string, depth: number, counter: { conditions: number }): ConditionTree {
  if (depth > MAX_TREE_DEPTH) throw new TreeError(path, `nesting is deeper than ${MAX_TREE_DEPTH} levels.`);
  if (!isPlainObject(node)) {
    throw new TreeError(
      path,
      'each node must be an object with all, any, not, performed, last_performed, or field and operator.',
    );
  }
  const keys = Object.keys(node);
  for (const group of ['all', 'any', 'not'] as const) {
    if (!Object.hasOwn(node, group)) continue;
    const extra = keys.filter((key) => key !== group);
    if (extra.length) throw new TreeError(path, `${group} cannot be combined with ${extra.join(', ')}.`);
    const inner = node[group];
    if (group === 'not') return { kind: 'not', child: readNode(inner, join(path, 'not'), depth + 1, counter) };
    if (!Array.isArray(inner) || inner.length === 0) {
      throw new TreeError(join(path, group), 'must be a non-empty array of nodes.');
    }
    return {
      kind: group,
      children: inner.map((child, index) => readNode(child, join(join(path, group), index), depth + 1, counter)),
    };
  }
  for (const operator of BEHAVIOUR_OPERATORS) {
    if (!Object.hasOwn(node, operator)) continue;
    const extra = keys.filter((key) => key !== operator);
    if (extra.length) throw new TreeError(path, `${operator} cannot be combined with ${extra.join(', ')}.`);
    if (++counter.conditions > MAX_TREE_CONDITIONS) {
      throw new TreeError(path, `a tree holds at most ${MAX_TREE_CONDITIONS} conditions.`);
    }
    const parsed = parseBehaviour(operator, node[operator]);
    if ('error' in parsed) {
      throw new TreeError(
        parsed.error.path ? join(join(path, operator), parsed.error.path) : join(path, operator),
        parsed.error.reason,
      );
    }
    return { kind: 'condition', condition: { field: { kind: 'event' }, operator, negated: false, test: parsed.test } };
  }
  const unknown = keys.filter((key) => !LEAF_KEYS.includes(key));
  if (unknown.length) throw new TreeError(path, `unknown key ${unknown.join(', ')}.`);
  if (++counter.conditions > MAX_TREE_CONDITIONS) {
    throw new TreeError(path, `a tree holds at most ${MAX_TREE_CONDITIONS} conditions.`);
  }
  const parsed = parseFieldAndOperator(
    { field: node.field, operator: node.operator, value: node.value, valueIsText: false },
    'value',
  );
  if ('errors' in parsed) {
    const [key, message] = Object.entries(parsed.errors)[0];
    throw new TreeError(join(path, key), message);
  }
  return { kind: 'condition', condition: parsed.condition };
}
