import { Injectable } from '@nestjs/common';
import { decimal, optional } from '../../common/resources/dto-values.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import type { CampaignKpiDto } from './dto/campaign-children.dto.js';
import { toCampaignKpiResponse, type CampaignKpiResponse } from './dto/marketing.responses.js';
import { CampaignKpi } from './entities/campaign-children.entity.js';
import { Campaign } from './entities/campaign.entity.js';
import { childColumns, NAMED_SORTS } from './plan-columns.js';

@Injectable()
export class CampaignKpisService extends ResourceService<CampaignKpi, CampaignKpiDto, CampaignKpiResponse> {
  constructor(tables: Tables) {
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
      }),
      toResponse: toCampaignKpiResponse,
    });
  }
}
