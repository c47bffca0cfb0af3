import { Module, type OnModuleInit } from '@nestjs/common';
import { associationService, createAssociationController } from '../../common/resources/association.js';
import { NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { ReferenceChecker } from '../../common/resources/reference-checker.js';
import { createResourceController } from '../../common/resources/resource.controller.js';
import { resourceService } from '../../common/resources/resource.providers.js';
import { CampaignCascade } from '../marketing/campaign-cascade.js';
import { MarketingModule } from '../marketing/marketing.module.js';
import { AudiencesDefinition, CampaignAudiencesDefinition, SubAudiencesDefinition } from './audience.definitions.js';
import {
  AudienceDto,
  AudienceResponse,
  CampaignAudienceDto,
  CampaignAudienceResponse,
  CreateSubAudienceDto,
  SubAudienceResponse,
  UpdateSubAudienceDto,
} from './dto/audience.dto.js';
import { CampaignAudience, SubAudience } from './entities/audience.entity.js';

const audiences = { view: 'audiences.view', manage: 'audiences.manage' } as const;

export const AudiencesController = createResourceController({
  definition: AudiencesDefinition,
  tag: 'Audiences',
  names: ['audience', 'audiences'],
  permissions: audiences,
  routes: { collection: 'audiences', item: 'audiences/:id', itemParam: 'id' },
  response: AudienceResponse,
  createDto: AudienceDto,
  updateDto: AudienceDto,
  listQuery: NamedListQueryDto,
});

export const SubAudiencesController = createResourceController({
  definition: SubAudiencesDefinition,
  tag: 'Audiences',
  names: ['sub-audience', 'sub-audiences'],
  permissions: audiences,
  routes: {
    collection: 'campaigns/:campaign_id/sub-audiences',
    parentParam: 'campaign_id',
    item: 'sub-audiences/:id',
    itemParam: 'id',
  },
  response: SubAudienceResponse,
  createDto: CreateSubAudienceDto,
  updateDto: UpdateSubAudienceDto,
  listQuery: NamedListQueryDto,
});

export const CampaignAudiencesController = createAssociationController({
  definition: CampaignAudiencesDefinition,
  tag: 'Audiences',
  names: ['audience', 'audiences'],
  permissions: audiences,
  collection: 'campaigns/:campaign_id/audiences',
  ownerParam: 'campaign_id',
  remove: { path: 'campaigns/:campaign_id/audiences/:audience_id', param: 'audience_id', by: 'target' },
  response: CampaignAudienceResponse,
  createDto: CampaignAudienceDto,
});

@Module({
  imports: [MarketingModule],
  controllers: [AudiencesController, SubAudiencesController, CampaignAudiencesController],
  providers: [
    ReferenceChecker,
    ...resourceService(AudiencesDefinition),
    ...resourceService(SubAudiencesDefinition),
    ...associationService(CampaignAudiencesDefinition),
  ],
})
export class AudienceModule implements OnModuleInit {
  constructor(private readonly cascade: CampaignCascade) {}

  /** A deleted campaign takes its sub-audiences and audience links with it. */
  onModuleInit(): void {
    this.cascade.register(SubAudience);
    this.cascade.register(CampaignAudience);
  }
}
