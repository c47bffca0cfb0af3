import { Injectable } from '@nestjs/common';
import { refuseIfUsed } from '../../common/resources/delete-conflict.js';
import { optional } from '../../common/resources/dto-values.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import type { DestinationDto } from './dto/destination.dto.js';
import { toDestinationResponse, type DestinationResponse } from './dto/destination.response.js';
import { CampaignDestination, Destination } from './entities/destination.entity.js';

@Injectable()
export class DestinationsService extends ResourceService<Destination, DestinationDto, DestinationResponse> {
  constructor(tables: Tables) {
    super(tables, {
      entity: Destination,
      resource: 'destination',
      label: 'destination',
      sorts: { name: 'string', created_at: 'date' },
      filters: { q: ['name'], exact: ['is_active'] },
      toColumns: (dto, existing) => ({
        name: dto.name,
        description: optional(dto.description, existing?.description, null),
        destination_type: dto.destination_type,
        connection_details: dto.connection_details,
        is_active: optional(dto.is_active, existing?.is_active, true),
      }),
      toResponse: toDestinationResponse,
      beforeDelete: async (destination, tx) => {
        const uses = await tx.table(CampaignDestination).count({ destination_id: destination.id });
        refuseIfUsed('destination', [['campaign destination', uses]]);
      },
    });
  }
}
