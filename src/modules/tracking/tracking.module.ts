import { Module } from '@nestjs/common';
import { CustomerModule } from '../customer/customer.module.js';
import { EventsModule } from '../events/events.module.js';
import { CustomerEventsService } from './customer-events.service.js';
import { TimelineService } from './timeline/timeline.service.js';
import { ChangeTimeline, EventTimeline } from './timeline/timeline-sources.js';
import { TrackingController } from './tracking.controller.js';
import { TrackingService } from './tracking.service.js';

/**
 * Customer events (docs/customer-events.md): what customers do, tracked by `POST /api/track`, read
 * per customer and on a customer's timeline, and selected by the `performed` / `last_performed`
 * nodes of the audience rules (src/modules/audience/rules). Its lifecycle hooks (erasure, merge)
 * are CUSTOMER_EVENT_TRACES, declared in the composition root; its retention is
 * TrackingService.purgeExpired.
 */
@Module({
  imports: [CustomerModule, EventsModule],
  controllers: [TrackingController],
  providers: [TrackingService, CustomerEventsService, TimelineService, ChangeTimeline, EventTimeline],
  exports: [TrackingService, CustomerEventsService],
})
export class TrackingModule {}
