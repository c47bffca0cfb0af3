import { Global, Module } from '@nestjs/common';
import { CampaignAudience, SubAudience } from './modules/audience/entities/audience.entity.js';
import { CampaignDestination } from './modules/destination/entities/destination.entity.js';
import { CAMPAIGN_CONTENTS, type CampaignContents } from './modules/marketing/campaign-cascade.js';
import { CampaignKpi, CustomerGoal, TreatmentGroup } from './modules/marketing/entities/campaign-children.entity.js';
import { CampaignValidationRule } from './modules/marketing/entities/campaign-validation-rule.entity.js';

/**
 * What a deleted campaign takes with it, in this order: the links first (a destination link names a
 * treatment group), then the records that live inside the campaign. Declared here, where every
 * module is known, because the marketing module must not import the modules that build on it.
 */
const CONTENTS: CampaignContents = [
  CampaignDestination,
  CampaignValidationRule,
  CampaignAudience,
  SubAudience,
  TreatmentGroup,
  CampaignKpi,
  CustomerGoal,
];

@Global()
@Module({
  providers: [{ provide: CAMPAIGN_CONTENTS, useValue: CONTENTS }],
  exports: [CAMPAIGN_CONTENTS],
})
export class CampaignContentsModule {}
