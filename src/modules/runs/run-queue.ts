import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import type {
  Job,
  JobContext,
  JobHandler,
  JobOutcome,
  LaneLimits,
  QueueSettings,
  Settled,
} from '../../common/jobs/job.js';
import { HELD, Jobs } from '../../common/jobs/jobs.js';
import type { Sql } from '../../common/persistence/sql.js';
import { Tables } from '../../common/persistence/tables.js';
import { wholeSecondNow } from '../../common/persistence/columns.js';
import { CampaignRun, type RunPhase, type RunStatus } from './entities/campaign-run.entity.js';
import { runAuth } from './run-auth.js';
import { RunDestinations } from './run-destinations.js';
import { PHASES_OF_JOB, PLAN_LANE_PREFIX, planLane, RUN_QUEUE, type RunJobPayload } from './run-queue-name.js';
import { RunSnapshot } from './run-snapshot.js';
import { SERVICE_RETRIES } from '../../common/jobs/retry-schedule.js';

/**
 * A campaign run as jobs of the jobs table, phase by phase (docs/campaign-runs.md):
 *
 * 1. `snapshot`: the members, set-based, in customer-id slices (RunSnapshot);
 * 2. `exclude`: those whose address or external id is suppressed;
 * 3. `plan`, in its tenant's plan lane (one run of a tenant plans at a time, so that the frequency
 *    caps count every other run's records): the capped ones, then each association's records;
 * 4. `deliver`: the records go out in batches, each a job of its destination's lane, and this job
 *    waits for them;
 * 5. `finish`: the counts, and the run's end.
 *
 * Each phase keeps its progress on the run, so a job resumed after a crash goes on from there; a
 * paused run's job waits (held) until it is resumed; a cancelled one ends at its next step.
 */
@Injectable()
export class RunQueue implements JobHandler {
  readonly settings: QueueSettings;
  private readonly logger = new Logger('CampaignRuns');

  constructor(
    private readonly tables: Tables,
    private readonly jobs: Jobs,
    private readonly snapshot: RunSnapshot,
    private readonly destinations: RunDestinations,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = {
      name: RUN_QUEUE,
      enabled: config.runs.runner,
      concurrency: 2,
      leaseMs: config.runs.leaseMs,
      pollMs: config.runs.pollMs,
      retry: SERVICE_RETRIES,
      // A run waits for its delivery batches; a snapshot of a million customers takes seconds.
      maxWaitSeconds: 300,
      keepFailures: true,
    };
  }

  async laneLimits(lanes: readonly string[]): Promise<Map<string, LaneLimits>> {
    return new Map(lanes.filter((lane) => lane.startsWith(PLAN_LANE_PREFIX)).map((lane) => [lane, { concurrency: 1 }]));
  }

  async run(job: Job, context: JobContext): Promise<JobOutcome> {
    const run = await this.read(job);
    if (!run || run.phase === 'done') return { status: 'done', note: 'ended already' };
    // A job of an earlier phase whose outcome a crash lost: the job it handed the run to goes on.
    // (A job queued before jobs said their phase runs whatever phase the run is in.)
    const queuedFor = (job.payload as RunJobPayload | null)?.phase;
    if (queuedFor !== undefined && !PHASES_OF_JOB[queuedFor].includes(run.phase)) {
      return { status: 'done', note: `handed over: the run is in phase ${run.phase}` };
    }
    for (;;) {
      const held = await this.statusCheck(run, context);
      if (held) return held;
      switch (run.phase) {
        case 'snapshot':
          if (run.status === 'queued') await this.start(run, context);
          if (!(await this.snapshot.record(run, context))) return { status: 'released', note: 'stopped' };
          await this.moveTo(run, 'exclude', context);
          break;
        case 'exclude':
          if (!(await this.snapshot.suppress(run, context))) return { status: 'released', note: 'stopped' };
          await this.saveCounts(run, context);
          // Planning waits its turn in the tenant's plan lane: the job ends here and one there takes over.
          await this.moveTo(run, 'plan', context, planLane(run.tenant_id));
          return { status: 'done', note: 'planning next' };
        case 'plan':
          if (!(await this.destinations.plan(run, context))) return { status: 'released', note: 'stopped' };
          await this.saveCounts(run, context);
          await this.moveTo(run, run.dry_run ? 'finish' : 'deliver', context, '');
          return { status: 'done', note: 'delivering next' };
        case 'deliver': {
          const left = await this.destinations.deliver(run, context);
          const counting = Date.now();
          await this.saveCounts(run, context);
          if (left > 0)
            return {
              status: 'again',
              at: Date.now() + progressPause(Date.now() - counting),
              note: `${left} batches in flight`,
            };
          await this.moveTo(run, 'finish', context);
          break;
        }
        case 'finish':
          await this.finish(run, 'completed', context);
          return { status: 'done', note: 'completed' };
        default:
          return { status: 'done', note: `in phase ${run.phase}` };
      }
    }
  }

