import { ArrayMaxSize, ArrayMinSize } from 'class-validator';
import { BooleanField, DateField, StringArrayField, StringField } from '../../../common/fields/fields.js';
import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../entities/webhook.entity.js';

/** An endpoint as POST and PUT take it (a PUT leaves out what it does not send, but url and events). */
export class WebhookDto {
  @StringField({
    max: 2048,
    example: 'https://hooks.example.com/campaigns',
    description: 'http or https; a public address',
  })
  url: string;

  @StringArrayField({
    description: 'Event types from `GET /api/events/types`, or `["*"]` for every type',
    example: ['customer.created', 'customer.updated'],
  })
  @ArrayMinSize(1, { message: 'The events field must have at least 1 item.' })
  @ArrayMaxSize(200, { message: 'The events field must not have more than 200 items.' })
  events: string[];

  @StringField({ required: false, nullable: true })
  description?: string | null;

  @BooleanField({ required: false, description: 'Default true; setting it true again re-enables a disabled endpoint' })
  is_active?: boolean;
}

export class DeliveriesQueryDto extends ListQueryDto {
  @StringField({ required: false, in: DELIVERY_STATUSES })
  status?: DeliveryStatus;

  @StringField({ required: false, max: 64, example: 'customer.created' })
  event_type?: string;
}

export class ReplayDto {
  @DateField({ description: 'Send again every event that occurred at or after this instant' })
  since: string;

  @DateField({ required: false, onOrAfter: 'since', description: '... and at or before this one (default: now)' })
  until?: string;

  @StringArrayField({ required: false, description: "Only these types (default: the endpoint's)" })
  types?: string[];
}
