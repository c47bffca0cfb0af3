import { Inject, Injectable } from '@nestjs/common';
import { recordActivity } from '../../../common/activity/activity-log.writer.js';
import type { AuthContext } from '../../../common/auth/auth-context.js';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { wholeSecondNow } from '../../../common/persistence/columns.js';
import { scrubSecret } from '../../../common/persistence/database-errors.js';
import { claimOldestJob, releaseJob, type LeasedTable } from '../../../common/lifecycle/job-leases.js';
import { Database, type Sql, type SqlValue } from '../../../common/persistence/database.js';
import { Tables } from '../../../common/persistence/tables.js';
import { CustomerImport, FINISHED_STATUSES, type ImportStatus } from '../entities/customer-import.entity.js';

export const QUEUE_NAME = 'customer-imports';
export const COUNT_COLUMNS = ['created', 'updated', 'unchanged', 'failed'] as const;
export type ImportCounts = Record<(typeof COUNT_COLUMNS)[number], number>;

/** The job's owner, tenant and batch, as its background writes need them (no request behind them). */
export function jobAuth(job: CustomerImport): AuthContext {
  return {
    user: {
      id: job.created_by ?? 0,
      tenant_id: job.tenant_id,
      name: '',
      email: '',
      roles: [],
      permissions: new Set(),
      tokenId: 0,
    },
    tenantId: job.tenant_id,
    tenantChosen: false,
    requestId: job.batch_uuid,
    job: true,
  };
}

/**
 * The job rows: what the API and the runners do to them. A job is leased, never locked: a claim
 * is an UPDATE of `lease_owner`/`lease_expires_at` (epoch ms) on a job that is unclaimed or whose
 * lease has run out, committed at once, so it holds on every node of a Galera cluster. The
 * queue's reads span tenants (a runner serves all of them): this class is that path, by name.
 */
