import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../common/http/serialize.js';
import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { IdField, StringField } from '../../../common/fields/fields.js';
import type { ActivityLog } from '../../../common/activity/activity-log.entity.js';

export const ACTIVITY_EVENTS = ['created', 'updated', 'deleted'] as const;

export class ActivityLogQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, example: 'User', description: 'Entity name, e.g. User, Tenant, Campaign' })
  subject_type?: string;

  @IdField({ required: false })
  subject_id?: number;

  @IdField({ required: false })
  causer_id?: number;

  @StringField({ required: false, in: ACTIVITY_EVENTS })
  event?: string;
}

class ActivityProperties {
  @ApiProperty({ type: 'object', additionalProperties: true }) attributes: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) old: Record<string, unknown> | null;
  @ApiProperty({
    required: false,
    enum: [true],
    description: "Present on an erased customer's entries: their values are gone (attributes empty, old null)",
  })
  erased?: true;
}

export class ActivityLogResponse {
  @ApiProperty() id: number;
  @ApiProperty({ type: String, nullable: true, example: 'default' }) log_name: string | null;
  @ApiProperty({ example: 'updated' }) description: string;
  @ApiProperty({ type: String, nullable: true, example: 'User' }) subject_type: string | null;
  @ApiProperty({ type: Number, nullable: true }) subject_id: number | null;
  @ApiProperty({ type: String, nullable: true, enum: ACTIVITY_EVENTS }) event: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'user' }) causer_type: string | null;
  @ApiProperty({ type: Number, nullable: true }) causer_id: number | null;
  @ApiProperty({ type: ActivityProperties }) properties: ActivityProperties;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The request id (`x-request-id`) of the request that made the change',
  })
  batch_uuid: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
}

export function toActivityLogResponse(entry: ActivityLog): ActivityLogResponse {
  const properties: Partial<ActivityProperties> = entry.properties ? JSON.parse(entry.properties) : {};
  return {
    id: entry.id,
    log_name: entry.log_name,
    description: entry.description,
    subject_type: entry.subject_type,
    subject_id: entry.subject_id,
    event: entry.event,
    causer_type: entry.causer_type,
    causer_id: entry.causer_id,
    properties: Object.assign(
      { attributes: properties.attributes ?? {}, old: properties.old ?? null },
      properties.erased ? { erased: true as const } : {},
    ),
    batch_uuid: entry.batch_uuid,
    created_at: toIso(entry.created_at),
  };
}
