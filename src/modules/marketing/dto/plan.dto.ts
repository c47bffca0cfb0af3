import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { DateField, NumberField, StringField } from '../../../common/fields/fields.js';
import { PLAN_STATUSES, type PlanStatus } from '../entities/plan.entity.js';

/** The largest DECIMAL(15,2) value. */
export const MAX_AMOUNT = 9_999_999_999_999.99;

/** Fields shared by programs, groups and campaigns (description differs, so it is declared by each). */
export abstract class PlanFieldsDto {
  @StringField({ max: 255, example: 'Spring launch' })
  name: string;

  @StringField({ in: PLAN_STATUSES, example: 'draft' })
  status: PlanStatus;

  @DateField({ example: '2026-03-01' })
  start_date: string;

  @DateField({ onOrAfter: 'start_date', example: '2026-05-31T23:59:59Z' })
  end_date: string;

  @NumberField({ min: 0, max: MAX_AMOUNT, scale: 2, example: 25000 })
  budget: number;

  @StringField({ max: 255, example: 'Grow sign-ups by 10 %' })
  goal: string;
}

/** Marketing program and campaign group (same input fields). */
export class PlanDto extends PlanFieldsDto {
  @StringField({ example: 'What the plan is about' })
  description: string;
}

export class PlanListQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of the name' })
  q?: string;

  @StringField({ required: false, in: PLAN_STATUSES })
  status?: PlanStatus;
}
