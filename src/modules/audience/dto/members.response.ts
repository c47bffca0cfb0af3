import { ApiProperty } from '@nestjs/swagger';
import { CustomerResponse } from '../../customer/dto/customer.response.js';

export class AudienceCountResponse {
  @ApiProperty({ description: 'Customers of the tenant the audience (or sub-audience) selects now' }) count: number;
  @ApiProperty({ description: 'False when no rule names a field and operator: the audience selects nobody' })
  evaluable: boolean;
  @ApiProperty({ type: String, format: 'date-time', description: 'The instant within_last_days counted back from' })
  computed_at: string;
}

export class AudiencePreviewResponse {
  @ApiProperty() count: number;
  @ApiProperty() evaluable: boolean;
  @ApiProperty({ type: [CustomerResponse], description: 'The first 10 members, newest first' })
  customers: CustomerResponse[];
}

export interface MemberCount {
  count: number;
  evaluable: boolean;
  computedAt: Date;
}

export const toAudienceCountResponse = (result: MemberCount): AudienceCountResponse => ({
  count: result.count,
  evaluable: result.evaluable,
  computed_at: result.computedAt.toISOString(),
});

export const toAudiencePreviewResponse = (
  result: MemberCount,
  customers: CustomerResponse[],
): AudiencePreviewResponse => ({
  count: result.count,
  evaluable: result.evaluable,
  customers,
});
