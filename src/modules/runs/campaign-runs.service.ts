import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { ApiException, RecordNotFound, ValidationFailed } from '../../common/http/api-exception.js';
import { Page } from '../../common/http/page.js';
import { Jobs } from '../../common/jobs/jobs.js';
import { uniqueViolationField } from '../../common/persistence/database-errors.js';
import { pageRequest, type Condition } from '../../common/persistence/keyset.js';
import { quote } from '../../common/persistence/table-gateway.js';
import type { Sql } from '../../common/persistence/sql.js';
import { Tables, type TenantReads, type TenantTx } from '../../common/persistence/tables.js';
import { DESTINATION_QUEUE } from '../destination/delivery/delivery-batch.js';
import type { ListQueryDto } from '../../common/resources/list-query.dto.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import type { RecipientsQueryDto } from './dto/run.dto.js';
import { toRecipientResponse, toRunResponse, type RecipientResponse, type RunResponse } from './dto/run.response.js';
import {
  ACTIVE_STATUSES,
  CampaignRun,
  CampaignRunRecipient,
  type RunStatus,
  type RunTrigger,
} from './entities/campaign-run.entity.js';
import { emptyCounts } from './run-counts.js';
import { RUN_QUEUE, type RunJobPayload } from './run-queue-name.js';
import { campaignRefusals } from './run-readiness.js';
import { RunDestinations } from './run-destinations.js';

/** How a launch is asked for: by a user (manual) or by a schedule's tick. */
export interface LaunchRequest {
  dryRun: boolean;
  trigger: RunTrigger;
  /** The schedule's tick (epoch ms): one run per tick, whichever instance saw it. */
  scheduledFor?: number;
}

/**
 * Campaign runs (docs/campaign-runs.md): a launch checks everything at once (one 422 with every
 * reason), records the run queued and its job in one transaction (one queued, running or paused
 * run per campaign: a second launch answers 409 with its id), and the run's job does the rest
 * (RunQueue). Pause, resume, cancel and retry change the run's status; the job reads it between
 * its batches.
 */
@Injectable()
export class CampaignRunsService {
  constructor(
    private readonly tables: Tables,
    private readonly jobs: Jobs,
    private readonly destinations: RunDestinations,
  ) {
    tables.publish(CampaignRun, {
      resource: 'campaign_run',
      present: async (_reads, runs) => runs.map(toRunResponse),
      actions: ['created', 'updated'],
    });
  }

