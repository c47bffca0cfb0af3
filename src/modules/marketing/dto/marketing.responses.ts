import { ApiProperty } from '@nestjs/swagger';
import { recordFields } from '../../../common/http/record-fields.js';
import type { CampaignKpi, CustomerGoal, TreatmentGroup } from '../entities/campaign-children.entity.js';
import type { CampaignGroup } from '../entities/campaign-group.entity.js';
import type { Campaign } from '../entities/campaign.entity.js';
import type { MarketingProgram } from '../entities/marketing-program.entity.js';
import { PLAN_STATUSES, type PlanEntity, type PlanStatus } from '../entities/plan.entity.js';
import { isoString } from '../../../common/http/serialize.js';

/** The answers of the marketing routes, and the mappers that build them from rows. */
abstract class RecordResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

abstract class PlanResponse extends RecordResponse {
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ enum: PLAN_STATUSES }) status: PlanStatus;
  @ApiProperty({ format: 'date-time' }) start_date: string;
  @ApiProperty({ format: 'date-time' }) end_date: string;
  @ApiProperty({ example: 25000 }) budget: number;
  @ApiProperty() goal: string;
}

/** A plan's fields, then `fields` (see recordFields for why not a spread). */
const planFields = <F extends object>(row: PlanEntity, fields: F): Omit<PlanResponse, keyof RecordResponse> & F =>
  Object.assign(
    {
      name: row.name,
      description: row.description,
      status: row.status,
      start_date: isoString(row.start_date),
      end_date: isoString(row.end_date),
      budget: row.budget,
      goal: row.goal,
    },
    fields,
  );

export class MarketingProgramResponse extends PlanResponse {}

export const toMarketingProgramResponse = (row: MarketingProgram): MarketingProgramResponse =>
  recordFields(row, planFields(row, {}));

export class CampaignGroupResponse extends PlanResponse {
  @ApiProperty() marketing_program_id: number;
}

export const toCampaignGroupResponse = (row: CampaignGroup): CampaignGroupResponse =>
  recordFields(row, planFields(row, { marketing_program_id: row.marketing_program_id }));

export class CampaignResponse extends PlanResponse {
  @ApiProperty() campaign_group_id: number;
  @ApiProperty({ type: String, nullable: true, description: 'JSON text, as sent' }) target_audience: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'JSON text, as sent' }) success_criteria: string | null;
}

export const toCampaignResponse = (row: Campaign): CampaignResponse =>
  recordFields(
    row,
    planFields(row, {
      campaign_group_id: row.campaign_group_id,
      target_audience: row.target_audience,
      success_criteria: row.success_criteria,
    }),
  );

abstract class CampaignChildResponse extends RecordResponse {
  @ApiProperty() campaign_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
}

export class TreatmentGroupResponse extends CampaignChildResponse {
  @ApiProperty() type: string;
  @ApiProperty({ example: 50 }) allocation_percentage: number;
}

export const toTreatmentGroupResponse = (row: TreatmentGroup): TreatmentGroupResponse =>
  recordFields(row, {
    campaign_id: row.campaign_id,
    name: row.name,
    description: row.description,
    type: row.type,
    allocation_percentage: row.allocation_percentage,
  });

export class CampaignKpiResponse extends CampaignChildResponse {
  @ApiProperty() kpi_type: string;
  @ApiProperty() target_value: number;
  @ApiProperty({ type: Number, nullable: true }) actual_value: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'The goal of the same campaign it is measured on' })
  goal_id: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    readOnly: true,
    description:
      "Measured over the campaign's non-control members (kpi_type `conversions`, `conversion_rate` (0-1) and `value` " +
      'with a `goal_id`; `delivered`); null for other KPIs. `actual_value` stays what the client sent.',
  })
  measured_value: number | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    readOnly: true,
    description: 'When measured_value was computed',
  })
  measured_at: string | null;
}

export const toCampaignKpiResponse = (row: CampaignKpi): CampaignKpiResponse =>
  recordFields(row, {
    campaign_id: row.campaign_id,
    name: row.name,
    description: row.description,
    kpi_type: row.kpi_type,
    target_value: row.target_value,
    actual_value: row.actual_value,
    goal_id: row.goal_id,
    // Filled by the KPI measures (docs/campaign-results.md), when the results module is there.
    measured_value: null as number | null,
    measured_at: null as string | null,
  });

/**
 * A condition on an event's properties, as in the behaviour rules (docs/customer-events.md; the
 * audience module's PropertyCondition, which this module cannot import: the rule grammar checks it).
 */
export class PropertyConditionResponse {
  @ApiProperty({ example: 'properties.amount', pattern: '^properties(\\.[A-Za-z0-9_-]+)+$' }) field: string;
  @ApiProperty({ example: 'gte', description: 'An operator of `attributes.<key>` conditions' }) operator: string;
  @ApiProperty({
    required: false,
    description: 'As the value of a condition on an attribute (ignored by exists and not_exists)',
    example: 100,
    oneOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } },
    ],
  })
  value?: unknown;
}

export class CustomerGoalResponse extends CampaignChildResponse {
  @ApiProperty() goal_type: string;
  @ApiProperty() target_value: number;
  @ApiProperty({ type: Number, nullable: true }) validation_rule_id: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Measured by events of this name' }) event: string | null;
  @ApiProperty({ type: PropertyConditionResponse, isArray: true, nullable: true }) where:
    PropertyConditionResponse[] | null;
  @ApiProperty({ example: 3 }) window_days: number;
  @ApiProperty({ type: String, nullable: true, example: 'revenue' }) value_property: string | null;
}

export const toCustomerGoalResponse = (row: CustomerGoal): CustomerGoalResponse =>
  recordFields(row, {
    campaign_id: row.campaign_id,
    name: row.name,
    description: row.description,
    goal_type: row.goal_type,
    target_value: row.target_value,
    validation_rule_id: row.validation_rule_id,
    event: row.event,
    where: row.conditions === null ? null : (JSON.parse(row.conditions) as PropertyConditionResponse[]),
    window_days: Number(row.window_days),
    value_property: row.value_property,
  });
