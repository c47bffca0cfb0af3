import { ApiProperty } from '@nestjs/swagger';
import { DateField, IdField, NumberField, StringField } from '../../../common/fields/fields.js';

/** The feed's page size: larger than a list's, for sync clients catching up. */
export const MAX_EVENTS_PAGE = 1_000;
export const DEFAULT_EVENTS_PAGE = 25;

export class EventsQueryDto {
  @NumberField({
    required: false,
    integer: true,
    min: 1,
    max: MAX_EVENTS_PAGE,
    description: `Page size (default ${DEFAULT_EVENTS_PAGE}, at most ${MAX_EVENTS_PAGE})`,
  })
  limit?: number;

  @StringField({
    required: false,
    max: 256,
    description: 'The `meta.next_cursor` of the previous page: the feed goes on after the last event it gave',
  })
  cursor?: string;

  @StringField({
    required: false,
    max: 4096,
    example: 'customer.created,customer.deleted',
    description: 'Only these event types (comma-separated, from `GET /api/events/types`)',
  })
  types?: string;

  @StringField({ required: false, max: 64, example: 'customer', description: 'Only events of this resource' })
  resource?: string;

  @IdField({ required: false, description: "Only this record's events (with `resource`)" })
  resource_id?: number;

  @DateField({
    required: false,
    description: 'Start at the first event that occurred at or after this instant (not with `cursor`)',
  })
  since?: string;
}

class EventCauser {
  @ApiProperty({ enum: ['user'] }) type: 'user';
  @ApiProperty() id: number;
}

export class EventResponse {
  @ApiProperty({
    example: 'evt_1042',
    description: 'Unique in the service; the same in the feed and in webhook deliveries',
  })
  id: string;

  @ApiProperty({ example: 17, description: "Strictly increasing in the tenant's feed order" })
  sequence: number;

  @ApiProperty({
    example: 'customer.updated',
    description: '`<resource>.created|updated|deleted`, or another type of `GET /api/events/types`',
  })
  type: string;

  @ApiProperty({ example: '2026-11-26T09:30:00.123Z' })
  occurred_at: string;

  @ApiProperty({ example: 'customer' })
  resource: string;

  @ApiProperty({ example: 42 })
  resource_id: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description:
      'Created or updated: the record as its GET answers it (an association: as its list does). Deleted: `{id, deleted_at}`.',
  })
  data: Record<string, unknown> | null;

  @ApiProperty({ type: [String], example: ['email'], description: 'Updated: the fields that changed; otherwise empty' })
  changes: string[];

  @ApiProperty({
    type: EventCauser,
    nullable: true,
    description: 'The user whose request made the change; null for a job',
  })
  causer: EventCauser | null;

  @ApiProperty({ type: String, nullable: true, description: 'The id of the request that made the change' })
  request_id: string | null;
}

export class EventTypeResponse {
  @ApiProperty({ example: 'customer.created' }) type: string;
  @ApiProperty({ example: 'customer' }) resource: string;
  @ApiProperty({ example: 'A customer was created.' }) description: string;
}

export class EventsPageMetaDto {
  @ApiProperty({ example: 25, minimum: 1, maximum: MAX_EVENTS_PAGE })
  limit: number;

  @ApiProperty({
    type: String,
    description: 'Where this page ended: always set, also on the last page and on an empty one; poll on from it.',
  })
  next_cursor: string;

  @ApiProperty({
    description: 'More events follow now (a filtered page may hold fewer than `limit` while this is true).',
  })
  has_more: boolean;
}
