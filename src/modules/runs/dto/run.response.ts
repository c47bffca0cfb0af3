import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../common/http/serialize.js';
import {
  EXCLUSIONS,
  RECIPIENT_STATUSES,
  RECORD_ACTIONS,
  RUN_STATUSES,
  RUN_TRIGGERS,
  type CampaignRun,
  type CampaignRunRecipient,
  type RecipientStatus,
  type RecordAction,
  type RunStatus,
  type RunTrigger,
} from '../entities/campaign-run.entity.js';
import type { RunCounts } from '../run-counts.js';

export class ExcludedCountsResponse {
  @ApiProperty({ description: 'Eligible customers who are not active' }) inactive: number;
  @ApiProperty({ description: 'Eligible customers whose e-mail address or external id an erasure suppressed' })
  suppressed: number;
  @ApiProperty({ description: 'Eligible customers failing an attached active validation rule' }) invalid: number;
  @ApiProperty({ description: "Eligible customers over the tenant's frequency cap (messaging limits)" })
  capped: number;
}

export class GroupCountsResponse {
  @ApiProperty() treatment_group_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ description: '`control` or `holdout` (any case): receives nothing, kept for results' })
  type: string;
  @ApiProperty({ description: 'Members left after the exclusions' }) members: number;
}

export class DestinationCountsResponse {
  @ApiProperty() campaign_destination_id: number;
  @ApiProperty() destination_id: number;
  @ApiProperty({ description: 'Records that add a customer (new to the association)' }) add: number;
  @ApiProperty({ description: 'Records that update a customer whose mapped data changed' }) update: number;
  @ApiProperty({ description: 'Records that remove a customer no longer a member (sync `mirror`)' }) remove: number;
  @ApiProperty({ description: 'Members with nothing to send (already sent, or unchanged)' }) unchanged: number;
  @ApiProperty({ description: 'Records not sent: unsubscribed, no address, cancelled' }) skipped: number;
  @ApiProperty() delivered: number;
  @ApiProperty({ description: 'Records the destination refused' }) rejected: number;
  @ApiProperty({ description: 'Records that failed for good (POST .../retry queues them again)' }) failed: number;
  @ApiProperty({ description: 'Records still to deliver' }) pending: number;
}

export class RunCountsResponse {
  @ApiProperty({ description: "Customers the campaign's audiences select (after segment_override)" })
  audience: number;
  @ApiProperty({ description: 'Those the allocation gives a treatment group' }) eligible: number;
  @ApiProperty({ type: ExcludedCountsResponse, description: 'Taken out of the eligible ones, by reason' })
  excluded: ExcludedCountsResponse;
  @ApiProperty({ description: 'Members of the control and holdout groups (they receive nothing)' }) control: number;
  @ApiProperty({ type: [GroupCountsResponse] }) groups: GroupCountsResponse[];
  @ApiProperty({ type: [DestinationCountsResponse] }) destinations: DestinationCountsResponse[];
}

export class RunResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() campaign_id: number;
  @ApiProperty({
    enum: RUN_STATUSES,
    description:
      '`completed` also when some records were rejected or failed (the counts say so); `failed` when the run itself could not go on; `skipped`: a schedule tick while another run went on',
  })
  status: RunStatus;
  @ApiProperty({ enum: RUN_TRIGGERS }) trigger: RunTrigger;
  @ApiProperty() dry_run: boolean;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: "The schedule's tick that started it (one run per tick); null for a manual run",
  })
  scheduled_for: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When its members were recorded: the moment of assignment',
  })
  snapshot_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why a `failed` run stopped' }) error: string | null;
  @ApiProperty({ type: RunCountsResponse }) counts: RunCountsResponse;
}

export const toRunResponse = (run: CampaignRun): RunResponse => ({
  id: run.id,
  tenant_id: run.tenant_id,
  campaign_id: run.campaign_id,
  status: run.status,
  trigger: run.trigger,
  dry_run: Boolean(run.dry_run),
  scheduled_for: run.scheduled_for === null ? null : new Date(Number(run.scheduled_for)).toISOString(),
  created_at: toIso(run.created_at),
  started_at: toIso(run.started_at),
  snapshot_at: run.snapshot_at === null ? null : new Date(Number(run.snapshot_at)).toISOString(),
  finished_at: toIso(run.finished_at),
  error: run.error,
  counts: JSON.parse(run.counts) as RunCounts,
});

export class RecipientResponse {
  @ApiProperty() customer_id: number;
  @ApiProperty({ type: Number, nullable: true }) treatment_group_id: number | null;
  @ApiProperty() campaign_destination_id: number;
  @ApiProperty({ enum: RECORD_ACTIONS }) action: RecordAction;
  @ApiProperty({ enum: RECIPIENT_STATUSES }) status: RecipientStatus;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why it was rejected, failed or skipped: `unsubscribed`, `no_address`, `cancelled`, or the receiver’s answer',
  })
  reason: string | null;
  @ApiProperty() attempts: number;
  @ApiProperty({ type: String, nullable: true }) last_error: string | null;
  @ApiProperty({
    description:
      'Stable for the record (tenant, association, customer and the data’s checksum): a receiver drops a repeat by it',
  })
  message_id: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) delivered_at: string | null;
}

export const toRecipientResponse = (recipient: CampaignRunRecipient): RecipientResponse => ({
  customer_id: recipient.customer_id,
  treatment_group_id: recipient.treatment_group_id,
  campaign_destination_id: recipient.campaign_destination_id,
  action: recipient.action,
  status: recipient.status,
  reason: recipient.reason,
  attempts: Number(recipient.attempts),
  last_error: recipient.last_error,
  message_id: recipient.message_id,
  delivered_at: recipient.delivered_at === null ? null : new Date(Number(recipient.delivered_at)).toISOString(),
});

export const EXCLUSION_REASONS = EXCLUSIONS;

/** A file a run's `file` destination wrote. */
export class RunFileResponse {
  @ApiProperty({ example: 'campaign-destination-3.csv', description: 'Download it at `.../files/{name}`' })
  name: string;
  @ApiProperty({ type: Number, nullable: true }) campaign_destination_id: number | null;
  @ApiProperty({ enum: ['csv', 'ndjson'] }) format: 'csv' | 'ndjson';
  @ApiProperty({ description: 'Records in the file' }) records: number;
  @ApiProperty() bytes: number;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
}
