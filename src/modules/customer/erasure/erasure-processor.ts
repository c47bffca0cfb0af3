import { Inject, Injectable, Optional } from '@nestjs/common';
import { forgetActivity } from '../../../common/activity/activity-log.writer.js';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { EventRedaction } from '../../../common/events/event-redaction.js';
import { forgetKeptAnswers } from '../../../common/idempotency/idempotency.js';
import { LeaseLost, type JobContext, type JobOutcome } from '../../../common/jobs/job.js';
import type { Sql } from '../../../common/persistence/sql.js';
import { resolveSort, type PageRequest } from '../../../common/persistence/keyset.js';
import { Tables, type TenantTx } from '../../../common/persistence/tables.js';
import { CUSTOMER_TRACES, type CustomerTraces } from '../customer-traces.js';
import type { CustomerErasure } from '../entities/customer-erasure.entity.js';
import { Customer } from '../entities/customer.entity.js';
import { SuppressionList } from '../suppression/suppression-list.js';
import { ErasureJobs, erasureAuth, type ErasureCounts } from './erasure-jobs.js';

/** The customers whose traces a step scrubs. */
interface Subjects {
  tenantId: number;
  ids: readonly number[];
}

/** What each step of a scrub does to one batch: answers the position it reached (null: done) and its counts. */
type Step = (
  sql: Sql,
  subjects: Subjects,
  after: number,
  tx: TenantTx,
) => Promise<{ next: number | null; counts: ErasureCounts }>;

/**
 * Runs one claimed erasure: the request already deleted the customer and listed its values; the
 * job scrubs what the service keeps about it (and about the customers merged into it), each batch
 * of `batchRows` one short transaction fenced by the lease, so other writers never wait long:
 * activity-log entries, then change-feed events (and the webhook log's copies), then the answers
 * kept for Idempotency-Key replays. Every step is idempotent: a job resumed after a crash starts
 * its steps again and finds the done part done. Last, once `settleMs` has passed since the
 * request (until then the job waits in its queue, `again`), it erases customers written meanwhile
 * with a suppressed value (a chunk of an import that began before the suppression was committed),
 * and scrubs them the same way.
 */
@Injectable()
export class ErasureProcessor {
  private readonly steps: Step[];

  constructor(
    private readonly tables: Tables,
    private readonly jobs: ErasureJobs,
    private readonly redaction: EventRedaction,
    private readonly suppressions: SuppressionList,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(CUSTOMER_TRACES) traces: readonly CustomerTraces[] = [],
  ) {
    this.steps = [this.activityStep, this.eventStep, this.keptAnswerStep, ...traces.map((t) => this.tracesStep(t))];
  }

  async run(job: CustomerErasure, context: JobContext): Promise<JobOutcome> {
    try {
      let ids = JSON.parse(job.subject_ids) as number[];
      while (ids.length) {
        const subjects = { tenantId: job.tenant_id, ids };
        for (const step of this.steps) {
          for (let after: number | null = 0; after !== null;) {
            if (context.shouldStop()) return { status: 'released', note: 'stopped' };
            const from = after;
            after = await this.batch(job, context, (sql, tx) => step(sql, subjects, from, tx));
          }
        }
        // Done so far: the job comes back once a write that began before the request has surely ended.
        const settled = (job.created_at?.getTime() ?? 0) + this.config.erasures.settleMs;
        if (Date.now() < settled) return { status: 'again', at: settled, note: 'settling' };
        ids = await this.lateArrivals(job, context);
      }
      await this.tables.writeWithBookkeeping(erasureAuth(job), async (_tx, sql) => {
        await context.fence(sql);
        await this.jobs.complete(sql, job);
      });
      return { status: 'done', note: 'completed' };
    } catch (error) {
      if (error instanceof LeaseLost) return { status: 'released', note: 'taken-away' };
      throw error;
    }
  }

