import { Injectable } from '@nestjs/common';
import type { JobsBacklogSource, LaneBacklog } from '../../common/metrics/jobs-backlog.js';
import { Database } from '../../common/persistence/database.js';
import { toDate } from '../../common/http/serialize.js';
import { QUEUE_NAME as IMPORTS_QUEUE } from './imports/import-jobs.js';

/** The job tables read, each one queue with one lane (their runners have none). */
const QUEUES = [
  { queue: IMPORTS_QUEUE, table: 'customer_imports' },
  { queue: 'customer-erasures', table: 'customer_erasures' },
] as const;

/**
 * The backlog GET /metrics reports, read from the import and erasure job rows that are queued or
 * running, across tenants and without naming any: a stand-in until those jobs run on the jobs
 * primitive (src/common/jobs), whose source replaces this one. Every queue is reported, idle ones
 * with nothing pending.
 */
@Injectable()
export class JobTablesBacklog implements JobsBacklogSource {
  constructor(private readonly db: Database) {}

  async backlog(): Promise<LaneBacklog[]> {
    const now = Date.now();
    return Promise.all(
      QUEUES.map(async ({ queue, table }) => {
        const [row] = await this.db.query<{ pending: number | string; oldest: Date | string | null }>(
          `SELECT COUNT(*) AS pending, MIN(created_at) AS oldest FROM ${table} WHERE status IN ('queued', 'running')`,
        );
        const oldest = toDate(row?.oldest ?? null);
        return {
          queue,
          lane: 'default',
          pending: Number(row?.pending ?? 0),
          oldestPendingSeconds: oldest === null ? null : Math.max(0, (now - oldest.getTime()) / 1000),
        };
      }),
    );
  }
}
