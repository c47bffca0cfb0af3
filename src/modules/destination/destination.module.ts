import { Module } from '@nestjs/common';
import { CampaignDestinationsController } from './campaign-destinations.controller.js';
import { CampaignDestinationsService } from './campaign-destinations.service.js';
import { DestinationsController } from './destinations.controller.js';
import { DestinationsService } from './destinations.service.js';

/** Destinations (delivery targets) and their configuration per campaign. */
@Module({
  controllers: [DestinationsController, CampaignDestinationsController],
  providers: [DestinationsService, CampaignDestinationsService],
})
export class DestinationModule {}
