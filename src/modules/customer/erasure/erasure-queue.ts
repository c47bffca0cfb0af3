import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import type { Job, JobContext, JobHandler, JobOutcome, QueueSettings } from '../../../common/jobs/job.js';
import { SERVICE_RETRIES } from '../../../common/jobs/retry-schedule.js';
import { ERASURE_QUEUE, ErasureJobs } from './erasure-jobs.js';
import { ErasureProcessor } from './erasure-processor.js';

/** Erasures as a queue of the jobs table: one job per request, one at a time per instance, in batches (ErasureProcessor). */
@Injectable()
export class ErasureQueue implements JobHandler {
  readonly settings: QueueSettings;

  constructor(
    private readonly erasures: ErasureJobs,
    private readonly processor: ErasureProcessor,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = {
      name: ERASURE_QUEUE,
      enabled: config.erasures.runner,
      concurrency: 1,
      leaseMs: config.erasures.leaseMs,
      pollMs: config.erasures.pollMs,
      retry: SERVICE_RETRIES,
      // A person's traces are gone within minutes of the request (docs/customer-lifecycle.md).
      maxWaitSeconds: 300,
      keepFailures: true,
    };
  }

  async run(job: Job, context: JobContext): Promise<JobOutcome> {
    const row = await this.erasures.read(job.subjectId!);
    if (!row || row.status === 'completed') return { status: 'done', note: 'ended already' };
    return this.processor.run(row, context);
  }
}
