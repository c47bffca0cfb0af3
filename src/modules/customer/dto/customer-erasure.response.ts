import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../common/http/serialize.js';
import { ERASURE_STATUSES, type CustomerErasure, type ErasureStatus } from '../entities/customer-erasure.entity.js';

export class CustomerErasureResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty({ description: 'The erased customer (deleted when the request was accepted)' }) customer_id: number;
  @ApiProperty({ enum: ERASURE_STATUSES, description: 'queued, running, then completed' }) status: ErasureStatus;
  @ApiProperty({ description: 'Activity-log entries whose properties became {"erased": true}' })
  activity_entries: number;
  @ApiProperty({ description: 'Change-feed events that became tombstones' }) events: number;
  @ApiProperty({ description: 'Webhook answers (response bodies) dropped from the delivery log' })
  webhook_attempts: number;
  @ApiProperty({ description: 'Answers kept for Idempotency-Key replays that were dropped' }) kept_answers: number;
  @ApiProperty({ description: 'Customers written meanwhile with the erased e-mail address or external id, erased too' })
  late_arrivals: number;
  @ApiProperty({ description: "The customers' tracked events (`POST /api/track`), deleted" })
  customer_events_deleted: number;
  @ApiProperty({
    description: "The customers' rows in campaign runs (membership, recipient rows, last records delivered), deleted",
  })
  campaign_rows_deleted: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at: string | null;
}

export const toCustomerErasureResponse = (job: CustomerErasure): CustomerErasureResponse => ({
  id: job.id,
  tenant_id: job.tenant_id,
  customer_id: job.customer_id,
  status: job.status,
  activity_entries: job.activity_entries,
  events: job.events,
  webhook_attempts: job.webhook_attempts,
  kept_answers: job.kept_answers,
  late_arrivals: job.late_arrivals,
  customer_events_deleted: job.customer_events_deleted,
  campaign_rows_deleted: job.campaign_rows_deleted,
  created_at: toIso(job.created_at),
  completed_at: toIso(job.completed_at),
});
