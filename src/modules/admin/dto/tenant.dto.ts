import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../common/http/serialize.js';
import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { BooleanField, StringField } from '../../../common/fields/fields.js';
import type { Tenant } from '../../auth/entities/tenant.entity.js';

export class TenantDto {
  @StringField({ max: 255, example: 'Acme' })
  name: string;

  @StringField({ required: false, nullable: true, max: 255 })
  description?: string | null;

  @BooleanField({ required: false, description: 'false locks every user of the tenant out' })
  is_active?: boolean;
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
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

export const toTenantResponse = (tenant: Tenant): TenantResponse => ({
  id: tenant.id,
  name: tenant.name,
  description: tenant.description,
  is_active: tenant.is_active,
  created_at: toIso(tenant.created_at),
  updated_at: toIso(tenant.updated_at),
});
