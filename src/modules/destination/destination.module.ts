import { Module, type OnModuleInit } from '@nestjs/common';
import { associationService, createAssociationController } from '../../common/resources/association.js';
import { ReferenceChecker } from '../../common/resources/reference-checker.js';
import { createResourceController } from '../../common/resources/resource.controller.js';
import { resourceService } from '../../common/resources/resource.providers.js';
import { CampaignCascade } from '../marketing/campaign-cascade.js';
import { MarketingModule } from '../marketing/marketing.module.js';
import { CampaignDestinationsDefinition, DestinationsDefinition } from './destination.definitions.js';
import {
  CampaignDestinationDto,
  CampaignDestinationResponse,
  DestinationDto,
  DestinationListQueryDto,
  DestinationResponse,
} from './dto/destination.dto.js';
import { CampaignDestination } from './entities/destination.entity.js';

const destinations = { view: 'destinations.view', manage: 'destinations.manage' } as const;

export const DestinationsController = createResourceController({
  definition: DestinationsDefinition,
  tag: 'Destinations',
  names: ['destination', 'destinations'],
  permissions: destinations,
  routes: { collection: 'destinations', item: 'destinations/:id', itemParam: 'id' },
  response: DestinationResponse,
  createDto: DestinationDto,
  updateDto: DestinationDto,
  listQuery: DestinationListQueryDto,
});

export const CampaignDestinationsController = createAssociationController({
  definition: CampaignDestinationsDefinition,
  tag: 'Destinations',
  names: ['destination', 'destinations'],
  permissions: destinations,
  collection: 'campaigns/:campaign_id/destinations',
  ownerParam: 'campaign_id',
  remove: { path: 'campaign-destinations/:campaign_destination_id', param: 'campaign_destination_id', by: 'id' },
  response: CampaignDestinationResponse,
  createDto: CampaignDestinationDto,
});

@Module({
  imports: [MarketingModule],
  controllers: [DestinationsController, CampaignDestinationsController],
  providers: [
    ReferenceChecker,
    ...resourceService(DestinationsDefinition),
    ...associationService(CampaignDestinationsDefinition),
  ],
})
export class DestinationModule implements OnModuleInit {
  constructor(private readonly cascade: CampaignCascade) {}

  onModuleInit(): void {
    this.cascade.register(CampaignDestination);
  }
}