  async launch(auth: AuthContext, campaignId: number, request: LaunchRequest): Promise<RunResponse> {
    const reads = this.tables.read(auth);
    const campaign = await reads.table(Campaign).findById(campaignId);
    if (!campaign) throw new RecordNotFound('campaign');
    const errors = await campaignRefusals(reads, campaign, new Date());
    const destinations = await this.destinations.refusals(reads, campaignId);
    if (destinations.length) errors.destinations = destinations;
    if (Object.keys(errors).length) throw new ValidationFailed(errors);
    try {
      const run = await this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
        const run = await tx.table(CampaignRun).insert({
          campaign_id: campaignId,
          status: 'queued',
          trigger: request.trigger,
          dry_run: request.dryRun,
          scheduled_for: request.scheduledFor ?? null,
          active_campaign_id: campaignId,
          counts: JSON.stringify(emptyCounts()),
          phase: 'snapshot',
          progress: null,
          created_by: auth.user.id || null,
        });
        const payload: RunJobPayload = { phase: 'snapshot' };
        await this.jobs.enqueue(bookkeeping, [
          { queue: RUN_QUEUE, tenantId: auth.tenantId, subjectId: run.id, payload },
        ]);
        const answer = toRunResponse(run);
        await tx.keepAnswer(answer);
        return answer;
      });
      this.jobs.nudge(RUN_QUEUE);
      return run;
    } catch (error) {
      if (uniqueViolationField(error) !== 'active_campaign_id') throw error;
      const [active] = await reads.table(CampaignRun).findWhere({ active_campaign_id: campaignId });
      throw new ApiException(409, {
        message: `A run of this campaign is ${active?.status ?? 'going on'}: pause, cancel or let it finish first.`,
        run_id: active?.id ?? null,
      });
    }
  }

  async list(auth: AuthContext, campaignId: number, query: ListQueryDto): Promise<Page<RunResponse>> {
    const reads = this.tables.read(auth);
    if (!(await reads.table(Campaign).findById(campaignId))) throw new RecordNotFound('campaign');
    const runs = reads.table(CampaignRun);
    const { rows, meta } = await runs.page(
      pageRequest(query, { created_at: 'date' }),
      [{ sql: `${quote(runs.spec.table)}.campaign_id = ?`, params: [campaignId] }],
      true,
    );
    return new Page(rows.map(toRunResponse), meta);
  }

  async get(auth: AuthContext, id: number): Promise<RunResponse> {
    return toRunResponse(await this.find(this.tables.read(auth), id));
  }

  /** Pause: the run stops after the batches in flight; resume takes it on from there. */
  pause(auth: AuthContext, id: number): Promise<RunResponse> {
    return this.transition(auth, id, ['queued', 'running'], 'paused');
  }

  resume(auth: AuthContext, id: number): Promise<RunResponse> {
    return this.transition(auth, id, ['paused'], 'running');
  }

  /** Cancel: the batches in flight finish and are recorded; the rest is skipped (reason `cancelled`). */
  cancel(auth: AuthContext, id: number): Promise<RunResponse> {
    return this.transition(auth, id, ['queued', 'running', 'paused'], 'cancelled');
  }

  /** Queues the run's failed recipients again (a completed run goes back to running). */
  async retry(auth: AuthContext, id: number): Promise<RunResponse> {
    const answer = await this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      const run = await this.find(tx, id, true);
      if (run.dry_run || !['completed', 'failed'].includes(run.status)) {
        throw new ApiException(409, {
          message: `The run is ${run.status}${run.dry_run ? ' (a dry run)' : ''}: only a completed or failed run's failed recipients are retried.`,
        });
      }
      if (run.active_campaign_id === null && (await this.campaignBusy(tx, run))) {
        throw new ApiException(409, { message: 'Another run of this campaign is going on.' });
      }
      await this.destinations.retryFailed(tx, bookkeeping, run);
      const updated = await tx.table(CampaignRun).update(run, {
        status: 'running',
        phase: 'deliver',
        progress: null,
        active_campaign_id: run.campaign_id,
        finished_at: null,
      });
      const payload: RunJobPayload = { phase: 'deliver' };
      await this.jobs.enqueue(bookkeeping, [{ queue: RUN_QUEUE, tenantId: run.tenant_id, subjectId: run.id, payload }]);
      const answer = toRunResponse(updated!);
      await tx.keepAnswer(answer);
      return answer;
    });
    this.jobs.nudge(RUN_QUEUE);
    return answer;
  }

  async recipients(auth: AuthContext, runId: number, query: RecipientsQueryDto): Promise<Page<RecipientResponse>> {
    const reads = this.tables.read(auth);
    await this.find(reads, runId);
    const recipients = reads.table(CampaignRunRecipient);
    const t = quote(recipients.spec.table);
    const conditions: Condition[] = [{ sql: `${t}.run_id = ?`, params: [runId] }];
    if (query.status) conditions.push({ sql: `${t}.status = ?`, params: [query.status] });
    if (query.campaign_destination_id !== undefined)
      conditions.push({ sql: `${t}.campaign_destination_id = ?`, params: [query.campaign_destination_id] });
    if (query.treatment_group_id !== undefined)
      conditions.push({ sql: `${t}.treatment_group_id = ?`, params: [query.treatment_group_id] });
    const { rows, meta } = await recipients.page(pageRequest(query, {}), conditions, true);
    return new Page(rows.map(toRecipientResponse), meta);
  }

  private async transition(auth: AuthContext, id: number, from: RunStatus[], to: RunStatus): Promise<RunResponse> {
    const answer = await this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      const run = await this.find(tx, id, true);
      if (run.status === to) return toRunResponse(run);
      if (!from.includes(run.status)) {
        throw new ApiException(409, { message: `The run is ${run.status}: it cannot be ${verbs[to]}.` });
      }
      const updated = await tx.table(CampaignRun).update(run, { status: to });
      await this.steer(bookkeeping, run.id, to);
      const answer = toRunResponse(updated!);
      await tx.keepAnswer(answer);
      return answer;
    });
    this.jobs.nudge(RUN_QUEUE);
    this.jobs.nudge(DESTINATION_QUEUE);
    return answer;
  }

  /**
   * The run's jobs follow its status: paused, its batches not yet taken wait (held) and its own job
   * holds itself at its next step; resumed, both go on at once; cancelled, the batches not yet taken
   * are dropped and its own job, let go, skips what is left once those in flight have ended.
   */
  private async steer(sql: Sql, runId: number, to: RunStatus): Promise<void> {
    if (to === 'paused') await this.jobs.holdSubject(sql, DESTINATION_QUEUE, runId);
    if (to === 'running') await this.jobs.letGoOfSubject(sql, DESTINATION_QUEUE, runId);
    if (to === 'cancelled') await this.jobs.cancelWaiting(sql, DESTINATION_QUEUE, runId);
    if (to !== 'paused') await this.jobs.letGoOfSubject(sql, RUN_QUEUE, runId);
  }

  private async campaignBusy(tx: TenantTx, run: CampaignRun): Promise<boolean> {
    return tx.table(CampaignRun).exists({ active_campaign_id: run.campaign_id });
  }

  private async find(reads: TenantReads, id: number, lock = false): Promise<CampaignRun> {
    const run = await reads.table(CampaignRun).findById(id, { lock });
    if (!run) throw new RecordNotFound('campaign run');
    return run;
  }
}

const verbs: Record<RunStatus, string> = {
  queued: 'queued',
  running: 'resumed',
  paused: 'paused',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  skipped: 'skipped',
};

/** A run whose status holds its campaign: no other run may start. */
export const holdsCampaign = (status: RunStatus): boolean => ACTIVE_STATUSES.includes(status);
