import { Injectable } from '@nestjs/common';
import { optional } from '../../common/resources/dto-values.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import { DeletionEffects } from '../../common/resources/deletion-effects.js';
import type { CampaignDto } from './dto/campaign.dto.js';
import { toCampaignResponse, type CampaignResponse } from './dto/marketing.responses.js';
import { CampaignGroup } from './entities/campaign-group.entity.js';
import { Campaign } from './entities/campaign.entity.js';
import { PLAN_FILTERS, PLAN_SORTS, planColumns } from './plan-columns.js';

@Injectable()
export class CampaignsService extends ResourceService<Campaign, CampaignDto, CampaignResponse> {
  constructor(tables: Tables, effects: DeletionEffects) {
    super(tables, {
      entity: Campaign,
      resource: 'campaign',
      label: 'campaign',
      parent: { entity: CampaignGroup, column: 'campaign_group_id', label: 'campaign group' },
      sorts: PLAN_SORTS,
      filters: PLAN_FILTERS,
      toColumns: (dto, existing) => ({
        ...planColumns(dto, existing),
        target_audience: optional(dto.target_audience, existing?.target_audience, null),
        success_criteria: optional(dto.success_criteria, existing?.success_criteria, null),
      }),
      toResponse: toCampaignResponse,
      // A campaign takes everything inside it along, in the same transaction (src/app.module.ts).
      beforeDelete: (campaign, tx) => effects.apply(Campaign, campaign, tx),
    });
  }
}
