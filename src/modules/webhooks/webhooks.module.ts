import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { AttemptRedaction } from './delivery/attempt-redaction.js';
import { DeliveryWorker } from './delivery/delivery-worker.js';
import { WebhookFanout } from './delivery/webhook-fanout.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';

/** Webhooks: the endpoints (a resource), the fan-out of the change feed to them, the delivery worker, and their log's part of an erasure. */
@Module({
  imports: [EventsModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, DeliveryWorker, WebhookFanout, AttemptRedaction],
})
export class WebhooksModule {}
