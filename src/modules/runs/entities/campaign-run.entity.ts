import { Column, Entity } from 'typeorm';
import { ForeignIdColumn, StringColumn, TextColumn, TimestampColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { InternalColumn } from '../../../common/persistence/version-counter.js';
import { Unrecorded } from '../../../common/persistence/unrecorded.js';

export const RUN_STATUSES = ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled', 'skipped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** A run in one of these holds its campaign: another launch answers 409. */
export const ACTIVE_STATUSES: readonly RunStatus[] = ['queued', 'running', 'paused'];
export const RUN_PHASES = ['snapshot', 'exclude', 'plan', 'deliver', 'finish', 'done'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];
export const RUN_TRIGGERS = ['manual', 'schedule'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** A run of a campaign (migration 1765700000000). */
@Entity('campaign_runs')
export class CampaignRun extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_id: number;

  @StringColumn(16)
  status: RunStatus;

  @StringColumn(16)
  trigger: RunTrigger;

  @Column({ type: 'boolean', default: false })
  dry_run: boolean;

  /** The schedule's tick that started it (epoch ms): one run per tick. */
  @InternalColumn({ type: 'bigint', nullable: true })
  scheduled_for: number | null;

  /** The campaign while the run is queued, running or paused, null after: one such run per campaign (unique). */
  @InternalColumn({ type: 'bigint', nullable: true })
  active_campaign_id: number | null;

  /** RunCounts as JSON, updated as the run goes (bookkeeping: its changes are no change of the run). */
  @InternalColumn({ type: 'text' })
  counts: string;

  /** The phase the run's job is in (RunPhase), and how far it got: a job resumed after a crash goes on from there. */
  @InternalColumn({ type: 'varchar', length: 16 })
  phase: RunPhase;

  @InternalColumn({ type: 'bigint', nullable: true })
  progress: number | null;

  @TextColumn({ nullable: true })
  error: string | null;

  @ForeignIdColumn({ nullable: true })
  created_by: number | null;

  @TimestampColumn()
  started_at: Date | null;

  /** When its members were recorded (epoch ms): the moment of assignment, for results. */
  @Column({ type: 'bigint', nullable: true })
  snapshot_at: number | null;

  @TimestampColumn()
  finished_at: Date | null;
}

export const EXCLUSIONS = ['inactive', 'suppressed', 'invalid', 'capped'] as const;
export type Exclusion = (typeof EXCLUSIONS)[number];

/**
 * A customer the campaign's audiences selected when the run recorded its members. Unrecorded, like
 * the recipients: what happened in a run, not a record of the API (the run's own changes are in the
 * change feed).
 */
@Entity('campaign_run_members')
@Unrecorded()
export class CampaignRunMember extends TenantOwnedEntity {
  @ForeignIdColumn()
  run_id: number;

  @ForeignIdColumn()
  customer_id: number;

  /** The group the allocation gave it; null: held out (not eligible). */
  @ForeignIdColumn({ nullable: true })
  treatment_group_id: number | null;

  /** Why an eligible member receives nothing. */
  @StringColumn(16, { nullable: true })
  excluded: Exclusion | null;
}

export const RECIPIENT_STATUSES = ['pending', 'delivered', 'rejected', 'failed', 'skipped'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];
export const RECORD_ACTIONS = ['add', 'update', 'remove'] as const;
export type RecordAction = (typeof RECORD_ACTIONS)[number];

/** What one association sends one customer in one run. */
@Entity('campaign_run_recipients')
@Unrecorded()
export class CampaignRunRecipient extends TenantOwnedEntity {
  @ForeignIdColumn()
  run_id: number;

  @ForeignIdColumn()
  campaign_destination_id: number;

  @ForeignIdColumn()
  customer_id: number;

  @ForeignIdColumn({ nullable: true })
  treatment_group_id: number | null;

  @StringColumn(8)
  action: RecordAction;

  @StringColumn(16)
  status: RecipientStatus;

  @TextColumn({ nullable: true })
  reason: string | null;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @TextColumn({ nullable: true })
  last_error: string | null;

  @StringColumn(64)
  message_id: string;

  /** The mapped data's checksum (the next run's diff). */
  @InternalColumn({ type: 'varchar', length: 64, nullable: true })
  checksum: string | null;

  @InternalColumn({ type: 'int', default: 0 })
  batch: number;

  /** Epoch ms. */
  @Column({ type: 'bigint', nullable: true })
  delivered_at: number | null;
}

/** The last record an association delivered to a customer: what the next run diffs against. */
@Entity('campaign_delivery_state')
@Unrecorded()
export class CampaignDeliveryState extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_destination_id: number;

  @ForeignIdColumn()
  customer_id: number;

  @StringColumn(64)
  checksum: string;

  @StringColumn(8)
  action: RecordAction;

  @ForeignIdColumn()
  run_id: number;

  /** Epoch ms. */
  @Column({ type: 'bigint' })
  delivered_at: number;
}

/** A campaign's schedule: once (`at`) or by a cron expression in a time zone. */
@Entity('campaign_schedules')
export class CampaignSchedule extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_id: number;

  @Column({ type: 'bigint', nullable: true })
  at: number | null;

  @StringColumn(255, { nullable: true })
  cron: string | null;

  @StringColumn(64, { nullable: true })
  timezone: string | null;

  /** The next tick (epoch ms), null once a one-off schedule has run. */
  @Column({ type: 'bigint', nullable: true })
  next_run_at: number | null;
}

/** A tenant's frequency caps, as a JSON array of {channel, max, per_days}. */
@Entity('messaging_limits')
export class MessagingLimits extends TenantOwnedEntity {
  @TextColumn()
  rules: string;
}
