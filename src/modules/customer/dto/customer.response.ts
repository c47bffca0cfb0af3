import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../common/http/serialize.js';
import type { Customer } from '../entities/customer.entity.js';

export class CustomerResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty({ type: String, nullable: true }) external_id: string | null;
  @ApiProperty({ type: String, nullable: true }) first_name: string | null;
  @ApiProperty({ type: String, nullable: true }) last_name: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'email' }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) phone: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'JSON text, as sent' }) attributes: string | null;
  @ApiProperty() is_active: boolean;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'Read-only: when the customer unsubscribed through the link of an e-mail (left out of every later e-mail ' +
      'delivery); `DELETE /api/customers/{id}/unsubscribe` clears it.',
  })
  unsubscribed_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

export const toCustomerResponse = (customer: Customer): CustomerResponse => ({
  id: customer.id,
  tenant_id: customer.tenant_id,
  external_id: customer.external_id,
  first_name: customer.first_name,
  last_name: customer.last_name,
  email: customer.email,
  phone: customer.phone,
  attributes: customer.attributes,
  is_active: customer.is_active,
  unsubscribed_at: toIso(customer.unsubscribed_at),
  created_at: toIso(customer.created_at),
  updated_at: toIso(customer.updated_at),
});
