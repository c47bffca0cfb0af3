import { ApiProperty } from '@nestjs/swagger';
import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { BooleanField, IdField, JsonStringField, StringField } from '../../../common/validation/fields.js';

export class ValidationRuleDto {
  @StringField({ max: 255, example: 'Adults only' })
  name: string;

  @StringField({ required: false, nullable: true })
  description?: string | null;

  @JsonStringField({ example: '{"field":"age","operator":">=","value":18}' })
  rule_definition: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class ValidationRuleListQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of the name' })
  q?: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class ValidationRuleResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'JSON text, as sent' }) rule_definition: string;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

export class ValidationRuleReadFailure {
  @ApiProperty({ example: 500 }) code: number;
  @ApiProperty({ example: 'Failed to retrieve validation rule.' }) message: string;
  @ApiProperty({ description: 'Text of the underlying database error' }) data: string;
}

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
