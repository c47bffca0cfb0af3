import { ApiProperty } from '@nestjs/swagger';
import { recordFields } from '../../../common/http/record-fields.js';
import type { ValidationRule } from '../entities/validation-rule.entity.js';

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

export const toValidationRuleResponse = (row: ValidationRule): ValidationRuleResponse =>
  recordFields(row, {
    name: row.name,
    description: row.description,
    rule_definition: row.rule_definition,
    is_active: row.is_active,
  });
