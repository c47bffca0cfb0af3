import { Inject, Injectable } from '@nestjs/common';
import { systemAuth } from '../../../common/auth/auth-context.js';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import type {
  Job,
  JobContext,
  JobHandler,
  JobOutcome,
  LaneLimits,
  QueueSettings,
  Settled,
} from '../../../common/jobs/job.js';
import { HELD } from '../../../common/jobs/jobs.js';
import { wholeSecondNow } from '../../../common/persistence/columns.js';
import type { Sql } from '../../../common/persistence/sql.js';
import { Tables } from '../../../common/persistence/tables.js';
import type { DestinationConfig } from '../config/destination-config.js';
import { Destination } from '../entities/destination.entity.js';
import {
  DELIVERY_SOURCES,
  DESTINATION_QUEUE,
  type DeliveryBatch,
  type DeliverySource,
  type SettledBatch,
} from './delivery-batch.js';
import type { BatchContext, RecordOutcome } from './delivery-record.js';
import { Deliverability } from './deliverability.js';
import { DestinationSenders } from './destination-senders.js';
import { clip } from './senders/sender.js';

/** What one run of a batch came to, for its source and the destination's health. */
interface Attempt {
  destinationId: number;
  outcomes: RecordOutcome[];
  /** Undefined: no attempt reached for the destination (nothing was left to send). */
  health?: { ok: boolean; error?: string };
}

/** A lane's limits are read again after this long. */
const LIMITS_FRESH_MS = 2_000;

/** The limits of a destination's lane, from its settings (one job is a batch). */
export function laneLimitsOf(config: DestinationConfig | undefined): LaneLimits {
  switch (config?.type) {
    case 'webhook':
      return { concurrency: config.concurrency, ratePerSecond: config.ratePerSecond };
    case 'email':
      // rate_per_second counts messages; a job sends up to batch_size of them.
      return { concurrency: config.concurrency, ratePerSecond: config.ratePerSecond / config.batchSize };
    case 'amqp':
      return {
        concurrency: config.concurrency,
        ratePerSecond: config.ratePerSecond ? config.ratePerSecond / config.batchSize : undefined,
      };
    default:
      return { concurrency: 1 };
  }
}

/**
 * Delivery to destinations as a queue of the jobs table (docs/destinations.md#lanes): each batch is a
 * job of its destination's lane (`destination:<id>`), whose concurrency and rate come from the
 * destination's settings and hold across instances, so a destination that hangs or fails holds its
 * own places only and never delays another. A run loads the batch's records from its source, sends
 * them through the type's sender, and answers: delivered (each record delivered or rejected), or
 * retried on the destination schedule for the records still pending (a 429's or 503's Retry-After
 * honoured), until the schedule is spent (failed). A switched-off destination holds its lane. The
 * settling transaction records each batch through its source and the destination's health
 * (`last_success_at`, `last_failure_at`, `last_error`, `consecutive_failures`: bookkeeping, not a
 * change of the destination).
 */
@Injectable()
export class DestinationDeliveryQueue implements JobHandler<DeliveryBatch> {
  readonly settings: QueueSettings;
  private readonly sources: ReadonlyMap<string, DeliverySource>;
  private readonly limits = new Map<string, { at: number; limits: LaneLimits }>();

  constructor(
    private readonly tables: Tables,
    private readonly deliverability: Deliverability,
    private readonly senders: DestinationSenders,
    @Inject(DELIVERY_SOURCES) sources: readonly DeliverySource[],
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.sources = new Map(sources.map((source) => [source.name, source]));
    const { worker, leaseMs, pollMs, retrySchedule } = config.destinations;
    this.settings = {
      name: DESTINATION_QUEUE,
      enabled: worker,
      // Sends wait on the network: many at once, each destination bounded by its lane.
      concurrency: 200,
      leaseMs,
      pollMs,
      retry: { name: 'destination', delays: retrySchedule },
      maxWaitSeconds: 300,
    };
  }

  async laneLimits(lanes: readonly string[]): Promise<Map<string, LaneLimits>> {
    const now = Date.now();
    const answer = new Map<string, LaneLimits>();
    const stale: number[] = [];
    for (const lane of lanes) {
      const known = this.limits.get(lane);
      if (known && now - known.at < LIMITS_FRESH_MS) answer.set(lane, known.limits);
      else stale.push(Number(lane.slice(lane.indexOf(':') + 1)));
    }
    if (stale.length) {
      // Lanes are counted across tenants: the separately named path of a read above tenancy.
      const rows = await this.tables.readAcrossTenants(Destination).findMany(stale);
      for (const id of stale) {
        const row = rows.find((r) => r.id === id);
        const limits = laneLimitsOf(row && this.deliverability.read(row).config);
        const lane = `destination:${id}`;
        this.limits.set(lane, { at: now, limits });
        answer.set(lane, limits);
      }
      if (this.limits.size > 10_000) this.limits.clear();
    }
    return answer;
  }

