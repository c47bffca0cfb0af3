import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ValidationFailed } from '../../common/http/api-exception.js';
import { refuseIfUsed } from '../../common/resources/delete-conflict.js';
import { dateValue, optional } from '../../common/resources/dto-values.js';
import { ReferenceChecker } from '../../common/resources/reference-checker.js';
import type { ResourceDefinition, WriteContext } from '../../common/resources/resource-definition.js';
import { ValidationRule } from '../validation/entities/validation-rule.entity.js';
import type { CampaignKpiDto, CustomerGoalDto, TreatmentGroupDto } from './dto/campaign-children.dto.js';
import type { CampaignDto, PlanDto } from './dto/plan.dto.js';
import { CampaignGroup } from './entities/campaign-group.entity.js';
import { CampaignKpi, CustomerGoal, TreatmentGroup } from './entities/campaign-children.entity.js';
import { Campaign } from './entities/campaign.entity.js';
import { MarketingProgram } from './entities/marketing-program.entity.js';
import type { PlanEntity } from './entities/plan.entity.js';
import { CampaignCascade } from './campaign-cascade.js';

const NAMED_SORTS = { name: 'string', created_at: 'date' } as const;
const PLAN_SORTS = { ...NAMED_SORTS, start_date: 'date', end_date: 'date', budget: 'number' } as const;

const planColumns = (dto: PlanDto | CampaignDto, existing?: PlanEntity): Partial<PlanEntity> => ({
  name: dto.name,
  description: optional(dto.description, existing?.description, null),
  status: dto.status,
  start_date: dateValue(dto.start_date),
  end_date: dateValue(dto.end_date),
  budget: dto.budget,
  goal: dto.goal,
});

@Injectable()
export class MarketingProgramsDefinition implements ResourceDefinition<MarketingProgram, unknown, PlanDto> {
  entity = MarketingProgram;
  label = 'marketing program';
  sorts = PLAN_SORTS;
  filters = { q: ['name'], exact: ['status'] };
  toColumns = planColumns;

  async beforeDelete(program: MarketingProgram, manager: EntityManager): Promise<void> {
    const groups = await manager.count(CampaignGroup, { where: { marketing_program_id: program.id } });
    refuseIfUsed('marketing program', [['campaign group', groups]]);
  }
}

@Injectable()
export class CampaignGroupsDefinition implements ResourceDefinition<CampaignGroup, unknown, PlanDto> {
  entity = CampaignGroup;
  label = 'campaign group';
  parent = { entity: MarketingProgram, column: 'marketing_program_id', label: 'marketing program' };
  sorts = PLAN_SORTS;
  filters = { q: ['name'], exact: ['status'] };
  toColumns = planColumns;

  async beforeDelete(group: CampaignGroup, manager: EntityManager): Promise<void> {
    const campaigns = await manager.count(Campaign, { where: { campaign_group_id: group.id } });
    refuseIfUsed('campaign group', [['campaign', campaigns]]);
  }
}

@Injectable()
export class CampaignsDefinition implements ResourceDefinition<Campaign, unknown, CampaignDto> {
  entity = Campaign;
  label = 'campaign';
  parent = { entity: CampaignGroup, column: 'campaign_group_id', label: 'campaign group' };
  sorts = PLAN_SORTS;
  filters = { q: ['name'], exact: ['status'] };

  constructor(private readonly cascade: CampaignCascade) {}

  toColumns(dto: CampaignDto, existing?: Campaign): Partial<Campaign> {
    return {
      ...planColumns(dto, existing),
      target_audience: optional(dto.target_audience, existing?.target_audience, null),
      success_criteria: optional(dto.success_criteria, existing?.success_criteria, null),
    };
  }

  /** A campaign takes everything inside it along (API-CONVENTIONS §7), in the same transaction. */
  beforeDelete(campaign: Campaign, manager: EntityManager): Promise<void> {
    return this.cascade.removeContents(campaign, manager);
  }
}

const childColumns = (
  dto: { name: string; description?: string | null },
  existing?: { description: string | null },
) => ({
  name: dto.name,
  description: optional(dto.description, existing?.description, null),
});

const CAMPAIGN_PARENT = { entity: Campaign, column: 'campaign_id', label: 'campaign' };

@Injectable()
export class TreatmentGroupsDefinition implements ResourceDefinition<TreatmentGroup, unknown, TreatmentGroupDto> {
  entity = TreatmentGroup;
  label = 'treatment group';
  parent = CAMPAIGN_PARENT;
  sorts = NAMED_SORTS;
  filters = { q: ['name'] };

  toColumns(dto: TreatmentGroupDto, existing?: TreatmentGroup): Partial<TreatmentGroup> {
    return { ...childColumns(dto, existing), type: dto.type, allocation_percentage: dto.allocation_percentage };
  }

  /**
   * The campaign's groups add up to at most 100 %. The campaign row is locked by the generic
   * write path first, so two concurrent creates cannot both see room for themselves.
   */
  async validate(dto: TreatmentGroupDto, { manager, existing, parentId }: WriteContext<TreatmentGroup>): Promise<void> {
    const qb = manager
      .createQueryBuilder(TreatmentGroup, 'treatment_groups')
      .select('COALESCE(SUM(treatment_groups.allocation_percentage), 0)', 'total')
      .where('treatment_groups.campaign_id = :campaignId', { campaignId: parentId });
    if (existing) qb.andWhere('treatment_groups.id <> :id', { id: existing.id });
    const others = Number((await qb.getRawOne<{ total: string | number }>())?.total ?? 0);
    if (Math.round((others + dto.allocation_percentage) * 100) > 100 * 100) {
      throw ValidationFailed.field(
        'allocation_percentage',
        `The allocation percentages of a campaign's treatment groups must not add up to more than 100 (the other groups hold ${others}).`,
      );
    }
  }
}

@Injectable()
export class CampaignKpisDefinition implements ResourceDefinition<CampaignKpi, unknown, CampaignKpiDto> {
  entity = CampaignKpi;
  label = 'campaign KPI';
  parent = CAMPAIGN_PARENT;
  sorts = NAMED_SORTS;
  filters = { q: ['name'] };

  toColumns(dto: CampaignKpiDto, existing?: CampaignKpi): Partial<CampaignKpi> {
    return {
      ...childColumns(dto, existing),
      kpi_type: dto.kpi_type,
      target_value: dto.target_value,
      actual_value: optional<number | string | null>(dto.actual_value, existing?.actual_value, null),
    };
  }
}

@Injectable()
export class CustomerGoalsDefinition implements ResourceDefinition<CustomerGoal, unknown, CustomerGoalDto> {
  entity = CustomerGoal;
  label = 'customer goal';
  parent = CAMPAIGN_PARENT;
  sorts = NAMED_SORTS;
  filters = { q: ['name'] };

  constructor(private readonly references: ReferenceChecker) {}

  toColumns(dto: CustomerGoalDto, existing?: CustomerGoal): Partial<CustomerGoal> {
    return {
      ...childColumns(dto, existing),
      goal_type: dto.goal_type,
      target_value: dto.target_value,
      validation_rule_id: optional(dto.validation_rule_id, existing?.validation_rule_id, null),
    };
  }

  async validate(dto: CustomerGoalDto, { manager }: WriteContext<CustomerGoal>): Promise<void> {
    if (dto.validation_rule_id)
      await this.references.find(manager, ValidationRule, dto.validation_rule_id, 'validation_rule_id');
  }
}
