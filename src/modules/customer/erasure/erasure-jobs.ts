import { Injectable } from '@nestjs/common';
import { recordActivity } from '../../../common/activity/activity-log.writer.js';
import { systemAuth, type AuthContext } from '../../../common/auth/auth-context.js';
import { wholeSecondNow } from '../../../common/persistence/columns.js';
import { Jobs } from '../../../common/jobs/jobs.js';
import type { Sql } from '../../../common/persistence/sql.js';
import { Tables } from '../../../common/persistence/tables.js';
import { CustomerErasure } from '../entities/customer-erasure.entity.js';

/** The counters of a job's progress. */
export const ERASURE_COUNTS = [
  'activity_entries',
  'events',
  'webhook_attempts',
  'kept_answers',
  'late_arrivals',
  'customer_events_deleted',
  'campaign_rows_deleted',
] as const;
export type ErasureCounts = Partial<Record<(typeof ERASURE_COUNTS)[number], number>>;

/** The job's own writes: in its tenant, under the request's id, without a causer (the request's entry has one). */
export const erasureAuth = (job: CustomerErasure): AuthContext => systemAuth(job.tenant_id, job.batch_uuid);

/** The queue of erasure jobs (src/background-work.ts). */
export const ERASURE_QUEUE = 'customer-erasure';

/**
 * The erasure rows: what the API and the erasure queue do to them. The work is a job of the jobs
 * table (ERASURE_QUEUE), queued in the request's transaction and claimed under a lease by any
 * instance (src/common/jobs); every step of it fences on that lease in its own transaction. The
 * queue's reads span tenants: this class is that path, by name.
 */
@Injectable()
export class ErasureJobs {
  constructor(
    private readonly tables: Tables,
    private readonly jobs: Jobs,
  ) {}

  /** Queues the erasure's job in the request's transaction. */
  async enqueue(sql: Sql, job: CustomerErasure): Promise<void> {
    await this.jobs.enqueue(sql, [{ queue: ERASURE_QUEUE, tenantId: job.tenant_id, subjectId: job.id }]);
  }

  /** The request has committed: run the job soon. */
  nudge(): void {
    this.jobs.nudge(ERASURE_QUEUE);
  }

  async read(id: number): Promise<CustomerErasure | undefined> {
    const [row] = await this.tables.readAcrossTenants(CustomerErasure).findMany([id]);
    return row;
  }

  /** In a step's transaction, after its fence: the row says the job runs, and adds the step's counts. */
  async advance(sql: Sql, job: CustomerErasure, counts: ErasureCounts): Promise<void> {
    const columns = ERASURE_COUNTS.filter((column) => counts[column]);
    await sql.run(
      `UPDATE customer_erasures SET ${columns.map((column) => `${column} = ${column} + ?, `).join('')}status = 'running'
        WHERE id = ?`,
      [...columns.map((column) => counts[column]!), job.id],
    );
    for (const column of columns) job[column] += counts[column]!;
  }

  /** Adds customers the job found late (they carried the erased values) to the ids it scrubs. */
  async addSubjects(sql: Sql, job: CustomerErasure, ids: readonly number[]): Promise<void> {
    const subjects = [...(JSON.parse(job.subject_ids) as number[]), ...ids];
    await sql.run(`UPDATE customer_erasures SET subject_ids = ? WHERE id = ?`, [JSON.stringify(subjects), job.id]);
    job.subject_ids = JSON.stringify(subjects);
  }

  /** In the job's last step, after its fence: completed, with its one activity entry (its counts). */
  async complete(sql: Sql, job: CustomerErasure): Promise<void> {
    const now = wholeSecondNow();
    await sql.run(`UPDATE customer_erasures SET status = 'completed', completed_at = ?, updated_at = ? WHERE id = ?`, [
      now,
      now,
      job.id,
    ]);
    await recordActivity(sql, erasureAuth(job), {
      subjectType: 'CustomerErasure',
      subjectId: job.id,
      tenantId: job.tenant_id,
      event: 'updated',
      description: 'customer erasure completed',
      attributes: Object.fromEntries([['status', 'completed'], ...ERASURE_COUNTS.map((c) => [c, job[c]])]),
      old: { status: 'running' },
    });
  }
}
