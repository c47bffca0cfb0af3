import { Inject, Injectable, Logger } from '@nestjs/common';
import { Cron } from 'croner';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { parseDateLike } from '../../common/fields/fields.js';
import { ApiException, RecordNotFound, ValidationFailed, type FieldErrors } from '../../common/http/api-exception.js';
import type { Job, JobContext, JobHandler, JobOutcome, QueueSettings } from '../../common/jobs/job.js';
import { Jobs } from '../../common/jobs/jobs.js';
import { SERVICE_RETRIES } from '../../common/jobs/retry-schedule.js';
import { uniqueViolationField } from '../../common/persistence/database-errors.js';
import { Tables, type TenantTx } from '../../common/persistence/tables.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import { CampaignRunsService } from './campaign-runs.service.js';
import type { ScheduleDto, ScheduleResponse } from './dto/schedule.dto.js';
import { CampaignRun, CampaignSchedule } from './entities/campaign-run.entity.js';
import { emptyCounts } from './run-counts.js';
import { SCHEDULE_QUEUE } from './run-queue-name.js';
import { runAuth } from './run-auth.js';

/** The next tick of a cron expression in a time zone after `after` (undefined: none). */
export function nextTick(cron: string, timezone: string, after: Date): Date | undefined {
  return new Cron(cron, { timezone, paused: true }).nextRun(after) ?? undefined;
}

/** Why a schedule body cannot be taken, field by field (none: it can). */
export function scheduleRefusals(dto: ScheduleDto, now: Date): FieldErrors {
  const errors: FieldErrors = {};
  if ((dto.at === undefined) === (dto.cron === undefined)) {
    errors.at = ['Give either at (once) or cron (repeatedly), not both and not neither.'];
    return errors;
  }
  if (dto.at !== undefined) {
    if (dto.timezone !== undefined) errors.timezone = ['The timezone field goes with cron only.'];
    if (parseDateLike(dto.at)!.getTime() <= now.getTime())
      errors.at = ['The at field must be an instant in the future.'];
    return errors;
  }
  const timezone = dto.timezone ?? 'UTC';
  try {
    new Cron(dto.cron!, { timezone: 'UTC', paused: true });
  } catch (error) {
    errors.cron = [
      `The cron field is not a cron expression: ${(error as Error).message.replace(/^CronPattern: /, '')}`,
    ];
    return errors;
  }
  try {
    if (!nextTick(dto.cron!, timezone, now)) errors.cron = ['The cron expression has no tick in the future.'];
  } catch {
    errors.timezone = [`The timezone field is no IANA time zone (such as Europe/Amsterdam): ${timezone}.`];
  }
  return errors;
}

export const toScheduleResponse = (schedule: CampaignSchedule): ScheduleResponse => ({
  campaign_id: schedule.campaign_id,
  at: schedule.at === null ? null : new Date(Number(schedule.at)).toISOString(),
  cron: schedule.cron,
  timezone: schedule.cron === null ? null : (schedule.timezone ?? 'UTC'),
  next_run_at: schedule.next_run_at === null ? null : new Date(Number(schedule.next_run_at)).toISOString(),
});

/** A schedule's job holds this key: one job per schedule, due at its next tick. */
const scheduleKey = (campaignId: number) => `campaign:${campaignId}`;

/**
 * Campaign schedules (`PUT/GET/DELETE /api/campaigns/{id}/schedule`): once (`at`) or by a cron
 * expression in a time zone (croner). Each schedule is a job of the jobs table due at its next
 * tick: the instance that claims it launches one run for that tick (the run's `scheduled_for` is
 * unique per campaign, so a tick run again after a crash starts no second run), only while the
 * campaign is active and within its dates; when the previous run is still going it records a
 * `skipped` run instead. Then the job waits for the next tick (`again`), or ends after a one-off.
 */
@Injectable()
export class CampaignSchedules implements JobHandler {
  readonly settings: QueueSettings;
  private readonly logger = new Logger('CampaignSchedules');

  constructor(
    private readonly tables: Tables,
    private readonly jobs: Jobs,
    private readonly runs: CampaignRunsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = {
      name: SCHEDULE_QUEUE,
      enabled: config.runs.runner,
      concurrency: 4,
      leaseMs: 60_000,
      pollMs: config.runs.pollMs,
      retry: SERVICE_RETRIES,
      // A tick starts its run within a minute.
      maxWaitSeconds: 60,
    };
  }

