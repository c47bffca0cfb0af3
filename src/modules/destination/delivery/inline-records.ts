import { Injectable } from '@nestjs/common';
import type { Job } from '../../../common/jobs/job.js';
import { Jobs } from '../../../common/jobs/jobs.js';
import type { Sql } from '../../../common/persistence/sql.js';
import type { DeliveryBatch, DeliverySource, SettledBatch } from './delivery-batch.js';
import type { PreparedRecord } from './delivery-record.js';

/**
 * The delivery source whose records travel in the job's payload (`source: "records"`): a retried
 * batch keeps only its records still pending, so that what was delivered is not sent again. Nothing
 * else is recorded: who enqueues such a batch reads its outcome from the destination's health.
 */
@Injectable()
export class InlineRecords implements DeliverySource {
  readonly name = 'records';

  constructor(private readonly jobs: Jobs) {}

  async load(job: Job<DeliveryBatch>): Promise<PreparedRecord[]> {
    return job.payload.records ?? [];
  }

  async settle(sql: Sql, batches: readonly SettledBatch[]): Promise<void> {
    for (const { job, final, outcomes } of batches) {
      if (final !== 'retry' || outcomes.length === 0) continue;
      const settled = new Set(outcomes.map((outcome) => outcome.message_id));
      const left = (job.payload.records ?? []).filter((record) => !settled.has(record.message_id));
      await this.jobs.setPayload(sql, job.id, { ...job.payload, records: left });
    }
  }
}
