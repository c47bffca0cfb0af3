import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { AttemptRedaction } from './delivery/attempt-redaction.js';
import { DeliveryQueue } from './delivery/delivery-queue.js';
import { DeliveryReads } from './delivery/delivery-reads.js';
import { DeliveryRetention } from './delivery/delivery-retention.js';
import { WebhookFanout } from './delivery/webhook-fanout.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Webhooks: the endpoints (a resource); their queues (the fan-out of the change feed to them, the
 * deliveries, the log's retention: src/background-work.ts) and their log's part of an erasure
 * (src/side-effects.ts).
 */
@Module({
  imports: [EventsModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, DeliveryQueue, DeliveryReads, DeliveryRetention, WebhookFanout, AttemptRedaction],
  exports: [DeliveryQueue, DeliveryRetention, WebhookFanout, AttemptRedaction],
})
export class WebhooksModule {}
