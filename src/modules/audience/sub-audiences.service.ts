import { Injectable } from '@nestjs/common';
import { optional } from '../../common/resources/dto-values.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import type { CreateSubAudienceDto, UpdateSubAudienceDto } from './dto/audience.dto.js';
import { toSubAudienceResponse, type SubAudienceResponse } from './dto/audience.response.js';
import { Audience, SubAudience } from './entities/audience.entity.js';

@Injectable()
export class SubAudiencesService extends ResourceService<
  SubAudience,
  CreateSubAudienceDto | UpdateSubAudienceDto,
  SubAudienceResponse
> {
  constructor(tables: Tables) {
    super(tables, {
      entity: SubAudience,
      resource: 'sub_audience',
      label: 'sub-audience',
      parent: { entity: Campaign, column: 'campaign_id', label: 'campaign' },
      sorts: { name: 'string', created_at: 'date' },
      filters: { q: ['name'] },
      toColumns: (dto, existing) => ({
        // The audience is chosen on create only.
        ...(!existing && 'audience_id' in dto ? { audience_id: dto.audience_id } : {}),
        name: dto.name,
        description: optional(dto.description, existing?.description, null),
        segment_definition: dto.segment_definition,
      }),
      toResponse: toSubAudienceResponse,
      validate: async (dto, { tx, existing }) => {
        if (!existing && 'audience_id' in dto) await tx.reference(Audience, dto.audience_id, 'audience_id');
      },
    });
  }
}
