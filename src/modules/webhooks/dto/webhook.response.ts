import { ApiProperty } from '@nestjs/swagger';
import { eventId } from '../../../common/events/change-feed.js';
import { recordFields } from '../../../common/http/record-fields.js';
import { toIso } from '../../../common/http/serialize.js';
import {
  DELIVERY_STATUSES,
  DISABLED_REASONS,
  type Webhook,
  type WebhookAttempt,
  type WebhookDelivery,
} from '../entities/webhook.entity.js';

export class WebhookResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() url: string;
  @ApiProperty({ type: [String] }) events: string[];
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty() is_active: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: [...DISABLED_REASONS, null],
    description:
      'Why the service disabled it: `gone` (it answered 410), `failing` (5 days without a successful delivery)',
  })
  disabled_reason: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

/** The create (and rotate-secret) answer: the only ones that show the secret. */
export class WebhookWithSecretResponse extends WebhookResponse {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'Signs every delivery; shown only here',
  })
  secret: string;
}

export const toWebhookResponse = (row: Webhook): WebhookResponse =>
  recordFields(row, {
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    is_active: row.is_active,
    disabled_reason: row.disabled_reason,
  });

export class WebhookDeliveryResponse {
  @ApiProperty() id: number;
  @ApiProperty({ example: 'evt_1042' }) event_id: string;
  @ApiProperty({ example: 'customer.created' }) event_type: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status: string;
  @ApiProperty() attempts: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) next_attempt_at: string | null;
  @ApiProperty({ type: Number, nullable: true }) last_status_code: number | null;
  @ApiProperty({ type: String, nullable: true }) last_error: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) delivered_at: string | null;
}

export class WebhookAttemptResponse {
  @ApiProperty({ type: String, format: 'date-time' }) at: string;
  @ApiProperty({ type: Number, nullable: true }) status_code: number | null;
  @ApiProperty() duration_ms: number;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The first KiB of the answer' }) response_body:
    string | null;
}

export class WebhookDeliveryDetailResponse extends WebhookDeliveryResponse {
  @ApiProperty({ type: [WebhookAttemptResponse], description: 'Every attempt, oldest first' })
  attempt_log: WebhookAttemptResponse[];
}

export const toDeliveryResponse = (row: WebhookDelivery): WebhookDeliveryResponse => ({
  id: row.id,
  event_id: eventId(row.event_id),
  event_type: row.event_type,
  status: row.status,
  attempts: row.attempts,
  next_attempt_at:
    row.status === 'pending' && row.next_attempt_at !== null
      ? new Date(Number(row.next_attempt_at)).toISOString()
      : null,
  last_status_code: row.last_status_code,
  last_error: row.last_error,
  created_at: toIso(row.created_at),
  delivered_at: toIso(row.delivered_at),
});

export const toAttemptResponse = (row: WebhookAttempt): WebhookAttemptResponse => ({
  at: new Date(Number(row.at)).toISOString(),
  status_code: row.status_code,
  duration_ms: Number(row.duration_ms),
  error: row.error,
  response_body: row.response_body,
});

export class ReplayResponse {
  @ApiProperty({ description: 'Deliveries scheduled' }) scheduled: number;
}

export class WebhookTestResponse {
  @ApiProperty() webhook_id: number;
  @ApiProperty({ example: 'webhook.test' }) event_type: string;
}
