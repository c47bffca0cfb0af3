import { Injectable } from '@nestjs/common';
import { ValidationFailed } from '../../common/http/api-exception.js';
import { AssociationService } from '../../common/resources/association.service.js';
import { Tables } from '../../common/persistence/tables.js';
import { TreatmentGroup } from '../marketing/entities/campaign-children.entity.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import { DestinationsService } from './destinations.service.js';
import type { CampaignDestinationDto } from './dto/destination.dto.js';
import {
  toCampaignDestinationResponse,
  type CampaignDestinationResponse,
  type DestinationResponse,
} from './dto/destination.response.js';
import { CampaignDestination, Destination } from './entities/destination.entity.js';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { Deliverability } from './delivery/deliverability.js';

/**
 * A campaign's destinations: the link's own fields (its attribute mapping stored as sent), answered
 * with the destination inside and with `deliverable` and `problems`: the mapping's, and the
 * destination's under `destination.` (Deliverability.link).
 */
@Injectable()
export class CampaignDestinationsService extends AssociationService<
  CampaignDestination,
  Destination,
  CampaignDestinationDto,
  CampaignDestinationResponse,
  DestinationResponse
> {
  constructor(
    private readonly allTables: Tables,
    destinations: DestinationsService,
    private readonly deliverability: Deliverability,
  ) {
    super(allTables, {
      entity: CampaignDestination,
      resource: 'campaign_destination',
      updatable: true,
      owner: { entity: Campaign, column: 'campaign_id', label: 'campaign' },
      target: { column: 'destination_id', label: 'destination', resource: destinations },
      item: 'link',
      // A destination may serve several treatment groups of one campaign.
      unique: false,
      targetId: (dto) => dto.destination_id,
      toColumns: (dto) => ({
        treatment_group_id: dto.treatment_group_id ?? null,
        attribute_mapping: dto.attribute_mapping,
        is_active: dto.is_active ?? true,
      }),
      /** A treatment group, when named, must belong to the same campaign. */
      validate: async (dto, { tx, ownerId }) => {
        if (!dto.treatment_group_id) return;
        const group = await tx.reference(TreatmentGroup, dto.treatment_group_id, 'treatment_group_id');
        if (group.campaign_id !== ownerId) {
          throw ValidationFailed.field(
            'treatment_group_id',
            'The selected treatment group id does not belong to this campaign.',
          );
        }
      },
      present: (link, destination) =>
        toCampaignDestinationResponse(link, destination, deliverability.link(link, destination).problems),
    });
  }

  /**
   * The destination's hosts are resolved before the write's transaction, so that its answer and
   * the change feed's event (made inside it, with the destination's problems) wait on no DNS.
   */
  override async create(
    auth: AuthContext,
    campaignId: number,
    dto: CampaignDestinationDto,
  ): Promise<CampaignDestinationResponse> {
    const destination = await this.allTables.read(auth).table(Destination).findById(Number(dto.destination_id));
    if (destination) await this.deliverability.assess(destination);
    return super.create(auth, campaignId, dto);
  }
}
