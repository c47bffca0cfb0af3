import { ApiProperty } from '@nestjs/swagger';
import { DateField, NumberField, StringField, NestedArrayField } from '../../../common/fields/fields.js';

export class ScheduleDto {
  @DateField({
    required: false,
    description: 'Run once, at this instant (ISO 8601 with Z or an offset); not with cron',
  })
  at?: string;

  @StringField({
    required: false,
    max: 255,
    example: '0 9 * * 1-5',
    description: 'Run at every tick of this cron expression (five fields, or six with seconds); not with at',
  })
  cron?: string;

  @StringField({
    required: false,
    max: 64,
    example: 'Europe/Amsterdam',
    description: "The cron expression's IANA time zone (default UTC)",
  })
  timezone?: string;
}

export class ScheduleResponse {
  @ApiProperty() campaign_id: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) at: string | null;
  @ApiProperty({ type: String, nullable: true }) cron: string | null;
  @ApiProperty({ type: String, nullable: true }) timezone: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'The next tick (null once a one-off schedule has run)',
  })
  next_run_at: string | null;
}

export const MESSAGING_CHANNELS = ['any', 'webhook', 'email', 'amqp', 'file'] as const;

export class MessagingRuleDto {
  @StringField({ in: MESSAGING_CHANNELS, description: 'A destination type, or `any` (every delivery counts)' })
  channel: string;

  @NumberField({ integer: true, min: 1, max: 1_000_000, description: 'Deliveries allowed in the window' })
  max: number;

  @NumberField({ integer: true, min: 1, max: 365, description: 'The window, in days back from now' })
  per_days: number;
}

export class MessagingLimitsDto {
  @NestedArrayField(() => MessagingRuleDto, { max: 10, description: 'At most 10 rules, one per channel' })
  rules: MessagingRuleDto[];
}

export class MessagingRuleResponse {
  @ApiProperty({ enum: MESSAGING_CHANNELS }) channel: string;
  @ApiProperty() max: number;
  @ApiProperty() per_days: number;
}

export class MessagingLimitsResponse {
  @ApiProperty({ type: [MessagingRuleResponse] }) rules: MessagingRuleResponse[];
}
