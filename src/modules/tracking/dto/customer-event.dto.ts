import { ApiProperty } from '@nestjs/swagger';
import { BooleanField, DateField, NumberField, StringField } from '../../../common/fields/fields.js';
import { DEFAULT_PAGE_SIZE, ListQueryDto, MAX_PAGE_SIZE } from '../../../common/resources/list-query.dto.js';
import type { CustomerEvent, CustomerEventName } from '../entities/customer-event.entity.js';
import { TIMELINE_KINDS } from '../timeline/timeline-source.js';

const iso = (ms: number) => new Date(ms).toISOString();

export class CustomerEventResponse {
  @ApiProperty() id: number;
  @ApiProperty({ description: "The client's key, as sent" }) message_id: string;
  @ApiProperty() customer_id: number;
  @ApiProperty({ example: 'purchase' }) event: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { amount: 120, currency: 'EUR' },
  })
  properties: Record<string, unknown> | null;

  @ApiProperty({ type: String, format: 'date-time', description: 'When it happened (millisecond precision)' })
  timestamp: string;

  @ApiProperty({ type: String, format: 'date-time', description: 'When the service stored it (whole seconds)' })
  received_at: string;
}

export function toCustomerEventResponse(event: CustomerEvent, name: string): CustomerEventResponse {
  return {
    id: event.id,
    message_id: event.message_id,
    customer_id: event.customer_id,
    event: name,
    properties: event.properties === null ? null : (JSON.parse(event.properties) as Record<string, unknown>),
    timestamp: iso(event.occurred_at),
    received_at: (event.created_at ?? new Date(event.occurred_at)).toISOString(),
  };
}

/** `?limit` and `?cursor` of API-CONVENTIONS §4, for lists whose sorts are their own. */
class PageQueryDto {
  @NumberField({
    required: false,
    integer: true,
    min: 1,
    max: MAX_PAGE_SIZE,
    description: `Page size (default ${DEFAULT_PAGE_SIZE})`,
  })
  limit?: number;

  @StringField({ required: false, max: 1024, description: 'The `meta.next_cursor` of the previous page' })
  cursor?: string;
}

export class CustomerEventsQueryDto extends PageQueryDto {
  @StringField({
    required: false,
    max: 64,
    description: '`-timestamp` (default: newest first) or `timestamp`; ties by id in the same direction',
  })
  sort?: string;

  @BooleanField({ required: false, description: 'Adds `meta.total`' })
  with_total?: boolean;

  @StringField({ required: false, max: 255, description: 'Only events of this name (compared exactly)' })
  event?: string;

  @DateField({ required: false, description: 'Only events at or after this instant (a date: from its start, UTC)' })
  since?: string;

  @DateField({ required: false, description: 'Only events at or before this instant (a date: through its end, UTC)' })
  until?: string;
}

export const EVENT_FILTER_MESSAGE =
  'The event filter must be 1 to 255 ASCII letters, digits, underscores, dots, colons, hyphens or inner spaces.';

export class EventNameResponse {
  @ApiProperty() id: number;
  @ApiProperty({ example: 'purchase' }) name: string;
  @ApiProperty({ description: 'Events of this name the tenant keeps' }) count: number;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: "The newest kept event's timestamp; null when none is kept",
  })
  last_seen_at: string | null;
}

export const toEventNameResponse = (row: CustomerEventName): EventNameResponse => ({
  id: row.id,
  name: row.name,
  count: Math.max(0, Number(row.count)),
  last_seen_at: row.last_seen_at === null ? null : iso(row.last_seen_at),
});

/** Sorts: `id`, `name`, `count` (`-` for descending; default `-id`). */
export class EventNamesQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of the name (ASCII case ignored)' })
  q?: string;
}

export class TimelineQueryDto extends PageQueryDto {
  @StringField({
    required: false,
    max: 255,
    example: TIMELINE_KINDS.join(','),
    description: `Only these kinds, a comma list of: ${TIMELINE_KINDS.join(', ')}`,
  })
  kinds?: string;
}

export class TimelineItemResponse {
  @ApiProperty({ type: String, format: 'date-time', description: 'When it happened; the order, newest first' })
  at: string;

  @ApiProperty({ enum: [...TIMELINE_KINDS] })
  kind: string;

  @ApiProperty({
    example: 'purchase',
    description: "A change's event type (`customer.updated`), an event's name, a conversion's goal name",
  })
  type: string;

  @ApiProperty({
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    example: 42,
    description:
      "Its id in its own API: a change's change-feed id (`evt_12`, `GET /api/events/{id}`), an event's id " +
      "(`GET /api/customer-events/{id}`); a conversion's converting event's id",
  })
  id: number | string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'A change: `{changes, record, causer, request_id}` (record: the customer as the change feed shows it); an ' +
      'event: the event as `GET /api/customer-events/{id}` answers it',
  })
  data: Record<string, unknown>;
}
