import { Injectable } from '@nestjs/common';
import { AssociationService } from '../../common/resources/association.service.js';
import { Tables } from '../../common/persistence/tables.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import { AudiencesService } from './audiences.service.js';
import { campaignsChanged } from '../marketing/campaign-selection-version.js';
import type { CampaignAudienceDto } from './dto/audience.dto.js';
import {
  toCampaignAudienceResponse,
  type AudienceResponse,
  type CampaignAudienceResponse,
} from './dto/audience.response.js';
import { CampaignAudience, type Audience } from './entities/audience.entity.js';

/** Each item is the audience record (with its rules) plus the link's segment_override. */
@Injectable()
export class CampaignAudiencesService extends AssociationService<
  CampaignAudience,
  Audience,
  CampaignAudienceDto,
  CampaignAudienceResponse,
  AudienceResponse
> {
  constructor(tables: Tables, audiences: AudiencesService) {
    super(tables, {
      entity: CampaignAudience,
      resource: 'campaign_audience',
      owner: { entity: Campaign, column: 'campaign_id', label: 'campaign' },
      target: { column: 'audience_id', label: 'audience', resource: audiences },
      item: 'target',
      unique: true,
      targetId: (dto) => dto.audience_id,
      toColumns: (dto) => ({ segment_override: dto.segment_override ?? null }),
      present: toCampaignAudienceResponse,
      onChange: (link, tx) => campaignsChanged(tx, [link.campaign_id]),
    });
  }
}
