import type { Job } from '../../../common/jobs/job.js';
import type { Sql } from '../../../common/persistence/sql.js';
import type { PreparedRecord, RecordOutcome } from './delivery-record.js';

/** The queue of deliveries to destinations (src/background-work.ts): one job per batch, one lane per destination. */
export const DESTINATION_QUEUE = 'destination-delivery';

/** A destination's lane: its concurrency and rate are counted by it, across instances. */
export const destinationLane = (destinationId: number): string => `destination:${destinationId}`;

/** The delivery sources of the application, listed once (DELIVERY_SOURCE_LIST of src/background-work.ts). */
export const DELIVERY_SOURCES = Symbol('DELIVERY_SOURCES');

/**
 * One job of a destination's lane: a batch of records for one destination (docs/destinations.md#lanes).
 * `source` names who prepared it and records what became of its records: `records` (this module's
 * InlineRecords: the prepared records travel in the payload; test bursts, small sends) or another
 * module's (a campaign run's: the payload names its recipient rows in `ref`, the source loads and
 * prepares them at each attempt and marks them delivered, rejected or failed as the batch settles).
 */
export interface DeliveryBatch {
  source: string;
  destination_id: number;
  campaign_destination_id: number | null;
  campaign_id: number | null;
  run_id: number | null;
  /** The webhook body's `id`, its `webhook-id`, a file's name: the same on every attempt of the batch. */
  batch_id: string;
  /** The mapping's targets in order (a CSV file's columns). */
  targets?: string[];
  /** Source `records`: the records themselves; a retry carries those still pending. */
  records?: PreparedRecord[];
  /** Any other source: what it needs to find its records (recipient row ids, a range); the queue never reads it. */
  ref?: unknown;
}

/** What became of one batch, as its source records it (in the settling transaction). */
export interface SettledBatch {
  job: Job<DeliveryBatch>;
  /**
   * `done`: delivered (each record delivered or rejected, in `outcomes`); `retry`: the records not
   * in `outcomes` go again at `nextRunAt`; `failed`: the retries are spent (or the destination is
   * gone), the records not in `outcomes` failed with `error`.
   */
  final: 'done' | 'retry' | 'failed';
  nextRunAt?: number;
  outcomes: RecordOutcome[];
  error?: string;
}

/**
 * Where a lane's batches come from (listed in DELIVERY_SOURCE_LIST of src/background-work.ts):
 * `load` answers the batch's records still to deliver, prepared (RecordPreparer), at each attempt;
 * `settle` records what became of them, in the transaction that ends or reschedules the job.
 */
export interface DeliverySource {
  readonly name: string;
  load(job: Job<DeliveryBatch>): Promise<PreparedRecord[]>;
  settle?(sql: Sql, batches: readonly SettledBatch[]): Promise<void>;
}
