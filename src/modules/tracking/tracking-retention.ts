import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import type { JobHandler, JobOutcome, QueueSettings } from '../../common/jobs/job.js';
import { SERVICE_RETRIES } from '../../common/jobs/retry-schedule.js';
import { TrackingService } from './tracking.service.js';

export const TRACKING_RETENTION_QUEUE = 'customer-event-retention';

/** Hourly: tracked events older than CUSTOMER_EVENT_RETENTION_DAYS go (TrackingService.purgeExpired), one instance at a time. */
@Injectable()
export class TrackingRetention implements JobHandler {
  readonly settings: QueueSettings;

  constructor(
    private readonly tracking: TrackingService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = {
      name: TRACKING_RETENTION_QUEUE,
      enabled: config.events.background,
      concurrency: 1,
      leaseMs: 10 * 60_000,
      pollMs: 60_000,
      retry: SERVICE_RETRIES,
      maxWaitSeconds: 2 * 3600,
      everyMs: 3600_000,
    };
  }

  async run(): Promise<JobOutcome> {
    const purged = await this.tracking.purgeExpired();
    return { status: 'done', note: `${purged} events removed` };
  }
}