  async put(auth: AuthContext, campaignId: number, dto: ScheduleDto): Promise<ScheduleResponse> {
    const now = new Date();
    const errors = scheduleRefusals(dto, now);
    if (Object.keys(errors).length) throw new ValidationFailed(errors);
    const at = dto.at === undefined ? null : parseDateLike(dto.at)!.getTime();
    const timezone = dto.cron === undefined ? null : (dto.timezone ?? 'UTC');
    const next = at ?? nextTick(dto.cron!, timezone!, now)!.getTime();
    return this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      await this.campaign(tx, campaignId);
      const values = { at, cron: dto.cron ?? null, timezone, next_run_at: next };
      const table = tx.table(CampaignSchedule);
      const [existing] = await table.findWhere({ campaign_id: campaignId });
      const schedule = existing
        ? ((await table.update(existing, values)) ?? existing)
        : await table.insert({ campaign_id: campaignId, ...values });
      await this.jobs.enqueue(
        bookkeeping,
        [
          {
            queue: SCHEDULE_QUEUE,
            tenantId: auth.tenantId,
            subjectId: schedule.id,
            uniqueKey: scheduleKey(campaignId),
            runAt: next,
          },
        ],
        { replace: true },
      );
      const answer = toScheduleResponse(schedule);
      await tx.keepAnswer(answer);
      return answer;
    });
  }

  async get(auth: AuthContext, campaignId: number): Promise<ScheduleResponse> {
    const reads = this.tables.read(auth);
    const [schedule] = await reads.table(CampaignSchedule).findWhere({ campaign_id: campaignId });
    if (!schedule) throw new RecordNotFound('schedule');
    return toScheduleResponse(schedule);
  }

  async delete(auth: AuthContext, campaignId: number): Promise<null> {
    await this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      const [schedule] = await tx.table(CampaignSchedule).findWhere({ campaign_id: campaignId });
      if (!schedule) throw new RecordNotFound('schedule');
      await tx.table(CampaignSchedule).remove(schedule);
      await this.jobs.cancel(bookkeeping, SCHEDULE_QUEUE, [schedule.id]);
    });
    return null;
  }

  /** A tick: one run for it (or a skipped one), then the next tick. */
  async run(job: Job, context: JobContext): Promise<JobOutcome> {
    const auth = runAuth({ id: 0, tenant_id: job.tenantId! });
    const [schedule] = await this.tables.read(auth).table(CampaignSchedule).findMany([job.subjectId!]);
    if (!schedule || schedule.next_run_at === null) return { status: 'done', note: 'no schedule' };
    const tick = Number(schedule.next_run_at);
    if (tick > Date.now()) return { status: 'again', at: tick };
    await this.launch(auth, schedule, tick);
    const next =
      schedule.cron === null
        ? null
        : (nextTick(schedule.cron, schedule.timezone ?? 'UTC', new Date(Math.max(tick, Date.now())))?.getTime() ??
          null);
    await this.tables.writeWithBookkeeping(auth, async (tx, sql) => {
      await context.fence(sql);
      const [current] = await tx.table(CampaignSchedule).findMany([schedule.id], { lock: true });
      if (current && Number(current.next_run_at) === tick)
        await tx.table(CampaignSchedule).update(current, { next_run_at: next });
    });
    return next === null ? { status: 'done', note: 'ran once' } : { status: 'again', at: next, note: 'next tick' };
  }

  /** The tick's run: launched like a user's (the same checks), skipped while another runs; refused: nothing. */
  private async launch(auth: AuthContext, schedule: CampaignSchedule, tick: number): Promise<void> {
    try {
      await this.runs.launch(auth, schedule.campaign_id, { dryRun: false, trigger: 'schedule', scheduledFor: tick });
    } catch (error) {
      if (uniqueViolationField(error) === 'scheduled_for') return; // this tick's run exists already
      if (error instanceof ApiException && error.status === 409) return this.skipped(auth, schedule, tick);
      if (error instanceof ApiException && (error.status === 422 || error.status === 404)) {
        this.logger.log(
          `campaign ${schedule.campaign_id}: the tick of ${new Date(tick).toISOString()} started no run (${error.message})`,
        );
        return;
      }
      throw error;
    }
  }

  /** A run recorded as skipped: the tick came while the previous run was still going. */
  private async skipped(auth: AuthContext, schedule: CampaignSchedule, tick: number): Promise<void> {
    try {
      await this.tables.write(auth, (tx) =>
        tx.table(CampaignRun).insert({
          campaign_id: schedule.campaign_id,
          status: 'skipped',
          trigger: 'schedule',
          dry_run: false,
          scheduled_for: tick,
          active_campaign_id: null,
          counts: JSON.stringify(emptyCounts()),
          phase: 'done',
          progress: null,
          finished_at: new Date(Math.floor(Date.now() / 1000) * 1000),
        }),
      );
    } catch (error) {
      if (uniqueViolationField(error) !== 'scheduled_for') throw error;
    }
  }

  private async campaign(tx: TenantTx, campaignId: number): Promise<Campaign> {
    const campaign = await tx.table(Campaign).findById(campaignId, { lock: 'share' });
    if (!campaign) throw new RecordNotFound('campaign');
    return campaign;
  }
}
