import { ApiProperty } from '@nestjs/swagger';
import { IdField } from '../../../common/fields/fields.js';

export class ResultsQueryDto {
  @IdField({ required: false, description: 'Only this goal of the campaign' })
  goal_id?: number;

  @IdField({
    required: false,
    description: 'Only this run of the campaign: the members whose first run of the campaign it is',
  })
  run_id?: number;
}

const interval = (description: string) =>
  ApiProperty({
    type: 'array',
    items: { type: 'number' },
    minItems: 2,
    maxItems: 2,
    nullable: true,
    description,
    example: [0.104, 0.1163],
  });

export class SrmResponse {
  @ApiProperty({
    type: Number,
    nullable: true,
    description: "Chi-squared goodness of fit of the groups' members against their allocation (0 % groups left out)",
  })
  p_value: number | null;

  @ApiProperty({ description: 'p_value below 0.001: the split is broken, do not read the rest' })
  mismatch: boolean;
}

export class VsControlResponse {
  @ApiProperty({ description: "This group's rate minus the control's", example: 0.01 })
  absolute_lift: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: "absolute_lift / the control's rate (null when that is 0)",
  })
  relative_lift: number | null;

  @interval('Delta-method 95 % interval of the relative lift')
  relative_lift_ci: [number, number] | null;

  @ApiProperty({ description: 'Two-sided pooled two-proportion z test against the control, uncorrected' })
  p_value: number;

  @ApiProperty({ description: 'Below 0.05 after Benjamini-Hochberg over every measurable (goal, group) pair' })
  significant: boolean;
}

export class GroupResultResponse {
  @ApiProperty() treatment_group_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'treatment' }) type: string;
  @ApiProperty({ description: 'Customers of this group in the campaign (in its first run that included them)' })
  members: number;
  @ApiProperty({ description: 'Members the campaign was delivered to (0 for the control)' }) delivered: number;
  @ApiProperty({ description: 'Members who converted on the goal, once each' }) converted: number;
  @ApiProperty({ description: 'converted / members', example: 0.11 }) rate: number;
  @interval('Wilson 95 % interval of the rate (null without members)')
  rate_ci: [number, number] | null;
  @ApiProperty({ description: "The goal's value_property summed over the matching events inside the windows" })
  value_sum: number;
  @ApiProperty({ description: 'value_sum / members' }) value_per_member: number;
  @ApiProperty({
    type: VsControlResponse,
    nullable: true,
    description: 'Null for the control, without one, and when this group or the control has no members',
  })
  vs_control: VsControlResponse | null;
}

export class GoalResultResponse {
  @ApiProperty() goal_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'False for a goal without an event: nothing is measured (groups is empty)' })
  measurable: boolean;
  @ApiProperty({ example: 3 }) window_days: number;
  @ApiProperty({ type: GroupResultResponse, isArray: true }) groups: GroupResultResponse[];
}

export class KpiResultResponse {
  @ApiProperty() kpi_id: number;
  @ApiProperty() name: string;
  @ApiProperty() kpi_type: string;
  @ApiProperty() target_value: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Over the non-control members; null for a KPI that is not measured',
  })
  measured_value: number | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'measured_value >= target_value; null when not measured' })
  on_track: boolean | null;
}

export class CampaignResultsResponse {
  @ApiProperty({ format: 'date-time', description: 'The moment the numbers are exact at' }) computed_at: string;
  @ApiProperty({ type: SrmResponse }) srm: SrmResponse;
  @ApiProperty({ type: GoalResultResponse, isArray: true }) goals: GoalResultResponse[];
  @ApiProperty({ type: KpiResultResponse, isArray: true }) kpis: KpiResultResponse[];
}
