import { ApiProperty } from '@nestjs/swagger';
import { recordFields } from '../../../common/http/record-fields.js';
import type { Audience, AudienceRule, CampaignAudience, SubAudience } from '../entities/audience.entity.js';
import { MATCH_MODES, OPERATORS, type MatchMode } from '../rules/rule-grammar.js';
import { NULLABLE_FIELD_SCHEMA, SEGMENT_DESCRIPTION } from './rule-fields.js';

export class AudienceRuleResponse {
  @ApiProperty() id: number;
  @ApiProperty() rule_type: string;
  @ApiProperty() rule_value: string;
  @ApiProperty({ ...NULLABLE_FIELD_SCHEMA, description: 'null on a descriptive rule' }) field: string | null;
  @ApiProperty({ type: String, nullable: true, enum: [...OPERATORS], description: 'null on a descriptive rule' })
  operator: string | null;
}

export class AudienceResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ type: String, enum: [...MATCH_MODES] }) match: MatchMode;
  @ApiProperty({ type: [AudienceRuleResponse] }) rules: AudienceRuleResponse[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

export class CampaignAudienceResponse extends AudienceResponse {
  @ApiProperty({ type: String, nullable: true, description: SEGMENT_DESCRIPTION }) segment_override: string | null;
}

export class SubAudienceResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() campaign_id: number;
  @ApiProperty() audience_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: SEGMENT_DESCRIPTION }) segment_definition: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

/** The audience's own fields; its rules are added for a whole page at once (AudiencesService). */
export const toAudienceResponse = (row: Audience): AudienceResponse =>
  recordFields(row, {
    name: row.name,
    description: row.description,
    match: row.match,
    rules: [],
  });

export const toAudienceRuleResponse = (rule: AudienceRule): AudienceRuleResponse => ({
  id: rule.id,
  rule_type: rule.rule_type,
  rule_value: rule.rule_value,
  field: rule.field,
  operator: rule.operator,
});

export const toCampaignAudienceResponse = (
  link: CampaignAudience,
  audience: AudienceResponse,
): CampaignAudienceResponse => Object.assign({}, audience, { segment_override: link.segment_override });

export const toSubAudienceResponse = (row: SubAudience): SubAudienceResponse =>
  recordFields(row, {
    campaign_id: row.campaign_id,
    audience_id: row.audience_id,
    name: row.name,
    description: row.description,
    segment_definition: row.segment_definition,
  });
