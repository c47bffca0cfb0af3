import { Inject, Injectable, Optional } from '@nestjs/common';
import { ValidationFailed } from '../../common/http/api-exception.js';
import { decimal, optional } from '../../common/resources/dto-values.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import type { CampaignKpiDto } from './dto/campaign-children.dto.js';
import { toCampaignKpiResponse, type CampaignKpiResponse } from './dto/marketing.responses.js';
import { CampaignKpi, CustomerGoal } from './entities/campaign-children.entity.js';
import { Campaign } from './entities/campaign.entity.js';
import { GOAL_MEASURES, type GoalMeasures } from './goal-measures.js';
import { childColumns, NAMED_SORTS } from './plan-columns.js';

@Injectable()
export class CampaignKpisService extends ResourceService<CampaignKpi, CampaignKpiDto, CampaignKpiResponse> {
  constructor(tables: Tables, @Optional() @Inject(GOAL_MEASURES) measures: GoalMeasures | null = null) {
    super(tables, {
      entity: CampaignKpi,
      resource: 'campaign_kpi',
      label: 'campaign KPI',
      parent: { entity: Campaign, column: 'campaign_id', label: 'campaign' },
      sorts: NAMED_SORTS,
      filters: { q: ['name'] },
      toColumns: (dto, existing) => ({
        ...childColumns(dto, existing),
        kpi_type: dto.kpi_type,
        target_value: decimal(dto.target_value),
        actual_value: optional(
          dto.actual_value === undefined || dto.actual_value === null ? dto.actual_value : decimal(dto.actual_value),
          existing?.actual_value,
          null,
        ),
        goal_id: optional(dto.goal_id, existing?.goal_id, null),
      }),
      toResponse: toCampaignKpiResponse,
      validate: async (dto, { tx, parentId }) => {
        if (!dto.goal_id) return;
        const goal = await tx.reference(CustomerGoal, dto.goal_id, 'goal_id');
        if (Number(goal.campaign_id) !== parentId)
          throw ValidationFailed.field('goal_id', 'The selected goal id is not a goal of this campaign.');
      },
      decorate: measures ? (rows, answers, reads) => measures.measure(reads, rows, answers) : undefined,
    });
  }
}
