import { Injectable } from '@nestjs/common';
import { refuseIfUsed } from '../../common/resources/delete-conflict.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import type { PlanDto } from './dto/plan.dto.js';
import { toMarketingProgramResponse, type MarketingProgramResponse } from './dto/marketing.responses.js';
import { CampaignGroup } from './entities/campaign-group.entity.js';
import { MarketingProgram } from './entities/marketing-program.entity.js';
import { PLAN_FILTERS, PLAN_SORTS, planColumns } from './plan-columns.js';

@Injectable()
export class MarketingProgramsService extends ResourceService<MarketingProgram, PlanDto, MarketingProgramResponse> {
  constructor(tables: Tables) {
    super(tables, {
      entity: MarketingProgram,
      resource: 'marketing_program',
      label: 'marketing program',
      sorts: PLAN_SORTS,
      filters: PLAN_FILTERS,
      toColumns: planColumns,
      toResponse: toMarketingProgramResponse,
      beforeDelete: async (program, tx) => {
        const groups = await tx.table(CampaignGroup).count({ marketing_program_id: program.id });
        refuseIfUsed('marketing program', [['campaign group', groups]]);
      },
    });
  }
}
