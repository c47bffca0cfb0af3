import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Jobs } from '../../../common/jobs/jobs.js';
import type { Sql } from '../../../common/persistence/sql.js';
import type { DestinationConfig } from '../config/destination-config.js';
import { DESTINATION_QUEUE, destinationLane, type DeliveryBatch } from './delivery-batch.js';
import type { PreparedRecord } from './delivery-record.js';

/** What every batch of one send shares: where it goes and what it belongs to. */
export type BatchHeader = Omit<DeliveryBatch, 'source' | 'batch_id' | 'records' | 'ref'>;

/** Records a job of a destination's lane carries, by type: a webhook request, a few e-mails, a whole file. */
export function batchSizeOf(config: DestinationConfig): number {
  return config.batchSize;
}

/**
 * Queues batches on destinations' lanes, in the transaction of the write that asks for them (the
 * bookkeeping SQL of Tables.writeWithBookkeeping), so that a batch exists exactly when that write
 * committed; `nudge` after the commit makes the runner look now. A batch's job holds the key
 * `batch:<batch_id>`: queuing it twice queues it once.
 */
@Injectable()
export class DestinationDeliveries {
  constructor(private readonly jobs: Jobs) {}

  async enqueue(sql: Sql, tenantId: number, batches: readonly DeliveryBatch[]): Promise<void> {
    await this.jobs.enqueue(
      sql,
      batches.map((batch) => ({
        queue: DESTINATION_QUEUE,
        lane: destinationLane(batch.destination_id),
        tenantId,
        // A run's batches are its jobs: paused, resumed or cancelled with it (Jobs.holdSubject).
        subjectId: batch.run_id ?? undefined,
        payload: batch,
        uniqueKey: `batch:${batch.batch_id}`,
      })),
    );
  }

  /** Prepared records as batches of the `records` source, each of the destination's batch size. */
  recordBatches(header: BatchHeader, config: DestinationConfig, records: readonly PreparedRecord[]): DeliveryBatch[] {
    const size = batchSizeOf(config);
    const batches: DeliveryBatch[] = [];
    for (let start = 0; start < records.length; start += size) {
      batches.push({
        ...header,
        source: 'records',
        batch_id: `dlv_${randomBytes(12).toString('base64url')}`,
        records: records.slice(start, start + size),
      });
    }
    return batches;
  }

  nudge(): void {
    this.jobs.nudge(DESTINATION_QUEUE);
  }
}
