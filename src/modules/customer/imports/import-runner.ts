import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { LeasedJobRunner } from '../../../common/lifecycle/leased-job-runner.js';
import type { CustomerImport } from '../entities/customer-import.entity.js';
import { ImportJobs } from './import-jobs.js';
import { ImportProcessor, type RunEnd } from './import-processor.js';

/** The import runner of this instance: one CSV job at a time, chunk by chunk (ImportProcessor). */
@Injectable()
export class ImportRunner extends LeasedJobRunner<CustomerImport, RunEnd> {
  constructor(jobs: ImportJobs, processor: ImportProcessor, @Inject(APP_CONFIG) config: AppConfig) {
    super(
      { logger: 'CustomerImports', job: 'import', describe: (job) => `running from row ${job.processed_rows}` },
      jobs,
      processor,
      config.imports,
    );
  }
}
