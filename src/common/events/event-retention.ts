import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { JobContext, JobHandler, JobOutcome, QueueSettings } from '../jobs/job.js';
import { SERVICE_RETRIES } from '../jobs/retry-schedule.js';
import { EventSequencer } from './event-sequencer.js';

/** The change feed's retention as a recurring job: every hour, the events past EVENT_RETENTION_DAYS go (EventSequencer.purge). */
@Injectable()
export class EventRetention implements JobHandler {
  readonly settings: QueueSettings;

  constructor(
    private readonly sequencer: EventSequencer,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = {
      name: 'event-retention',
      enabled: config.events.background,
      concurrency: 1,
      leaseMs: 60_000,
      pollMs: 1_000,
      retry: SERVICE_RETRIES,
      maxWaitSeconds: 2 * 3600,
      everyMs: 3600_000,
    };
  }

  async run(_job: unknown, context: JobContext): Promise<JobOutcome> {
    const removed = await this.sequencer.purge(Date.now(), context);
    return { status: 'done', note: `${removed} events removed` };
  }
}
