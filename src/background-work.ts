import { Global, Module, type Type } from '@nestjs/common';
import { EventRetention } from './common/events/event-retention.js';
import type { JobHandler } from './common/jobs/job.js';
import { JOB_HANDLERS, JobRunner } from './common/jobs/job-runner.js';
import { CustomerModule } from './modules/customer/customer.module.js';
import { DELIVERY_SOURCES, type DeliverySource } from './modules/destination/delivery/delivery-batch.js';
import { DestinationDeliveryQueue } from './modules/destination/delivery/destination-delivery-queue.js';
import { InlineRecords } from './modules/destination/delivery/inline-records.js';
import { DestinationModule } from './modules/destination/destination.module.js';
import { FileRetention } from './modules/destination/files/file-retention.js';
import { ErasureQueue } from './modules/customer/erasure/erasure-queue.js';
import { ImportQueue } from './modules/customer/imports/import-queue.js';
import { DeliveryQueue } from './modules/webhooks/delivery/delivery-queue.js';
import { DeliveryRetention } from './modules/webhooks/delivery/delivery-retention.js';
import { WebhookFanout } from './modules/webhooks/delivery/webhook-fanout.js';
import { WebhooksModule } from './modules/webhooks/webhooks.module.js';
import { TrackingRetention } from './modules/tracking/tracking-retention.js';
import { TrackingModule } from './modules/tracking/tracking.module.js';
import { CampaignSchedules } from './modules/runs/campaign-schedules.js';
import { RunDestinations } from './modules/runs/run-destinations.js';
import { RunQueue } from './modules/runs/run-queue.js';
import { RunRetention } from './modules/runs/run-retention.js';
import { RunsModule } from './modules/runs/runs.module.js';

/**
 * Every queue of background work (docs/architecture.md#background-work). Each is a JobHandler with
 * its settings (concurrency, lease, retry schedule, the wait past which /api/health says degraded)
 * and its `run`; the jobs table holds their jobs and JobRunner, one per instance, runs them all.
 *
 * | Queue              | A job is                         | Lane          | Runs                                   |
 * | ------------------ | -------------------------------- | ------------- | -------------------------------------- |
 * | customer-import    | one CSV import, chunk by chunk   | -             | one at a time per instance             |
 * | customer-erasure   | one erasure, batch by batch      | -             | one at a time per instance             |
 * | webhook-fanout     | the feed's new events → deliveries | -           | recurring (1 s), due after numbering   |
 * | webhook-delivery   | one delivery of one event        | the endpoint  | 10 per endpoint across instances       |
 * | webhook-retention  | the log's deliveries past 30 days | -            | recurring (1 h)                        |
 * | event-retention    | the feed's events past retention | -             | recurring (1 h)                        |
 * | destination-delivery | one batch of records → one destination | the destination | its concurrency and rate, across instances |
 * | destination-file-retention | file destinations' files past FILE_RETENTION_DAYS | - | recurring (1 h)          |
 * | customer-event-retention | tracked events past CUSTOMER_EVENT_RETENTION_DAYS | - | recurring (1 h)          |
 * | campaign-run       | one campaign run, phase by phase | `plan:<tenant>` while planning | 2 per instance; one run of a tenant plans at a time |
 * | campaign-schedule  | one schedule, due at its next tick | -           | 4 per instance                         |
 * | campaign-run-retention | recipient rows past RUN_RETENTION_DAYS | -   | recurring (1 h)                        |
 */
export const QUEUE_LIST: Type<JobHandler>[] = [
  ImportQueue,
  ErasureQueue,
  WebhookFanout,
  DeliveryQueue,
  DeliveryRetention,
  EventRetention,
  DestinationDeliveryQueue,
  FileRetention,
  TrackingRetention,
  RunQueue,
  CampaignSchedules,
  RunRetention,
];

/**
 * Where the batches of destination-delivery come from, and who records what became of their
 * records (docs/destinations.md#lanes): `records` carries them in the job; `run` loads a campaign
 * run's recipient rows (docs/campaign-runs.md).
 */
export const DELIVERY_SOURCE_LIST: Type<DeliverySource>[] = [InlineRecords, RunDestinations];

/** The queues above and the runner of this instance. */
@Global()
@Module({
  imports: [CustomerModule, WebhooksModule, DestinationModule, TrackingModule, RunsModule],
  providers: [
    { provide: JOB_HANDLERS, useFactory: (...handlers: JobHandler[]) => handlers, inject: QUEUE_LIST },
    { provide: DELIVERY_SOURCES, useFactory: (...sources: DeliverySource[]) => sources, inject: DELIVERY_SOURCE_LIST },
    JobRunner,
  ],
  exports: [JobRunner, DELIVERY_SOURCES],
})
export class BackgroundWorkModule {}
