import { ApiProperty } from '@nestjs/swagger';
import { IdField, JsonStringField, NestedArrayField, StringField } from '../../../common/validation/fields.js';

export class AudienceRuleDto {
  @StringField({ max: 255, example: 'country' })
  rule_type: string;

  @StringField({ max: 255, example: 'NL' })
  rule_value: string;
}

export class AudienceDto {
  @StringField({ max: 255, example: 'Returning buyers' })
  name: string;

  @StringField({ required: false, nullable: true })
  description?: string | null;

  @NestedArrayField(() => AudienceRuleDto, {
    required: false,
    max: 1000,
    description: 'Replaces the whole set when sent',
  })
  rules?: AudienceRuleDto[];
}

export class CampaignAudienceDto {
  @IdField({ description: 'A live audience of the same tenant' })
  audience_id: number;

  @JsonStringField({ required: false, nullable: true, example: '{"min_orders":2}' })
  segment_override?: string | null;
}

abstract class SubAudienceFieldsDto {
  @StringField({ max: 255, example: 'Recent buyers in NL' })
  name: string;

  @StringField({ required: false, nullable: true })
  description?: string | null;

  @JsonStringField({ example: '{"last_order_days":30}' })
  segment_definition: string;
}

export class CreateSubAudienceDto extends SubAudienceFieldsDto {
  @IdField({ description: 'A live audience of the same tenant; set on create only' })
  audience_id: number;
}

export class UpdateSubAudienceDto extends SubAudienceFieldsDto {}

class AudienceRuleResponse {
  @ApiProperty() id: number;
  @ApiProperty() rule_type: string;
  @ApiProperty() rule_value: string;
}

export class AudienceResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ type: [AudienceRuleResponse] }) rules: AudienceRuleResponse[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

export class CampaignAudienceResponse extends AudienceResponse {
  @ApiProperty({ type: String, nullable: true, description: 'JSON text, as sent' }) segment_override: string | null;
}

export class SubAudienceResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() campaign_id: number;
  @ApiProperty() audience_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'JSON text, as sent' }) segment_definition: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}
