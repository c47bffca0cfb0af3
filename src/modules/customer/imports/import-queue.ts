import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import type { Job, JobContext, JobHandler, JobOutcome, QueueSettings } from '../../../common/jobs/job.js';
import { SERVICE_RETRIES } from '../../../common/jobs/retry-schedule.js';
import { IMPORT_QUEUE, ImportJobs } from './import-jobs.js';
import { ImportProcessor } from './import-processor.js';

/** CSV imports as a queue of the jobs table: one job per import, one at a time per instance, chunk by chunk (ImportProcessor). */
@Injectable()
export class ImportQueue implements JobHandler {
  readonly settings: QueueSettings;
  private readonly logger = new Logger('CustomerImports');

  constructor(
    private readonly imports: ImportJobs,
    private readonly processor: ImportProcessor,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = {
      name: IMPORT_QUEUE,
      enabled: config.imports.runner,
      concurrency: 1,
      leaseMs: config.imports.leaseMs,
      pollMs: config.imports.pollMs,
      retry: SERVICE_RETRIES,
      // An upload waits for the import before it: a few minutes is a busy hour, not a stuck queue.
      maxWaitSeconds: 600,
    };
  }

  async run(job: Job, context: JobContext): Promise<JobOutcome> {
    const row = await this.imports.read(job.subjectId!);
    if (!row || this.imports.isFinished(row.status)) return { status: 'done', note: 'ended already' };
    this.logger.log(`import ${row.id}: running from row ${row.processed_rows}`);
    const outcome = await this.processor.run(row, context);
    this.logger.log(`import ${row.id}: ${'note' in outcome && outcome.note ? outcome.note : outcome.status}`);
    return outcome;
  }
}
