import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import type { JobHandler, JobOutcome, QueueSettings } from '../../../common/jobs/job.js';
import { SERVICE_RETRIES } from '../../../common/jobs/retry-schedule.js';
import { DestinationFiles } from './destination-files.js';

export const FILE_RETENTION_QUEUE = 'destination-file-retention';

/** Hourly: the files of `file` destinations older than FILE_RETENTION_DAYS go, a run's folder at a time. */
@Injectable()
export class FileRetention implements JobHandler {
  readonly settings: QueueSettings;

  constructor(
    private readonly files: DestinationFiles,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.settings = {
      name: FILE_RETENTION_QUEUE,
      enabled: config.destinations.worker,
      concurrency: 1,
      leaseMs: 10 * 60_000,
      pollMs: 60_000,
      retry: SERVICE_RETRIES,
      maxWaitSeconds: 2 * 3600,
      everyMs: 3600_000,
    };
  }

  async run(): Promise<JobOutcome> {
    const before = Date.now() - this.config.destinations.fileRetentionDays * 24 * 3600_000;
    const removed = await this.files.sweep(before);
    return { status: 'done', note: `${removed} folders removed` };
  }
}