@Injectable()
export class ImportJobs {
  constructor(
    private readonly db: Database,
    private readonly tables: Tables,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get leaseMs(): number {
    return this.config.imports.leaseMs;
  }

  /** A new queued job of the caller's tenant. Logged once, when it ends (docs/bulk-data.md: one entry per job). */
  async create(
    auth: AuthContext,
    job: { batch_uuid: string; file_name: string | null; file_path: string; file_bytes: number; total_rows: number },
  ): Promise<CustomerImport> {
    const now = wholeSecondNow();
    const queued = {
      tenant_id: auth.tenantId,
      ...job,
      status: 'queued' as const,
      processed_rows: 0,
      created: 0,
      updated: 0,
      unchanged: 0,
      failed: 0,
      created_by: auth.user.id,
      created_at: now,
      updated_at: now,
    };
    const { insertId } = await this.db.insertRows('customer_imports', Object.keys(queued), [Object.values(queued)]);
    // The job as inserted, not read back: a runner may claim it before the upload is answered.
    return {
      id: insertId,
      ...queued,
      error: null,
      lease_owner: null,
      lease_expires_at: null,
      started_at: null,
      finished_at: null,
    };
  }

  /** Claims the oldest job that is queued, or running on a lease that has run out. */
  async claimNext(owner: string): Promise<CustomerImport | undefined> {
    const id = await claimOldestJob(this.db, this.leased(), owner);
    return id === undefined ? undefined : this.read(id);
  }

  private leased(): LeasedTable {
    return {
      table: 'customer_imports',
      leaseMs: this.leaseMs,
      onClaim: { set: 'started_at = COALESCE(started_at, ?)', params: () => [wholeSecondNow()] },
    };
  }

  async read(id: number): Promise<CustomerImport | undefined> {
    const spec = this.tables.spec(CustomerImport);
    const [row] = await this.db.query<Record<string, unknown>>(
      `SELECT ${spec.selectList('customer_imports')} FROM customer_imports WHERE id = ?`,
      [id],
    );
    return row && spec.normalize(row);
  }

  /** Extends the lease; false when it is no longer ours (or the job was cancelled). */
  async renew(job: CustomerImport, owner: string, sql: Sql = this.db): Promise<boolean> {
    const { affected } = await sql.run(
      `UPDATE customer_imports SET lease_expires_at = ? WHERE id = ? AND lease_owner = ? AND status = 'running'`,
      [Date.now() + this.leaseMs, job.id, owner],
    );
    return affected === 1;
  }

  /** Gives the job back (graceful stop): another instance resumes it at once. */
  release(job: CustomerImport, owner: string): Promise<void> {
    return releaseJob(this.db, this.leased(), job.id, owner);
  }

  /** Makes the job's lanes 0 to `count` - 1 where they are missing (ImportProcessor: one per chunk in flight, and one more). */
  async openLanes(job: CustomerImport, count: number): Promise<void> {
    const rows = Array.from({ length: count }, () => '(?, ?)').join(', ');
    const params = Array.from({ length: count }, (_, lane) => [job.id, lane]).flat();
    await this.db.run(
      this.db.dialect === 'mysql'
        ? `INSERT INTO customer_import_lanes (import_id, lane) VALUES ${rows} ON DUPLICATE KEY UPDATE lane = lane`
        : `INSERT INTO customer_import_lanes (import_id, lane) VALUES ${rows} ON CONFLICT DO NOTHING`,
      params,
    );
  }

  /** Holds one of the job's lanes until the transaction ends; waits while another transaction holds it. */
  async holdLane(sql: Sql, job: CustomerImport, lane: number): Promise<void> {
    await sql.query(
      `SELECT lane FROM customer_import_lanes WHERE import_id = ? AND lane = ?${sql.dialect === 'mysql' ? ' FOR UPDATE' : ''}`,
      [job.id, lane],
    );
  }

  /**
   * Within a chunk's transaction, before its progress: the job is still ours, still running, and at
   * `position`, where the chunks before this one left it (fencing: a runner whose lease was taken
   * over, or a chunk after one that has not committed, writes nothing).
   */
  async fence(sql: Sql, job: CustomerImport, owner: string, position: number): Promise<boolean> {
    const { affected } = await sql.run(
      `UPDATE customer_imports SET lease_expires_at = ?
        WHERE id = ? AND lease_owner = ? AND status = 'running' AND processed_rows = ?`,
      [Date.now() + this.leaseMs, job.id, owner, position],
    );
    return affected === 1;
  }

  async advance(sql: Sql, job: CustomerImport, rows: number, counts: ImportCounts): Promise<void> {
    await sql.run(
      `UPDATE customer_imports
          SET processed_rows = processed_rows + ?, created = created + ?, updated = updated + ?,
              unchanged = unchanged + ?, failed = failed + ?, updated_at = ?
        WHERE id = ?`,
      [rows, counts.created, counts.updated, counts.unchanged, counts.failed, wholeSecondNow(), job.id],
    );
  }

  /**
   * Ends a job (completed, failed or cancelled) and writes its one activity-log entry, with its
   * counts, under the job's own batch_uuid. `from` lists the statuses it may end from; false when
   * it had ended already (or, with `owner`, is no longer this runner's).
   */
  async end(
    sql: Sql,
    job: CustomerImport,
    status: ImportStatus,
    options: { owner?: string; error?: string; from: ImportStatus[] },
  ): Promise<boolean> {
    const now = wholeSecondNow();
    const exact = status === 'completed' ? ', total_rows = processed_rows' : '';
    const params: SqlValue[] = [status, options.error ?? null, now, now, job.id, job.tenant_id, ...options.from];
    if (options.owner) params.push(options.owner);
    const { affected } = await sql.run(
      `UPDATE customer_imports
          SET status = ?, error = ?, finished_at = ?, updated_at = ?, lease_owner = NULL, lease_expires_at = NULL${exact}
        WHERE id = ? AND tenant_id = ? AND status IN (${options.from.map(() => '?').join(', ')})
          ${options.owner ? 'AND lease_owner = ?' : ''}`,
      params,
    );
    if (affected === 0) return false;
    const [ended] = await sql.query<Record<string, unknown>>(
      `SELECT ${this.tables.spec(CustomerImport).selectList('customer_imports')} FROM customer_imports WHERE id = ?`,
      [job.id],
    );
    const final = this.tables.spec(CustomerImport).normalize(ended);
    await recordActivity(sql, jobAuth(job), {
      subjectType: 'CustomerImport',
      subjectId: job.id,
      tenantId: job.tenant_id,
      event: 'updated',
      description: `customer import ${status}`,
      attributes: {
        status,
        file_name: final.file_name,
        total_rows: final.total_rows,
        processed_rows: final.processed_rows,
        created: final.created,
        updated: final.updated,
        unchanged: final.unchanged,
        failed: final.failed,
      },
      old: { status: job.status === 'queued' || job.status === 'running' ? job.status : 'running' },
    });
    return true;
  }

  /** A job that broke unexpectedly: `failed`, with a `failed_jobs` row holding the exception. */
  async fail(job: CustomerImport, owner: string, error: unknown): Promise<void> {
    const exception = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error);
    await this.db.transaction(async (sql) => {
      const ended = await this.end(sql, job, 'failed', {
        owner,
        from: ['running'],
        error: `The import stopped on an unexpected error (reference ${job.batch_uuid}).`,
      });
      if (!ended) return;
      await sql.run(
        `INSERT INTO failed_jobs (uuid, connection, queue, payload, exception, failed_at) VALUES (?, ?, ?, ?, ?, ?)`,
        [
          job.batch_uuid,
          this.db.dialect,
          QUEUE_NAME,
          JSON.stringify({
            job: 'CustomerImport',
            import_id: job.id,
            tenant_id: job.tenant_id,
            batch_uuid: job.batch_uuid,
            file_name: job.file_name,
            processed_rows: job.processed_rows,
          }),
          scrubSecret(exception, this.config.database.password),
          wholeSecondNow(),
        ],
      );
    });
  }

  isFinished(status: ImportStatus): boolean {
    return FINISHED_STATUSES.includes(status);
  }
}
