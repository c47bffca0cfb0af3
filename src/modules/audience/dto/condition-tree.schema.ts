import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { MAX_TREE_CONDITIONS, MAX_TREE_DEPTH } from '../rules/condition-tree.js';
import { OPERATORS } from '../rules/rule-grammar.js';
import { FIELD_SCHEMA } from './rule-fields.js';

/**
 * The OpenAPI schemas of a condition tree, the JSON a `segment_definition` or `segment_override`
 * text may hold. Documentation only: the trees are parsed by ../rules/condition-tree.ts.
 */

/** Any node: one of the four shapes below (named, as the classes are not all defined yet where this is used). */
const node = () => ({
  oneOf: ['ConditionAll', 'ConditionAny', 'ConditionNot', 'Condition'].map((model) => ({ $ref: getSchemaPath(model) })),
});

const nodes = (description: string) => ({ type: 'array', minItems: 1, items: node(), description }) as const;

export class Condition {
  @ApiProperty({ ...FIELD_SCHEMA, description: 'A customer column or `attributes.<key>[.<key>...]`' })
  field: string;

  @ApiProperty({ type: String, enum: [...OPERATORS] })
  operator: string;

  @ApiProperty({
    required: false,
    description:
      'A JSON value: a string, number or boolean; an array for in, not_in and between ([low, high]); ' +
      'a number of days for within_last_days; ignored by exists and not_exists.',
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

export const CONDITION_TREE_MODELS = [Condition, ConditionAll, ConditionAny, ConditionNot];
