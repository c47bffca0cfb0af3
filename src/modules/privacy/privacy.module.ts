import { Module } from '@nestjs/common';
import { AudienceModule } from '../audience/audience.module.js';
import { TrackingModule } from '../tracking/tracking.module.js';
import { CustomerHandoverController } from './handover/customer-handover.controller.js';
import { CustomerHandoverService } from './handover/customer-handover.service.js';

/**
 * What the service does for a data subject's rights: a customer's data handed over
 * (`GET /api/customers/{id}/export`). Above every other module: it reads what each of them holds.
 */
@Module({
  imports: [AudienceModule, TrackingModule],
  controllers: [CustomerHandoverController],
  providers: [CustomerHandoverService],
})
export class PrivacyModule {}
