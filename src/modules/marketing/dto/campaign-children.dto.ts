import { ApiProperty } from '@nestjs/swagger';
import { IsArray, ValidateIf } from 'class-validator';
import { IdField, NumberField, StringField } from '../../../common/fields/fields.js';
import { PropertyConditionResponse } from './marketing.responses.js';
import { MAX_AMOUNT } from './plan.dto.js';

abstract class NamedDto {
  @StringField({ max: 255 })
  name: string;

  @StringField({ required: false, nullable: true })
  description?: string | null;
}

export class TreatmentGroupDto extends NamedDto {
  @StringField({ max: 255, example: 'control' })
  type: string;

  @NumberField({ min: 0, max: 100, scale: 2, example: 50, description: "The campaign's groups add up to at most 100" })
  allocation_percentage: number;
}

export class CampaignKpiDto extends NamedDto {
  @StringField({ max: 255, example: 'conversion' })
  kpi_type: string;

  @NumberField({ min: 0, max: MAX_AMOUNT, scale: 2, example: 1000 })
  target_value: number;

  @NumberField({ required: false, min: 0, max: MAX_AMOUNT, scale: 2, example: 250 })
  actual_value?: number;

  @IdField({
    required: false,
    nullable: true,
    description:
      'A customer goal of the same campaign: the KPI is measured on it (kpi_type `conversions`, `conversion_rate`, `value`)',
  })
  goal_id?: number | null;
}

/** Days after the delivery a conversion still counts. */
export const MAX_WINDOW_DAYS = 30;
export const DEFAULT_WINDOW_DAYS = 3;
/** `value_property`: a property path, with or without its `properties.` prefix. */
export const VALUE_PROPERTY_PATTERN = /^(properties\.)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){0,9}$/;

export class CustomerGoalDto extends NamedDto {
  @StringField({ max: 255, example: 'purchase' })
  goal_type: string;

  @NumberField({ min: 0, max: MAX_AMOUNT, scale: 2, example: 3 })
  target_value: number;

  @IdField({ required: false, nullable: true, description: 'A live validation rule of the same tenant' })
  validation_rule_id?: number | null;

  @StringField({
    required: false,
    nullable: true,
    max: 255,
    example: 'purchase',
    description: 'An event name: the goal is measured by the tracked events of this name (docs/campaign-results.md)',
  })
  event?: string | null;

  @ValidateIf((_o, value) => value !== undefined && value !== null)
  @IsArray({ message: 'The where field must be an array.' })
  @ApiProperty({
    required: false,
    nullable: true,
    type: PropertyConditionResponse,
    isArray: true,
    maxItems: 20,
    description:
      "Conditions on the event's properties, each `{field: 'properties.<path>', operator, value}` as in the behaviour rules; an event counts when it matches every one",
  })
  where?: unknown[] | null;

  @NumberField({
    required: false,
    integer: true,
    min: 1,
    max: MAX_WINDOW_DAYS,
    example: DEFAULT_WINDOW_DAYS,
    description: 'Days after the delivery a conversion still counts (default 3)',
  })
  window_days?: number;

  @StringField({
    required: false,
    nullable: true,
    max: 255,
    example: 'revenue',
    description: "A numeric property of the goal's events, summed as its value (`revenue`, `order.total`)",
  })
  value_property?: string | null;
}
