import { ApiProperty } from '@nestjs/swagger';
import { PLAN_STATUSES } from '../entities/plan.entity.js';

/** Documentation of the records the marketing routes return (built by the generic record mapper). */
abstract class RecordResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

abstract class PlanResponse extends RecordResponse {
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ enum: PLAN_STATUSES }) status: string;
  @ApiProperty({ format: 'date-time' }) start_date: string;
  @ApiProperty({ format: 'date-time' }) end_date: string;
  @ApiProperty({ example: 25000 }) budget: number;
  @ApiProperty() goal: string;
}

export class MarketingProgramResponse extends PlanResponse {}

export class CampaignGroupResponse extends PlanResponse {
  @ApiProperty() marketing_program_id: number;
}

export class CampaignResponse extends PlanResponse {
  @ApiProperty() campaign_group_id: number;
  @ApiProperty({ type: String, nullable: true, description: 'JSON text, as sent' }) target_audience: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'JSON text, as sent' }) success_criteria: string | null;
}

abstract class CampaignChildResponse extends RecordResponse {
  @ApiProperty() campaign_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
}

export class TreatmentGroupResponse extends CampaignChildResponse {
  @ApiProperty() type: string;
  @ApiProperty({ example: 50 }) allocation_percentage: number;
}

export class CampaignKpiResponse extends CampaignChildResponse {
  @ApiProperty() kpi_type: string;
  @ApiProperty() target_value: number;
  @ApiProperty({ type: Number, nullable: true }) actual_value: number | null;
}

export class CustomerGoalResponse extends CampaignChildResponse {
  @ApiProperty() goal_type: string;
  @ApiProperty() target_value: number;
  @ApiProperty({ type: Number, nullable: true }) validation_rule_id: number | null;
}
