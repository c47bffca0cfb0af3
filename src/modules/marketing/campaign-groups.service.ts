import { Injectable } from '@nestjs/common';
import { refuseIfUsed } from '../../common/resources/delete-conflict.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import type { PlanDto } from './dto/plan.dto.js';
import { toCampaignGroupResponse, type CampaignGroupResponse } from './dto/marketing.responses.js';
import { CampaignGroup } from './entities/campaign-group.entity.js';
import { Campaign } from './entities/campaign.entity.js';
import { MarketingProgram } from './entities/marketing-program.entity.js';
import { PLAN_FILTERS, PLAN_SORTS, planColumns } from './plan-columns.js';

@Injectable()
export class CampaignGroupsService extends ResourceService<CampaignGroup, PlanDto, CampaignGroupResponse> {
  constructor(tables: Tables) {
    super(tables, {
      entity: CampaignGroup,
      resource: 'campaign_group',
      label: 'campaign group',
      parent: { entity: MarketingProgram, column: 'marketing_program_id', label: 'marketing program' },
      sorts: PLAN_SORTS,
      filters: PLAN_FILTERS,
      toColumns: planColumns,
      toResponse: toCampaignGroupResponse,
      beforeDelete: async (group, tx) => {
        const campaigns = await tx.table(Campaign).count({ campaign_group_id: group.id });
        refuseIfUsed('campaign group', [['campaign', campaigns]]);
      },
    });
  }
}