  async run(job: Job<DeliveryBatch>, context: JobContext): Promise<JobOutcome> {
    const batch = job.payload;
    const source = this.sources.get(batch.source);
    if (!source) return { status: 'failed', error: `no delivery source named "${batch.source}"` };
    const auth = systemAuth(job.tenantId!, `destination-delivery:${job.id}`);
    const destination = await this.tables.read(auth).table(Destination).findById(batch.destination_id);
    const attempt = (outcomes: RecordOutcome[], health?: Attempt['health']): Attempt => ({
      destinationId: batch.destination_id,
      outcomes,
      health,
    });
    if (!destination) return { status: 'failed', error: 'the destination was deleted', record: attempt([]) };
    // Switched off: its lane is held (DestinationsService); a batch claimed just before waits with it.
    if (!destination.is_active) return { status: 'again', at: HELD };
    const assessment = await this.deliverability.assess(destination);
    if (!assessment.config) {
      const error = clip(`not deliverable: ${assessment.problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
      return { status: 'retry', failure: { error }, record: attempt([], { ok: false, error }) };
    }
    const records = await source.load(job);
    if (records.length === 0) return { status: 'done', note: 'nothing left', record: attempt([]) };
    const result = await this.senders.send(
      destination,
      assessment.config,
      assessment.secrets,
      records,
      contextOf(job),
      () => context.shouldStop(),
    );
    const refused = result.outcomes.find((outcome) => outcome.status === 'rejected')?.reason;
    const error = result.transient?.error ?? (result.reached ? undefined : (refused ?? result.answer));
    const record = attempt(result.outcomes, { ok: result.reached && !result.transient, error });
    if (result.transient) return { status: 'retry', failure: { ...result.transient }, record };
    return { status: 'done', note: 'delivered', record };
  }

  /** Each batch through its source, then the health of the destinations attempted (the runner's transaction). */
  async settle(sql: Sql, settled: readonly Settled<DeliveryBatch>[]): Promise<void> {
    const bySource = new Map<string, SettledBatch[]>();
    for (const { job, outcome, final, nextRunAt } of settled) {
      if (final === 'again' || final === 'released') continue;
      const attempt = (outcome as { record?: Attempt }).record;
      const error =
        outcome.status === 'retry' ? outcome.failure.error : outcome.status === 'failed' ? outcome.error : undefined;
      const batches = bySource.get(job.payload.source) ?? [];
      batches.push({ job, final, nextRunAt, outcomes: attempt?.outcomes ?? [], error });
      bySource.set(job.payload.source, batches);
    }
    for (const [name, batches] of bySource) await this.sources.get(name)?.settle?.(sql, batches);
    await settleHealth(sql, settled);
  }
}

/** The batch as its sender sees it. */
export function contextOf(job: Job<DeliveryBatch>): BatchContext {
  const batch = job.payload;
  return {
    tenantId: job.tenantId!,
    destinationId: batch.destination_id,
    campaignDestinationId: batch.campaign_destination_id,
    campaignId: batch.campaign_id,
    runId: batch.run_id,
    batchId: batch.batch_id,
    targets: batch.targets,
  };
}

/**
 * Each destination's health after its attempts, in order: a success resets the failures; a
 * failure counts one more and says why. Bookkeeping: neither `updated_at` nor the log nor the feed.
 */
async function settleHealth(sql: Sql, settled: readonly Settled<DeliveryBatch>[]): Promise<void> {
  const health = new Map<number, { success: boolean; failures: number; error?: string }>();
  for (const { outcome } of settled) {
    const attempt = (outcome as { record?: Attempt }).record;
    if (!attempt?.health) continue;
    const state = health.get(attempt.destinationId) ?? { success: false, failures: 0 };
    if (attempt.health.ok) {
      state.success = true;
      state.failures = 0;
    } else {
      state.failures++;
      state.error = attempt.health.error ?? 'failed';
    }
    health.set(attempt.destinationId, state);
  }
  const now = wholeSecondNow();
  for (const [id, { success, failures, error }] of health) {
    if (success && failures === 0) {
      await sql.run('UPDATE destinations SET last_success_at = ?, consecutive_failures = 0 WHERE id = ?', [now, id]);
    } else if (success) {
      await sql.run(
        'UPDATE destinations SET last_success_at = ?, last_failure_at = ?, last_error = ?, consecutive_failures = ? WHERE id = ?',
        [now, now, clip(error ?? ''), failures, id],
      );
    } else {
      await sql.run(
        `UPDATE destinations SET last_failure_at = ?, last_error = ?, consecutive_failures = consecutive_failures + ?
          WHERE id = ?`,
        [now, clip(error ?? ''), failures, id],
      );
    }
  }
}
