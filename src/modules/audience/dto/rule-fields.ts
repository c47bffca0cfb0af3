import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { registerDecorator, type ValidationArguments } from 'class-validator';
import { isJsonText } from '../../../common/fields/fields.js';
import { parseSegment } from '../rules/condition-tree.js';
import {
  ATTRIBUTE_FIELD_PATTERN,
  COLUMN_FIELDS,
  EVENT_FIELD,
  MATCH_MODES,
  MAX_FIELD_LENGTH,
  OPERATORS,
  validateRule,
  type RuleErrorKey,
  type RuleErrors,
  type RuleInput,
} from '../rules/rule-grammar.js';

/**
 * Validation of the rule grammar inside the DTOs, so that its 422s (`rules.N.field`,
 * `rules.N.operator`, `rules.N.rule_value`, `segment_definition`) come in the same answer as the
 * other field errors; the rules themselves live in ../rules.
 */

/** One rule is read once per validation, whichever of its three fields asks first. */
const ruleErrors = new WeakMap<object, RuleErrors>();

function errorsOf(rule: object): RuleErrors {
  let errors = ruleErrors.get(rule);
  if (!errors) {
    errors = validateRule(rule as RuleInput);
    ruleErrors.set(rule, errors);
  }
  return errors;
}

/** Fails the property `key` of a rule with the grammar's message for it. */
function ruleGrammar(key: RuleErrorKey): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: `ruleGrammar_${key}`,
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (_value: unknown, args: ValidationArguments) => !errorsOf(args.object)[key]?.length,
        defaultMessage: (args?: ValidationArguments) => (args ? errorsOf(args.object)[key]![0] : ''),
      },
    });
}

export const FIELD_SCHEMA = {
  oneOf: [
    { type: 'string', enum: [...COLUMN_FIELDS, EVENT_FIELD] },
    { type: 'string', pattern: ATTRIBUTE_FIELD_PATTERN, maxLength: MAX_FIELD_LENGTH },
  ],
};

/** FIELD_SCHEMA or null (OpenAPI 3.0 wants `nullable` beside a `type`, so it sits in a branch). */
export const NULLABLE_FIELD_SCHEMA = {
  oneOf: [FIELD_SCHEMA.oneOf[0], { ...FIELD_SCHEMA.oneOf[1], nullable: true }],
};

const FIELD_DESCRIPTION =
  'The customer field the rule tests: a column, `attributes.<key>[.<key>...]` (keys `[A-Za-z0-9_-]+`, ' +
  'at most 10) for a path into the customer attributes JSON, or `event` for what the customer did (its tracked ' +
  'events). Set with `operator`; both absent or null make the rule a descriptive tag that selects nothing.';

const OPERATOR_DESCRIPTION =
  'text fields: equals, not_equals, contains, not_contains, starts_with, ends_with, in, not_in, exists, ' +
  'not_exists; is_active: equals, not_equals, exists, not_exists; created_at, updated_at: equals, ' +
  'not_equals, gt, gte, lt, lte, between, exists, not_exists, within_last_days; attributes paths: all but ' +
  'performed and last_performed; event: performed, last_performed.';

/** `field` of a rule: optional, and required when `operator` is given. */
export const RuleFieldProperty = () =>
  applyDecorators(
    ruleGrammar('field'),
    ApiProperty({ required: false, ...NULLABLE_FIELD_SCHEMA, description: FIELD_DESCRIPTION }),
  );

/** `operator` of a rule: optional, required when `field` is given, and one its field accepts. */
export const RuleOperatorProperty = () =>
  applyDecorators(
    ruleGrammar('operator'),
    ApiProperty({
      required: false,
      nullable: true,
      type: String,
      enum: [...OPERATORS],
      description: OPERATOR_DESCRIPTION,
    }),
  );

/** The grammar's check of `rule_value` as the operand of the rule's operator (after its own string rules). */
export const RuleOperand = () => ruleGrammar('rule_value');

export const RULE_VALUE_DESCRIPTION =
  'With field and operator, the operand: text as is; a JSON array text for in, not_in (1 to 1000 ' +
  'strings, numbers or booleans) and between ([low, high]); a date (YYYY-MM-DD) or ISO 8601 date-time on ' +
  'date columns; a whole number of days for within_last_days; ignored by exists and not_exists. For `event`, a JSON ' +
  'object text: performed `{"event", "min", "max", "within_days", "where"}`, last_performed `{"event", ' +
  '"before_days", "after_days", "where"}` (schemas BehaviourPerformed, BehaviourLastPerformed).';

export const MATCH_DESCRIPTION = 'Whether a customer must match `all` (default) or `any` of the evaluable rules';
export { MATCH_MODES };

/**
 * A JSON-string field that may hold a condition tree (`segment_definition`, `segment_override`):
 * a text that uses the tree keys must be a valid tree. JSON syntax and type errors are left to
 * JsonStringField, so this rule fails only on a tree that does not parse.
 */
export function ConditionTreeText(label: string): PropertyDecorator {
  const check = (value: unknown) =>
    typeof value === 'string' && isJsonText(value) ? parseSegment(value, label) : { ok: true as const };
  return (target, propertyName) =>
    registerDecorator({
      name: 'conditionTree',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => check(value).ok,
        defaultMessage: (args?: ValidationArguments) => {
          const result = check(args?.value);
          return result.ok ? '' : result.message;
        },
      },
    });
}

export const SEGMENT_DESCRIPTION =
  'JSON text, returned as sent. A condition tree narrows the audience to its members that also match ' +
  'it: `{"all": [node, ...]}`, `{"any": [node, ...]}`, `{"not": node}`, a condition ' +
  '`{"field", "operator", "value"}`, or what the customer did: `{"performed": {...}}`, `{"last_performed": {...}}` ' +
  '(schemas ConditionAll, ConditionAny, ConditionNot, Condition, ConditionPerformed, ConditionLastPerformed). ' +
  'A top-level object using any of these keys must be a valid tree (422 otherwise); any other JSON ' +
  'is kept as an opaque note and selects all the audience members.';
