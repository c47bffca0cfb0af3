import { ApiProperty, getSchemaPath, type ApiPropertyOptions } from '@nestjs/swagger';
import { MAX_TREE_CONDITIONS, MAX_TREE_DEPTH } from '../rules/condition-tree.js';
import {
  MAX_BEHAVIOUR_COUNT,
  MAX_BEHAVIOUR_DAYS,
  MAX_WHERE_CONDITIONS,
  OPERATORS,
  PROPERTY_FIELD_PATTERN,
  VALUE_OPERATORS,
} from '../rules/rule-grammar.js';
import { FIELD_SCHEMA } from './rule-fields.js';

/**
 * The OpenAPI schemas of a condition tree, the JSON a `segment_definition` or `segment_override`
 * text may hold. Documentation only: the trees are parsed by ../rules/condition-tree.ts.
 */

/** Any node: one of the four shapes below (named, as the classes are not all defined yet where this is used). */
const node = () => ({
  oneOf: [
    'ConditionAll',
    'ConditionAny',
    'ConditionNot',
    'Condition',
    'ConditionPerformed',
    'ConditionLastPerformed',
  ].map((model) => ({ $ref: getSchemaPath(model) })),
});

const nodes = (description: string) => ({ type: 'array', minItems: 1, items: node(), description }) as const;

export class Condition {
  @ApiProperty({ ...FIELD_SCHEMA, description: 'A customer column, `attributes.<key>[.<key>...]`, or `event`' })
  field: string;

  @ApiProperty({ type: String, enum: [...OPERATORS] })
  operator: string;

  @ApiProperty({
    required: false,
    description:
      'A JSON value: a string, number or boolean; an array for in, not_in and between ([low, high]); ' +
      'a number of days for within_last_days; ignored by exists and not_exists; for `event` (performed, ' +
      'last_performed) the object of a ConditionPerformed or ConditionLastPerformed.',
    oneOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } },
    ],
  })
  value?: unknown;
}

export class ConditionAll {
  @ApiProperty(nodes(`Every node matches (at most ${MAX_TREE_DEPTH} levels, ${MAX_TREE_CONDITIONS} conditions)`))
  all: unknown[];
}

export class ConditionAny {
  @ApiProperty(nodes('At least one node matches'))
  any: unknown[];
}

export class ConditionNot {
  @ApiProperty({ ...node(), description: 'The node does not match (missing and null fields included)' })
  not: unknown;
}

const VALUE_SCHEMA = {
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } },
  ],
};

/** A condition on the properties of the events a behaviour counts, with the operators of `attributes.*`. */
export class PropertyCondition {
  @ApiProperty({ type: String, pattern: PROPERTY_FIELD_PATTERN, example: 'properties.amount' })
  field: string;

  @ApiProperty({ type: String, enum: [...VALUE_OPERATORS], example: 'gte' })
  operator: string;

  @ApiProperty({
    required: false,
    ...VALUE_SCHEMA,
    description: 'As the value of a condition on an attribute',
    example: 100,
  })
  value?: unknown;
}

const days = (description: string): ApiPropertyOptions => ({
  required: false,
  type: 'integer',
  minimum: 1,
  maximum: MAX_BEHAVIOUR_DAYS,
  nullable: true,
  description,
});
const where: ApiPropertyOptions = {
  required: false,
  type: PropertyCondition,
  isArray: true,
  maxItems: MAX_WHERE_CONDITIONS,
  description: 'Only events whose properties match every condition',
};
const eventName = { example: 'purchase', description: 'The event name, compared exactly' };

/** `performed`: the customer did `event` at least `min` and at most `max` times (in the last `within_days`). */
export class BehaviourPerformed {
  @ApiProperty(eventName) event: string;

  @ApiProperty({
    required: false,
    type: 'integer',
    minimum: 0,
    maximum: MAX_BEHAVIOUR_COUNT,
    nullable: true,
    description: 'Default 1',
  })
  min?: number | null;

  @ApiProperty({
    required: false,
    type: 'integer',
    minimum: 0,
    maximum: MAX_BEHAVIOUR_COUNT,
    nullable: true,
    description: 'Default: no upper bound. `min: 0, max: 0` is "did not"',
  })
  max?: number | null;

  @ApiProperty(days('The last so many days (24 h each) before now; default: every kept event'))
  within_days?: number | null;

  @ApiProperty(where) where?: PropertyCondition[];
}

/** `last_performed`: the customer's newest such event is older than `before_days` and/or newer than `after_days`. */
export class BehaviourLastPerformed {
  @ApiProperty(eventName) event: string;

  @ApiProperty(days('The newest such event is older than so many days (a customer who never did it: no)'))
  before_days?: number | null;

  @ApiProperty(days('The newest such event is at most so many days old (with before_days: greater than it)'))
  after_days?: number | null;

  @ApiProperty(where) where?: PropertyCondition[];
}

export class ConditionPerformed {
  @ApiProperty({ type: BehaviourPerformed, description: 'What the customer did: counted over its tracked events' })
  performed: BehaviourPerformed;
}

export class ConditionLastPerformed {
  @ApiProperty({ type: BehaviourLastPerformed, description: 'When the customer last did something' })
  last_performed: BehaviourLastPerformed;
}

export const CONDITION_TREE_MODELS = [
  Condition,
  ConditionAll,
  ConditionAny,
  ConditionNot,
  ConditionPerformed,
  ConditionLastPerformed,
  BehaviourPerformed,
  BehaviourLastPerformed,
  PropertyCondition,
];
