import { Module } from '@nestjs/common';
import { CustomerModule } from '../customer/customer.module.js';
import { CampaignDestinationsController } from './campaign-destinations.controller.js';
import { CampaignDestinationsService } from './campaign-destinations.service.js';
import { Deliverability } from './delivery/deliverability.js';
import { DestinationDeliveries } from './delivery/destination-deliveries.js';
import { DestinationDeliveryQueue } from './delivery/destination-delivery-queue.js';
import { DestinationSenders } from './delivery/destination-senders.js';
import { DestinationTests } from './delivery/destination-tests.js';
import { InlineRecords } from './delivery/inline-records.js';
import { RecordPreparer } from './delivery/record-preparer.js';
import { AmqpSender } from './delivery/senders/amqp-sender.js';
import { EmailSender } from './delivery/senders/email-sender.js';
import { FileSender } from './delivery/senders/file-sender.js';
import { MailTransports } from './delivery/senders/mail-transports.js';
import { WebhookSender } from './delivery/senders/webhook-sender.js';
import { TargetAddresses } from './delivery/target-addresses.js';
import { DestinationsController } from './destinations.controller.js';
import { DestinationsService } from './destinations.service.js';
import { DestinationFiles } from './files/destination-files.js';
import { FileRetention } from './files/file-retention.js';
import { DestinationSecrets } from './secrets/destination-secrets.js';

/**
 * Destinations (delivery targets) and their configuration per campaign, and delivery to them
 * (docs/destinations.md): the senders of the four types, the attribute mapping, deliverability,
 * write-only secrets, a test send, and each destination's lane of the jobs primitive
 * (DestinationDeliveryQueue, listed in src/background-work.ts with the delivery sources).
 *
 * What campaign runs use: RecordPreparer (customers → records, and what is skipped and why),
 * Deliverability (problems; 422 on use), DestinationDeliveries (batches on a lane),
 * DestinationSenders (a batch through its type's sender), DestinationFiles (a run's files).
 */
@Module({
  imports: [CustomerModule],
  controllers: [DestinationsController, CampaignDestinationsController],
  providers: [
    DestinationsService,
    CampaignDestinationsService,
    DestinationSecrets,
    TargetAddresses,
    Deliverability,
    RecordPreparer,
    WebhookSender,
    MailTransports,
    EmailSender,
    AmqpSender,
    DestinationFiles,
    FileSender,
    DestinationSenders,
    DestinationTests,
    DestinationDeliveries,
    InlineRecords,
    DestinationDeliveryQueue,
    FileRetention,
  ],
  exports: [
    DestinationDeliveryQueue,
    FileRetention,
    InlineRecords,
    Deliverability,
    RecordPreparer,
    DestinationDeliveries,
    DestinationSenders,
    DestinationFiles,
  ],
})
export class DestinationModule {}
