import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../common/http/serialize.js';
import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { BooleanField, NestedField, NumberField, StringField } from '../../../common/fields/fields.js';
import { limitColumn, limitsOf, LIMIT_NAMES, type TenantLimits } from '../../../common/usage/tenant-limits.js';
import type { Tenant } from '../../auth/entities/tenant.entity.js';

/** A plan limit: a positive integer, or null for unlimited (MySQL's BIGINT UNSIGNED holds far more than JSON's safe integers). */
const limit = (description: string) =>
  NumberField({ required: false, nullable: true, integer: true, min: 1, max: Number.MAX_SAFE_INTEGER, description });

export class TenantLimitsDto {
  @limit('Authenticated API calls per UTC day (429 beyond)')
  api_calls_per_day?: number | null;

  @limit('Customers the tenant may hold (403 on a create beyond)')
  customers?: number | null;

  @limit('Audiences the tenant may hold')
  audiences?: number | null;

  @limit('Campaigns the tenant may hold')
  campaigns?: number | null;

  @limit('Webhook endpoints the tenant may hold')
  webhooks?: number | null;

  @limit('Customer events `POST /api/track` may store per UTC day (an item beyond fails alone)')
  tracked_events_per_day?: number | null;
}

export class TenantLimitsResponse {
  @ApiProperty({ type: Number, nullable: true }) api_calls_per_day: number | null;
  @ApiProperty({ type: Number, nullable: true }) customers: number | null;
  @ApiProperty({ type: Number, nullable: true }) audiences: number | null;
  @ApiProperty({ type: Number, nullable: true }) campaigns: number | null;
  @ApiProperty({ type: Number, nullable: true }) webhooks: number | null;
  @ApiProperty({ type: Number, nullable: true }) tracked_events_per_day: number | null;
}

export class TenantDto {
  @StringField({ max: 255, example: 'Acme' })
  name: string;

  @StringField({ required: false, nullable: true, max: 255 })
  description?: string | null;

  @BooleanField({ required: false, description: 'false locks every user of the tenant out' })
  is_active?: boolean;

  @NestedField(() => TenantLimitsDto, {
    required: false,
    description: 'The plan: each limit a positive integer, or null for unlimited; a limit not sent stays as it is',
  })
  limits?: TenantLimitsDto;
}

export class TenantListQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of the name' })
  q?: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class TenantResponse {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ type: TenantLimitsResponse, description: 'The plan (null: unlimited)' }) limits: TenantLimitsResponse;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

export const toTenantResponse = (tenant: Tenant): TenantResponse => ({
  id: tenant.id,
  name: tenant.name,
  description: tenant.description,
  is_active: tenant.is_active,
  limits: limitsOf(tenant as unknown as Record<string, unknown>),
  created_at: toIso(tenant.created_at),
  updated_at: toIso(tenant.updated_at),
});

/** The tenant's limit columns for the limits a body sends (a limit not sent: not changed). */
export function limitColumns(limits: TenantLimitsDto | undefined): Partial<Record<string, number | null>> {
  const columns: Partial<Record<string, number | null>> = {};
  for (const name of LIMIT_NAMES) {
    const value = (limits as Partial<TenantLimits> | undefined)?.[name];
    if (value !== undefined) columns[limitColumn(name)] = value;
  }
  return columns;
}
