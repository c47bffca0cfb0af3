import { Inject, Injectable } from '@nestjs/common';
import { recordActivity } from '../../../common/activity/activity-log.writer.js';
import { systemAuth, type AuthContext } from '../../../common/auth/auth-context.js';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { wholeSecondNow } from '../../../common/persistence/columns.js';
import { claimOldestJob, releaseJob, type LeasedTable } from '../../../common/lifecycle/job-leases.js';
import { Database, type Sql } from '../../../common/persistence/database.js';
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
] as const;
export type ErasureCounts = Partial<Record<(typeof ERASURE_COUNTS)[number], number>>;

/** The job's own writes: in its tenant, under the request's id, without a causer (the request's entry has one). */
export const erasureAuth = (job: CustomerErasure): AuthContext => systemAuth(job.tenant_id, job.batch_uuid);

/**
 * The erasure job rows, leased like import jobs (ImportJobs): a claim is an UPDATE committed at
 * once, so it holds on every node of a Galera cluster; every step of the job fences on the lease
 * in its own transaction. The queue's reads span tenants: this class is that path, by name.
 */
@Injectable()
export class ErasureJobs {
  constructor(
    private readonly db: Database,
    private readonly tables: Tables,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Claims the oldest job that is queued, or running on a lease that has run out. */
  async claimNext(owner: string): Promise<CustomerErasure | undefined> {
    const id = await claimOldestJob(this.db, this.leased(), owner);
    return id === undefined ? undefined : this.read(id);
  }

  private leased(): LeasedTable {
    return { table: 'customer_erasures', leaseMs: this.config.erasures.leaseMs };
  }

  async read(id: number): Promise<CustomerErasure | undefined> {
    const [row] = await this.tables.readAcrossTenants(CustomerErasure).findMany([id]);
    return row;
  }

  /**
   * In a step's transaction: adds its counts and renews the lease, if the job is still this
   * owner's; false otherwise (the step must then roll back).
   */
  async advance(sql: Sql, job: CustomerErasure, owner: string, counts: ErasureCounts): Promise<boolean> {
    const columns = ERASURE_COUNTS.filter((column) => counts[column]);
    const { affected } = await sql.run(
      `UPDATE customer_erasures SET ${columns.map((column) => `${column} = ${column} + ?, `).join('')}lease_expires_at = ?
        WHERE id = ? AND lease_owner = ? AND status = 'running'`,
      [...columns.map((column) => counts[column]!), Date.now() + this.config.erasures.leaseMs, job.id, owner],
    );
    for (const column of columns) job[column] += counts[column]!;
    return affected === 1;
  }

  /** Adds customers the job found late (they carried the erased values) to the ids it scrubs. */
  async addSubjects(sql: Sql, job: CustomerErasure, ids: readonly number[]): Promise<void> {
    const subjects = [...(JSON.parse(job.subject_ids) as number[]), ...ids];
    await sql.run(`UPDATE customer_erasures SET subject_ids = ? WHERE id = ?`, [JSON.stringify(subjects), job.id]);
    job.subject_ids = JSON.stringify(subjects);
  }

  /** Gives the job back (graceful stop): another instance resumes it at once. */
  release(job: CustomerErasure, owner: string): Promise<void> {
    return releaseJob(this.db, this.leased(), job.id, owner);
  }

  /** Ends the job with its one activity entry (its counts); false when it is no longer this owner's. */
  async complete(job: CustomerErasure, owner: string): Promise<boolean> {
    return this.db.transaction(async (sql) => {
      const now = wholeSecondNow();
      const { affected } = await sql.run(
        `UPDATE customer_erasures SET status = 'completed', completed_at = ?, updated_at = ?, lease_owner = NULL,
            lease_expires_at = NULL
          WHERE id = ? AND lease_owner = ? AND status = 'running'`,
        [now, now, job.id, owner],
      );
      if (affected === 0) return false;
      await recordActivity(sql, erasureAuth(job), {
        subjectType: 'CustomerErasure',
        subjectId: job.id,
        tenantId: job.tenant_id,
        event: 'updated',
        description: 'customer erasure completed',
        attributes: Object.fromEntries([['status', 'completed'], ...ERASURE_COUNTS.map((c) => [c, job[c]])]),
        old: { status: 'running' },
      });
      return true;
    });
  }
}
