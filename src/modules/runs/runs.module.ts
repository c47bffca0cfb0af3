import { Module } from '@nestjs/common';
import { AudienceModule } from '../audience/audience.module.js';
import { CustomerModule } from '../customer/customer.module.js';
import { DestinationModule } from '../destination/destination.module.js';
import { CampaignRunsController } from './campaign-runs.controller.js';
import { CampaignRunsService } from './campaign-runs.service.js';
import { CampaignSchedules } from './campaign-schedules.js';
import { MessagingLimitsService } from './messaging-limits.service.js';
import { RunDestinations } from './run-destinations.js';
import { RunQueue } from './run-queue.js';
import { RunFiles } from './run-files.js';
import { RunRetention } from './run-retention.js';
import { RunSnapshot } from './run-snapshot.js';

/**
 * Campaign runs (docs/campaign-runs.md): a launch, its members recorded once, each group delivered
 * to its destinations through their lanes (RunDestinations is a delivery source), pause, resume,
 * cancel and retry; schedules by date or cron; the tenant's frequency caps. The queues (RunQueue,
 * CampaignSchedules, RunRetention) are listed in src/background-work.ts.
 */
@Module({
  imports: [AudienceModule, CustomerModule, DestinationModule],
  controllers: [CampaignRunsController],
  providers: [
    CampaignRunsService,
    CampaignSchedules,
    MessagingLimitsService,
    RunSnapshot,
    RunDestinations,
    RunQueue,
    RunRetention,
    RunFiles,
  ],
  exports: [RunQueue, CampaignSchedules, RunRetention, RunDestinations],
})
export class RunsModule {}
