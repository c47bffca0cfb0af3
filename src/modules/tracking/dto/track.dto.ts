import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined } from 'class-validator';
import { EVENT_NAME_PATTERN, MAX_PROPERTIES_BYTES, MAX_TRACK_ITEMS } from '../track-input.js';

/** One event as `POST /api/track` takes it (documentation: each item is checked by checkTrackItem). */
export class TrackEventItem {
  @ApiProperty({
    minLength: 1,
    maxLength: 255,
    example: '6f1c8a52-3e0b-4f7e-9a4d-1c2b3d4e5f60',
    description:
      "The client's key of the event: stored once per tenant, ever (while the event is kept). A later item with " +
      "the same key, in this request or any other, is a `duplicate` answered with the stored event's id.",
  })
  message_id: string;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'integer', minimum: 1 },
      { type: 'string', pattern: '^[0-9]+$' },
    ],
    example: 42,
    description:
      'The customer (exactly one of customer_id and external_id); one the tenant does not have fails the item',
  })
  customer_id?: number;

  @ApiPropertyOptional({
    maxLength: 255,
    example: 'crm-1',
    description:
      "The customer's external id (exactly one of customer_id and external_id), compared exactly; the tenant's " +
      'customer with it, or a new one made with it as `POST /api/customers/batch` would make it (counted against ' +
      "the plan's customer cap, refused for a suppressed id)",
  })
  external_id?: string;

  @ApiProperty({
    pattern: EVENT_NAME_PATTERN,
    minLength: 1,
    maxLength: 255,
    example: 'purchase',
    description: 'ASCII letters, digits, `_ . : -` and inner spaces; compared exactly, case included',
  })
  event: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { amount: 120, currency: 'EUR' },
    description: `A JSON object of at most ${MAX_PROPERTIES_BYTES / 1024} KB as JSON; null is the same as absent`,
  })
  properties?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2026-11-26T09:30:00.123Z',
    description:
      'When it happened: ISO 8601 with `Z` or an offset (default: when received). At most 24 hours ahead, and ' +
      'not older than events are kept (CUSTOMER_EVENT_RETENTION_DAYS)',
  })
  timestamp?: string;
}

/** `events`: 1 to 1,000 items, each checked on its own (a bad one fails alone). */
const TrackItems = () =>
  applyDecorators(
    IsDefined({ message: 'The events field is required.' }),
    IsArray({ message: 'The events field must be an array.' }),
    ArrayMinSize(1, { message: 'The events field must have at least 1 items.' }),
    ArrayMaxSize(MAX_TRACK_ITEMS, { message: `The events field must not have more than ${MAX_TRACK_ITEMS} items.` }),
    ApiProperty({ type: TrackEventItem, isArray: true, minItems: 1, maxItems: MAX_TRACK_ITEMS }),
  );

export class TrackDto {
  @TrackItems()
  events: unknown[];
}

export const TRACK_STATUSES = ['accepted', 'duplicate', 'failed'] as const;
export type TrackStatus = (typeof TRACK_STATUSES)[number];

export class TrackResult {
  @ApiProperty({ description: 'Position of the item in `events`', example: 0 })
  index: number;

  @ApiProperty({ enum: TRACK_STATUSES })
  status: TrackStatus;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The stored event (for a duplicate: the one stored before with its message_id); null when failed',
  })
  id: number | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    description: "Only on `failed`: the item's errors by field (`limit`: the plan's daily or customer cap is reached)",
    example: { event: ['The event field is required.'] },
  })
  errors?: Record<string, string[]>;
}

export class TrackCounts {
  @ApiProperty() accepted: number;
  @ApiProperty() duplicate: number;
  @ApiProperty() failed: number;
}
