import { IdField, JsonStringField, NestedArrayField, StringField } from '../../../common/fields/fields.js';
import type { MatchMode } from '../rules/rule-grammar.js';
import {
  ConditionTreeText,
  MATCH_DESCRIPTION,
  MATCH_MODES,
  RULE_VALUE_DESCRIPTION,
  RuleFieldProperty,
  RuleOperand,
  RuleOperatorProperty,
  SEGMENT_DESCRIPTION,
} from './rule-fields.js';

export class AudienceRuleDto {
  @StringField({ max: 255, example: 'country' })
  rule_type: string;

  @StringField({ max: 255, example: 'NL', description: RULE_VALUE_DESCRIPTION })
  @RuleOperand()
  rule_value: string;

  @RuleFieldProperty()
  field?: string | null;

  @RuleOperatorProperty()
  operator?: string | null;
}

/** What selects an audience's customers: its rules and how they combine (also the body of a preview). */
export class AudienceSelectionDto {
  @NestedArrayField(() => AudienceRuleDto, {
    required: false,
    max: 1000,
    description: 'Replaces the whole set when sent',
  })
  rules?: AudienceRuleDto[];

  @StringField({ required: false, in: MATCH_MODES, description: MATCH_DESCRIPTION, example: 'all' })
  match?: MatchMode;
}

export class AudienceDto extends AudienceSelectionDto {
  @StringField({ max: 255, example: 'Returning buyers' })
  name: string;

  @StringField({ required: false, nullable: true })
  description?: string | null;
}

export class CampaignAudienceDto {
  @IdField({ description: 'A live audience of the same tenant' })
  audience_id: number;

  @JsonStringField({
    required: false,
    nullable: true,
    example: '{"field":"attributes.plan","operator":"in","value":["pro","enterprise"]}',
    description: SEGMENT_DESCRIPTION,
  })
  @ConditionTreeText('segment override')
  segment_override?: string | null;
}

abstract class SubAudienceFieldsDto {
  @StringField({ max: 255, example: 'Recent buyers in NL' })
  name: string;

  @StringField({ required: false, nullable: true })
  description?: string | null;

  @JsonStringField({
    example: '{"all":[{"field":"created_at","operator":"within_last_days","value":30}]}',
    description: SEGMENT_DESCRIPTION,
  })
  @ConditionTreeText('segment definition')
  segment_definition: string;
}

export class CreateSubAudienceDto extends SubAudienceFieldsDto {
  @IdField({ description: 'A live audience of the same tenant; set on create only' })
  audience_id: number;
}

export class UpdateSubAudienceDto extends SubAudienceFieldsDto {}
