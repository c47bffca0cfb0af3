import { ApiProperty } from '@nestjs/swagger';

export class ApiCallsUsage {
  @ApiProperty({ description: 'Authenticated calls of the tenant today (UTC), this one not included' }) used: number;
  @ApiProperty({ type: Number, nullable: true, description: 'The daily quota; null: unlimited' }) limit: number | null;
  @ApiProperty({ type: String, format: 'date-time', description: 'When the count starts again: the next 00:00 UTC' })
  resets_at: string;
}

export class TrackedEventsUsage {
  @ApiProperty({ description: 'Events `POST /api/track` stored today (UTC)' }) used: number;
  @ApiProperty({ type: Number, nullable: true, description: "The plan's tracked_events_per_day; null: unlimited" })
  limit: number | null;
  @ApiProperty({ type: String, format: 'date-time', description: 'When the count starts again: the next 00:00 UTC' })
  resets_at: string;
}

export class RecordUsage {
  @ApiProperty({ description: 'Records the tenant holds now' }) count: number;
  @ApiProperty({ type: Number, nullable: true, description: 'The cap; null: unlimited' }) limit: number | null;
}

export class RecordsUsage {
  @ApiProperty({ type: RecordUsage }) customers: RecordUsage;
  @ApiProperty({ type: RecordUsage }) audiences: RecordUsage;
  @ApiProperty({ type: RecordUsage }) campaigns: RecordUsage;
  @ApiProperty({ type: RecordUsage }) webhooks: RecordUsage;
}

export class UsageResponse {
  @ApiProperty({ type: ApiCallsUsage }) api_calls: ApiCallsUsage;
  @ApiProperty({ type: RecordsUsage }) records: RecordsUsage;
  @ApiProperty({ type: TrackedEventsUsage }) tracked_events: TrackedEventsUsage;
}
