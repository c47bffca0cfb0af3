import { Module } from '@nestjs/common';
import { ValidationModule } from '../validation/validation.module.js';
import { CampaignGroupsController } from './campaign-groups.controller.js';
import { CampaignGroupsService } from './campaign-groups.service.js';
import { CampaignKpisController } from './campaign-kpis.controller.js';
import { CampaignKpisService } from './campaign-kpis.service.js';
import { CampaignValidationRulesController } from './campaign-validation-rules.controller.js';
import { CampaignValidationRulesService } from './campaign-validation-rules.service.js';
import { CampaignsController } from './campaigns.controller.js';
import { CampaignsService } from './campaigns.service.js';
import { CustomerGoalsController } from './customer-goals.controller.js';
import { CustomerGoalsService } from './customer-goals.service.js';
import { MarketingProgramsController } from './marketing-programs.controller.js';
import { MarketingProgramsService } from './marketing-programs.service.js';
import { TreatmentGroupsController } from './treatment-groups.controller.js';
import { TreatmentGroupsService } from './treatment-groups.service.js';

/** Programs → campaign groups → campaigns, and what lives in a campaign: treatment groups, KPIs, goals, rule links. */
@Module({
  imports: [ValidationModule],
  controllers: [
    MarketingProgramsController,
    CampaignGroupsController,
    CampaignsController,
    TreatmentGroupsController,
    CampaignKpisController,
    CustomerGoalsController,
    CampaignValidationRulesController,
  ],
  providers: [
    MarketingProgramsService,
    CampaignGroupsService,
    CampaignsService,
    TreatmentGroupsService,
    CampaignKpisService,
    CustomerGoalsService,
    CampaignValidationRulesService,
  ],
  exports: [CampaignsService, TreatmentGroupsService],
})
export class MarketingModule {}
