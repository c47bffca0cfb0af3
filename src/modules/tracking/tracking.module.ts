import { Module } from '@nestjs/common';
import { CustomerModule } from '../customer/customer.module.js';
import { CustomerEventsService } from './customer-events.service.js';
import { TimelineService } from './timeline/timeline.service.js';
import { ChangeTimeline, EventTimeline } from './timeline/timeline-sources.js';
import { TrackingController } from './tracking.controller.js';
import { TrackingRetention } from './tracking-retention.js';
import { TrackingService } from './tracking.service.js';

/**
 * Customer events (docs/customer-events.md): what customers do, tracked by `POST /api/track`, read
 * per customer and on a customer's timeline, and selected by the `performed` / `last_performed`
 * nodes of the audience rules (src/modules/audience/rules). Its lifecycle hooks (erasure, merge)
 * are CUSTOMER_EVENT_TRACES, declared in the composition root; its retention is the hourly
 * TrackingRetention queue (src/background-work.ts).
 */
@Module({
  imports: [CustomerModule],
  controllers: [TrackingController],
  providers: [
    TrackingService,
    CustomerEventsService,
    TimelineService,
    ChangeTimeline,
    EventTimeline,
    TrackingRetention,
  ],
  exports: [TrackingService, CustomerEventsService, TrackingRetention],
})
export class TrackingModule {}
