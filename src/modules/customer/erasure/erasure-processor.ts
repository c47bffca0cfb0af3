import { Inject, Injectable, Optional } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { forgetActivity } from '../../../common/activity/activity-log.writer.js';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { EventRedaction } from '../../../common/events/event-redaction.js';
import { forgetKeptAnswers } from '../../../common/idempotency/idempotency.js';
import type { Sql } from '../../../common/persistence/database.js';
import { resolveSort, type PageRequest } from '../../../common/persistence/keyset.js';
import { Tables, type TenantTx } from '../../../common/persistence/tables.js';
import { CUSTOMER_TRACES, type CustomerTraces } from '../customer-traces.js';
import type { CustomerErasure } from '../entities/customer-erasure.entity.js';
import { Customer } from '../entities/customer.entity.js';
import { SuppressionList } from '../suppression/suppression-list.js';
import { ErasureJobs, erasureAuth, type ErasureCounts } from './erasure-jobs.js';

/** The job may not go on here: its lease went to another instance. */
class JobTakenAway extends Error {}

export type ErasureEnd = 'completed' | 'stopped' | 'taken-away';

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
 * request, it erases customers written meanwhile with a suppressed value (a chunk of an import
 * that began before the suppression was committed), and scrubs them the same way.
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

  async run(job: CustomerErasure, owner: string, shouldStop: () => boolean): Promise<ErasureEnd> {
    try {
      let ids = JSON.parse(job.subject_ids) as number[];
      while (ids.length) {
        const subjects = { tenantId: job.tenant_id, ids };
        for (const step of this.steps) {
          for (let after: number | null = 0; after !== null;) {
            if (shouldStop()) return await this.stop(job, owner);
            const from = after;
            after = await this.batch(job, owner, (sql, tx) => step(sql, subjects, from, tx));
          }
        }
        await this.settle(job, shouldStop);
        if (shouldStop()) return await this.stop(job, owner);
        ids = await this.lateArrivals(job, owner);
      }
      return (await this.jobs.complete(job, owner)) ? 'completed' : 'taken-away';
    } catch (error) {
      if (error instanceof JobTakenAway) return 'taken-away';
      throw error;
    }
  }

  private async stop(job: CustomerErasure, owner: string): Promise<ErasureEnd> {
    await this.jobs.release(job, owner);
    return 'stopped';
  }

  /** One batch of a step and the job's counts, in one transaction; answers where the step goes on. */
  private batch(
    job: CustomerErasure,
    owner: string,
    work: (sql: Sql, tx: TenantTx) => ReturnType<Step>,
  ): Promise<number | null> {
    return this.tables.writeWithBookkeeping(erasureAuth(job), async (tx, sql) => {
      const { next, counts } = await work(sql, tx);
      if (!(await this.jobs.advance(sql, job, owner, counts))) throw new JobTakenAway();
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

  /** Waits until `settleMs` after the request: a write that began before it had committed has ended by then. */
  private async settle(job: CustomerErasure, shouldStop: () => boolean): Promise<void> {
    const until = (job.created_at?.getTime() ?? 0) + this.config.erasures.settleMs;
    while (Date.now() < until && !shouldStop()) await sleep(Math.min(250, until - Date.now()));
  }

  /**
   * Customers created since the request (a second before it: stored instants are whole seconds)
   * that carry a suppressed value: each is erased as the request erased its customer, and its id
   * joins the job's subjects. Answers the new ones.
   */
  private async lateArrivals(job: CustomerErasure, owner: string): Promise<number[]> {
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
      if (late.length) await this.eraseLate(job, owner, late);
      found.push(...late);
      if (!meta.has_more) break;
    }
    return found;
  }

  /** Erases late arrivals as the request erased its customer, and makes them subjects of the job. */
  private async eraseLate(job: CustomerErasure, owner: string, ids: number[]): Promise<void> {
    await this.tables.writeWithBookkeeping(erasureAuth(job), async (tx, sql) => {
      const table = tx.table(Customer);
      const locked = await table.findMany(ids, { lock: true });
      await table.removeMany(locked, { forget: true, tombstone: { reason: 'erased' } });
      await this.jobs.addSubjects(
        sql,
        job,
        locked.map((row) => row.id),
      );
      if (!(await this.jobs.advance(sql, job, owner, { late_arrivals: locked.length }))) throw new JobTakenAway();
    });
  }
}