  /** One batch of a step and the job's counts, in one transaction fenced on the lease; answers where the step goes on. */
  private batch(
    job: CustomerErasure,
    context: JobContext,
    work: (sql: Sql, tx: TenantTx) => ReturnType<Step>,
  ): Promise<number | null> {
    return this.tables.writeWithBookkeeping(erasureAuth(job), async (tx, sql) => {
      await context.fence(sql);
      const { next, counts } = await work(sql, tx);
      await this.jobs.advance(sql, job, counts);
      return next;
    });
  }

  private readonly activityStep: Step = async (sql, { tenantId, ids }, after) => {
    const { lastId, forgotten } = await forgetActivity(
      sql,
      { tenantId, type: 'Customer', ids },
      after,
      this.config.erasures.batchRows,
    );
    return { next: lastId, counts: { activity_entries: forgotten } };
  };

  private readonly eventStep: Step = async (sql, { tenantId, ids }, after) => {
    const { lastId, redacted, copies } = await this.redaction.redact(
      sql,
      { tenantId, resource: 'customer', ids },
      after,
      this.config.erasures.batchRows,
    );
    return { next: lastId, counts: { events: redacted, webhook_attempts: copies } };
  };

  /** Kept answers live 24 hours: one statement per customer, each a short scan. */
  private readonly keptAnswerStep: Step = async (sql, { tenantId, ids }) => {
    let forgotten = 0;
    for (const id of ids) {
      // A customer's answer, wherever it is kept, begins so (toCustomerResponse's order).
      forgotten += await forgetKeptAnswers(sql, tenantId, `"data":{"id":${id},"tenant_id":${tenantId},"external_id":`);
    }
    return { next: null, counts: { kept_answers: forgotten } };
  };

  /** What another module keeps about the customers (their tracked events): deleted, a batch per transaction. */
  private tracesStep(traces: CustomerTraces): Step {
    return async (_sql, { ids }, _after, tx) => {
      const limit = this.config.erasures.batchRows;
      const deleted = await traces.erase(tx, ids, limit);
      return { next: deleted < limit ? null : 0, counts: { [traces.erasureCount]: deleted } };
    };
  }

  /**
   * Customers created since the request (a second before it: stored instants are whole seconds)
   * that carry a suppressed value: each is erased as the request erased its customer, and its id
   * joins the job's subjects. Answers the new ones.
   */
  private async lateArrivals(job: CustomerErasure, context: JobContext): Promise<number[]> {
    const auth = erasureAuth(job);
    const since = new Date((job.created_at?.getTime() ?? 0) - 1000);
    const found: number[] = [];
    // A keyset walk of the tenant's created_at list, from `since` on: only the customers created since are read.
    const request: PageRequest = {
      sort: resolveSort('created_at', { created_at: 'date' }),
      limit: this.config.erasures.batchRows,
      after: { sort: 'created_at', value: since.toISOString(), id: 0 },
      withTotal: false,
    };
    for (;;) {
      const reads = this.tables.read(auth);
      const { rows, meta } = await reads.table(Customer).page(request, [], false);
      if (rows.length === 0) break;
      const last = rows[rows.length - 1];
      request.after = { sort: 'created_at', value: last.created_at!.toISOString(), id: last.id };
      const refusals = await this.suppressions.refusals(reads, rows);
      const late = rows.filter((_, i) => refusals[i]).map((row) => Number(row.id));
      if (late.length) await this.eraseLate(job, context, late);
      found.push(...late);
      if (!meta.has_more) break;
    }
    return found;
  }

  /** Erases late arrivals as the request erased its customer, and makes them subjects of the job. */
  private async eraseLate(job: CustomerErasure, context: JobContext, ids: number[]): Promise<void> {
    await this.tables.writeWithBookkeeping(erasureAuth(job), async (tx, sql) => {
      await context.fence(sql);
      const table = tx.table(Customer);
      const locked = await table.findMany(ids, { lock: true });
      await table.removeMany(locked, { forget: true, tombstone: { reason: 'erased' } });
      await this.jobs.addSubjects(
        sql,
        job,
        locked.map((row) => row.id),
      );
      await this.jobs.advance(sql, job, { late_arrivals: locked.length });
    });
  }
}
