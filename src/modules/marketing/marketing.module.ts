import { Module } from '@nestjs/common';
import { ReferenceChecker } from '../../common/resources/reference-checker.js';
import { resourceService } from '../../common/resources/resource.providers.js';
import { CampaignCascade } from './campaign-cascade.js';
import {
  CampaignGroupsController,
  CampaignKpisController,
  CampaignsController,
  CustomerGoalsController,
  MarketingProgramsController,
  TreatmentGroupsController,
} from './marketing.controllers.js';
import {
  CampaignGroupsDefinition,
  CampaignKpisDefinition,
  CampaignsDefinition,
  CustomerGoalsDefinition,
  MarketingProgramsDefinition,
  TreatmentGroupsDefinition,
} from './marketing.definitions.js';

@Module({
  controllers: [
    MarketingProgramsController,
    CampaignGroupsController,
    CampaignsController,
    TreatmentGroupsController,
    CampaignKpisController,
    CustomerGoalsController,
  ],
  providers: [
    CampaignCascade,
    ReferenceChecker,
    ...resourceService(MarketingProgramsDefinition),
    ...resourceService(CampaignGroupsDefinition),
    ...resourceService(CampaignsDefinition),
    ...resourceService(TreatmentGroupsDefinition),
    ...resourceService(CampaignKpisDefinition),
    ...resourceService(CustomerGoalsDefinition),
  ],
  exports: [CampaignCascade, ReferenceChecker],
})
export class MarketingModule {}
