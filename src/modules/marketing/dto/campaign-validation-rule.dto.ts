import { ApiProperty } from '@nestjs/swagger';
import { IdField, JsonStringField } from '../../../common/fields/fields.js';
import { ValidationRuleResponse } from '../../validation/dto/validation-rule.response.js';

export class CampaignValidationRuleDto {
  @IdField({ description: 'A live (not deleted) validation rule of the same tenant' })
  validation_rule_id: number;

  /** Optional but not nullable (INTERFACE.md; API-CONVENTIONS §6); left out, none is stored. */
  @JsonStringField({ required: false, example: '{"value":21}' })
  rule_override?: string;
}

export class CampaignValidationRuleResponse extends ValidationRuleResponse {
  @ApiProperty({ type: String, nullable: true, description: 'JSON text, as sent' }) rule_override: string | null;
}
