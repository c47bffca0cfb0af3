import { Inject, Injectable } from '@nestjs/common';
import { recordActivity } from '../../../common/activity/activity-log.writer.js';
import type { AuthContext } from '../../../common/auth/auth-context.js';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { wholeSecondNow } from '../../../common/persistence/columns.js';
import { scrubSecret } from '../../../common/persistence/database-errors.js';
import { Jobs } from '../../../common/jobs/jobs.js';
import type { Sql } from '../../../common/persistence/sql.js';
import { Tables } from '../../../common/persistence/tables.js';
import { CustomerImport, FINISHED_STATUSES, type ImportStatus } from '../entities/customer-import.entity.js';

/** The queue a failed import's `failed_jobs` row names. */
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

/** The queue of import jobs (src/background-work.ts). */
export const IMPORT_QUEUE = 'customer-import';

/**
 * The import rows: what the API and the import queue do to them. The work itself is a job of the
 * jobs table (IMPORT_QUEUE), queued with the row in one transaction and claimed under a lease by
 * any instance (src/common/jobs); every chunk fences on that lease and moves the row's progress on
 * only from where the chunk before left it. The queue's reads span tenants (a runner serves all
 * of them): this class is that path, by name.
 */
@Injectable()
export class ImportJobs {
  constructor(
    private readonly tables: Tables,
    private readonly jobs: Jobs,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A new queued import of the caller's tenant, with its job. Logged once, when it ends (docs/bulk-data.md: one entry per job). */
  async create(
    auth: AuthContext,
    job: { batch_uuid: string; file_name: string | null; file_path: string; file_bytes: number; total_rows: number },
  ): Promise<CustomerImport> {
    const created = await this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      const [row] = await tx.table(CustomerImport).insertMany(
        [
          {
            ...job,
            status: 'queued',
            processed_rows: 0,
            created: 0,
            updated: 0,
            unchanged: 0,
            failed: 0,
            created_by: auth.user.id,
          },
        ],
        { log: false },
      );
      await this.jobs.enqueue(bookkeeping, [{ queue: IMPORT_QUEUE, tenantId: auth.tenantId, subjectId: row.id }]);
      return row;
    });
    this.jobs.nudge(IMPORT_QUEUE);
    // The row as inserted, not read back: a runner may take the job before the upload is answered.
    return created;
  }

  async read(id: number): Promise<CustomerImport | undefined> {
    const [row] = await this.tables.readAcrossTenants(CustomerImport).findMany([id]);
    return row;
  }

  /** In the job's first step: the row says the import runs (also when it is resumed). */
  async start(sql: Sql, job: CustomerImport): Promise<void> {
    const now = wholeSecondNow();
    await sql.run(
      `UPDATE customer_imports SET status = 'running', started_at = COALESCE(started_at, ?), updated_at = ?
        WHERE id = ? AND status IN ('queued', 'running')`,
      [now, now, job.id],
    );
    if (job.status === 'queued') job.status = 'running';
  }

  /** Cancels the import's job (in the cancel's transaction): a run in flight finds its lease gone at its next chunk. */
  cancel(sql: Sql, job: CustomerImport): Promise<number> {
    return this.jobs.cancel(sql, IMPORT_QUEUE, [job.id]);
  }

  /** Makes the job's lanes 0 to `count` - 1 where they are missing (ImportProcessor: one per chunk in flight, and one more). */
  async openLanes(sql: Sql, job: CustomerImport, count: number): Promise<void> {
    const rows = Array.from({ length: count }, () => '(?, ?)').join(', ');
    const params = Array.from({ length: count }, (_, lane) => [job.id, lane]).flat();
    await sql.run(
      sql.dialect === 'mysql'
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
   * In a chunk's transaction, after its fence: moves the progress on from `position`, where the
   * chunks before this one left it. False when they have not (the chunk before has not committed),
   * or when the import was cancelled meanwhile: the chunk must then roll back.
   */
  async advance(sql: Sql, job: CustomerImport, position: number, rows: number, counts: ImportCounts): Promise<boolean> {
    const { affected } = await sql.run(
      `UPDATE customer_imports
          SET processed_rows = processed_rows + ?, created = created + ?, updated = updated + ?,
              unchanged = unchanged + ?, failed = failed + ?, updated_at = ?
        WHERE id = ? AND status = 'running' AND processed_rows = ?`,
      [rows, counts.created, counts.updated, counts.unchanged, counts.failed, wholeSecondNow(), job.id, position],
    );
    return affected === 1;
  }

  /**
   * Ends a job (completed, failed or cancelled) and writes its one activity-log entry, with its
   * counts, under the job's own batch_uuid. `from` lists the statuses it may end from; false when
   * it had ended already. The queue's steps fence on their lease first.
   */
  async end(
    sql: Sql,
    job: CustomerImport,
    status: ImportStatus,
    options: { error?: string; from: ImportStatus[] },
  ): Promise<boolean> {
    const now = wholeSecondNow();
    const exact = status === 'completed' ? ', total_rows = processed_rows' : '';
    const { affected } = await sql.run(
      `UPDATE customer_imports SET status = ?, error = ?, finished_at = ?, updated_at = ?${exact}
        WHERE id = ? AND status IN (${options.from.map(() => '?').join(', ')})`,
      [status, options.error ?? null, now, now, job.id, ...options.from],
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

  /** A job that broke unexpectedly (in a step fenced on its lease): `failed`, with a `failed_jobs` row holding the exception. */
  async fail(sql: Sql, job: CustomerImport, error: unknown): Promise<void> {
    const exception = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error);
    {
      const ended = await this.end(sql, job, 'failed', {
        from: ['running'],
        error: `The import stopped on an unexpected error (reference ${job.batch_uuid}).`,
      });
      if (!ended) return;
      await sql.run(
        `INSERT INTO failed_jobs (uuid, connection, queue, payload, exception, failed_at) VALUES (?, ?, ?, ?, ?, ?)`,
        [
          job.batch_uuid,
          sql.dialect,
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
    }
  }

  isFinished(status: ImportStatus): boolean {
    return FINISHED_STATUSES.includes(status);
  }
}
