import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ValidationFailed } from '../../common/http/api-exception.js';
import type { AssociationDefinition } from '../../common/resources/association.js';
import { refuseIfUsed } from '../../common/resources/delete-conflict.js';
import { optional } from '../../common/resources/dto-values.js';
import type { ResourceDefinition } from '../../common/resources/resource-definition.js';
import { resourceServiceToken } from '../../common/resources/resource.providers.js';
import type { ResourceService } from '../../common/resources/resource.service.js';
import { ReferenceChecker } from '../../common/resources/reference-checker.js';
import { TreatmentGroup } from '../marketing/entities/campaign-children.entity.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import type {
  CampaignDestinationDto,
  CampaignDestinationResponse,
  DestinationDto,
  DestinationResponse,
} from './dto/destination.dto.js';
import { CampaignDestination, Destination } from './entities/destination.entity.js';

@Injectable()
export class DestinationsDefinition implements ResourceDefinition<Destination, DestinationResponse, DestinationDto> {
  entity = Destination;
  label = 'destination';
  sorts = { name: 'string', created_at: 'date' } as const;
  filters = { q: ['name'], exact: ['is_active'] };

  toColumns(dto: DestinationDto, existing?: Destination): Partial<Destination> {
    return {
      name: dto.name,
      description: optional(dto.description, existing?.description, null),
      destination_type: dto.destination_type,
      connection_details: dto.connection_details,
      is_active: optional(dto.is_active, existing?.is_active, true),
    };
  }

  async beforeDelete(destination: Destination, manager: EntityManager): Promise<void> {
    const uses = await manager.count(CampaignDestination, { where: { destination_id: destination.id } });
    refuseIfUsed('destination', [['campaign destination', uses]]);
  }
}

@Injectable()
export class CampaignDestinationsDefinition implements AssociationDefinition<
  CampaignDestination,
  CampaignDestinationDto,
  CampaignDestinationResponse
> {
  entity = CampaignDestination;
  owner = { entity: Campaign, column: 'campaign_id', label: 'campaign' };
  target = { column: 'destination_id', label: 'destination' };
  // A destination may serve several treatment groups of one campaign.
  unique = false;

  constructor(
    @Inject(resourceServiceToken(DestinationsDefinition))
    readonly targets: ResourceService<Destination, DestinationResponse>,
    private readonly references: ReferenceChecker,
  ) {}

  targetId = (dto: CampaignDestinationDto) => dto.destination_id;
  toColumns = (dto: CampaignDestinationDto) => ({
    treatment_group_id: dto.treatment_group_id ?? null,
    attribute_mapping: dto.attribute_mapping,
    is_active: dto.is_active ?? true,
  });

  /** A treatment group, when named, must belong to the same campaign. */
  async validate(
    dto: CampaignDestinationDto,
    { manager, ownerId }: { manager: EntityManager; ownerId: number },
  ): Promise<void> {
    if (!dto.treatment_group_id) return;
    const group = await this.references.find(manager, TreatmentGroup, dto.treatment_group_id, 'treatment_group_id');
    if (Number(group.campaign_id) !== ownerId) {
      throw ValidationFailed.field(
        'treatment_group_id',
        'The selected treatment group id does not belong to this campaign.',
      );
    }
  }

  /** The link record with the destination record inside it. */
  present = (link: Record<string, unknown>, destination: DestinationResponse): CampaignDestinationResponse => ({
    ...(link as Omit<CampaignDestinationResponse, 'destination'>),
    destination,
  });
}
