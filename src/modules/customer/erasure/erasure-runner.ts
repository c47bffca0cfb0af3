import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { LeasedJobRunner } from '../../../common/lifecycle/leased-job-runner.js';
import type { CustomerErasure } from '../entities/customer-erasure.entity.js';
import { ErasureJobs } from './erasure-jobs.js';
import { ErasureProcessor, type ErasureEnd } from './erasure-processor.js';

/** The erasure runner of this instance: one erasure job at a time, in batches (ErasureProcessor). */
@Injectable()
export class ErasureRunner extends LeasedJobRunner<CustomerErasure, ErasureEnd> {
  constructor(jobs: ErasureJobs, processor: ErasureProcessor, @Inject(APP_CONFIG) config: AppConfig) {
    super({ logger: 'CustomerErasures', job: 'erasure' }, jobs, processor, config.erasures);
  }
}
