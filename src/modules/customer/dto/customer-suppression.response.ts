import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../common/http/serialize.js';
import {
  SUPPRESSION_KINDS,
  type CustomerSuppression,
  type SuppressionKind,
} from '../entities/customer-suppression.entity.js';

/** An entry of the suppression list: what kind of value, never the value. */
export class CustomerSuppressionResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty({ enum: SUPPRESSION_KINDS }) kind: SuppressionKind;
  @ApiProperty({ type: Number, nullable: true, description: 'The user who requested the erasure' })
  created_by: number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
}

export const toCustomerSuppressionResponse = (entry: CustomerSuppression): CustomerSuppressionResponse => ({
  id: entry.id,
  tenant_id: entry.tenant_id,
  kind: entry.kind,
  created_by: entry.created_by,
  created_at: toIso(entry.created_at),
});