  /** A job that failed for good (its schedule spent): the run has failed, and frees its campaign. */
  async settle(sql: Sql, settled: readonly Settled[]): Promise<void> {
    for (const { job, final, outcome } of settled) {
      if (final !== 'failed') continue;
      const error =
        outcome.status === 'failed' ? outcome.error : outcome.status === 'retry' ? outcome.failure.error : '';
      await sql.run(
        `UPDATE campaign_runs SET status = 'failed', phase = 'done', error = ?, active_campaign_id = NULL, finished_at = ?
          WHERE id = ? AND phase <> 'done'`,
        [`The run stopped on an error: ${error}`.slice(0, 1000), wholeSecondNow(), job.subjectId!],
      );
      this.logger.error(`campaign run ${job.subjectId} failed: ${error}`);
    }
  }

  /** Paused: the job waits, held until resumed. Cancelled: the run ends (what is in flight is recorded). */
  private async statusCheck(run: CampaignRun, context: JobContext): Promise<JobOutcome | undefined> {
    const { status } = (await this.read({ subjectId: run.id, tenantId: run.tenant_id }))!;
    run.status = status;
    if (status === 'paused') return { status: 'again', at: HELD, note: 'paused' };
    if (status === 'cancelled') {
      if (await this.destinations.inFlight(run)) return { status: 'again', at: Date.now() + 1_000, note: 'cancelling' };
      await this.destinations.skipRemaining(run, context, 'cancelled');
      await this.finish(run, 'cancelled', context);
      return { status: 'done', note: 'cancelled' };
    }
    return undefined;
  }

  private async start(run: CampaignRun, context: JobContext): Promise<void> {
    const now = Date.now();
    await this.write(run, context, {
      status: 'running',
      started_at: wholeSecondNow(),
      snapshot_at: now,
      progress: null,
    });
  }

  /** The run's next phase; with a lane, run by a new job of that lane (this one ends). */
  private async moveTo(run: CampaignRun, phase: RunPhase, context: JobContext, lane?: string): Promise<void> {
    await this.tables.writeWithBookkeeping(runAuth(run), async (tx, sql) => {
      await context.fence(sql);
      await sql.run('UPDATE campaign_runs SET phase = ?, progress = NULL WHERE id = ?', [phase, run.id]);
      if (lane !== undefined) {
        const payload: RunJobPayload = { phase: phase as RunJobPayload['phase'] };
        await this.jobs.enqueue(sql, [{ queue: RUN_QUEUE, lane, tenantId: run.tenant_id, subjectId: run.id, payload }]);
      }
    });
    run.phase = phase;
    run.progress = null;
    if (lane !== undefined) this.jobs.nudge(RUN_QUEUE);
  }

  private async saveCounts(run: CampaignRun, context: JobContext): Promise<void> {
    const counts = await this.snapshot.counts(run);
    counts.destinations = await this.destinations.counts(run);
    await this.tables.writeWithBookkeeping(runAuth(run), async (_tx, sql) => {
      await context.fence(sql);
      await sql.run('UPDATE campaign_runs SET counts = ? WHERE id = ?', [JSON.stringify(counts), run.id]);
    });
    run.counts = JSON.stringify(counts);
  }

  private async finish(run: CampaignRun, status: RunStatus, context: JobContext): Promise<void> {
    await this.saveCounts(run, context);
    await this.write(run, context, {
      status,
      phase: 'done',
      active_campaign_id: null,
      finished_at: wholeSecondNow(),
    });
  }

  /** A change of the run (its status: a change-feed event), fenced on its job. */
  private async write(run: CampaignRun, context: JobContext, values: Partial<CampaignRun>): Promise<void> {
    await this.tables.writeWithBookkeeping(runAuth(run), async (tx, sql) => {
      await context.fence(sql);
      const current = await tx.table(CampaignRun).findById(run.id, { lock: true });
      if (current) Object.assign(run, await tx.table(CampaignRun).update(current, values));
    });
  }

  private async read(job: Pick<Job, 'subjectId' | 'tenantId'>): Promise<CampaignRun | undefined> {
    return this.tables
      .read(runAuth({ id: job.subjectId!, tenant_id: job.tenantId! }))
      .table(CampaignRun)
      .findById(job.subjectId!);
  }
}

/**
 * How long a delivering run waits before it counts its progress again: counting reads every
 * recipient row of the run (at a million, a second or more), so ten times that apart, between 1 and
 * 10 seconds, it takes at most a tenth of one database thread from the delivery it reports on.
 */
export const progressPause = (countingMs: number): number => Math.min(10_000, Math.max(1_000, 10 * countingMs));
