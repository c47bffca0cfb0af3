import { Module } from '@nestjs/common';
import { AudienceMembersService } from './audience-members.service.js';
import { AudiencesController } from './audiences.controller.js';
import { AudiencesService } from './audiences.service.js';
import { CampaignAudiencesController } from './campaign-audiences.controller.js';
import { CampaignAudiencesService } from './campaign-audiences.service.js';
import { CampaignDefinitions } from './campaign-definitions.js';
import { CustomerScans } from './customer-scan.js';
import { IdFloors } from './id-floors.js';
import { ScanSlots } from './scan-slots.js';
import { SubAudiencesController } from './sub-audiences.controller.js';
import { SubAudiencesService } from './sub-audiences.service.js';
import { TreatmentAssignmentsController } from './treatment-assignments.controller.js';
import { TreatmentAssignmentsService } from './treatment-assignments.service.js';

/**
 * Audiences with their rules, sub-audiences of campaigns, and audiences linked to campaigns; the
 * customers they select, and the campaigns' treatment assignment of those customers.
 */
@Module({
  controllers: [
    AudiencesController,
    SubAudiencesController,
    CampaignAudiencesController,
    TreatmentAssignmentsController,
  ],
  providers: [
    AudiencesService,
    SubAudiencesService,
    CampaignAudiencesService,
    AudienceMembersService,
    TreatmentAssignmentsService,
    CustomerScans,
    CampaignDefinitions,
    IdFloors,
    ScanSlots,
  ],
  exports: [AudiencesService, TreatmentAssignmentsService, CampaignDefinitions],
})
export class AudienceModule {}
