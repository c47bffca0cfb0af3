import { IdField, NumberField, StringField } from '../../../common/fields/fields.js';
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
}

export class CustomerGoalDto extends NamedDto {
  @StringField({ max: 255, example: 'purchase' })
  goal_type: string;

  @NumberField({ min: 0, max: MAX_AMOUNT, scale: 2, example: 3 })
  target_value: number;

  @IdField({ required: false, nullable: true, description: 'A live validation rule of the same tenant' })
  validation_rule_id?: number | null;
}
