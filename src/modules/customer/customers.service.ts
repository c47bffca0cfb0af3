import { Injectable } from '@nestjs/common';
import { optional } from '../../common/resources/dto-values.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import { CustomerRules } from './customer-rules.js';
import type { CustomerDto } from './dto/customer.dto.js';
import { toCustomerResponse, type CustomerResponse } from './dto/customer.response.js';
import { Customer } from './entities/customer.entity.js';

/**
 * `external_id` is unique within the tenant when given (an empty string is a value too): the unique
 * index decides, and AllExceptionsFilter answers a duplicate 422 on external_id, so a write needs no
 * lookup before it. A value on the suppression list (an erased person's) is refused: 422 on its field.
 */
@Injectable()
export class CustomersService extends ResourceService<Customer, CustomerDto, CustomerResponse> {
  constructor(tables: Tables, rules: CustomerRules) {
    super(tables, {
      entity: Customer,
      resource: 'customer',
      label: 'customer',
      sorts: { last_name: 'string|null', email: 'string|null', created_at: 'date' },
      filters: { q: ['first_name', 'last_name', 'email', 'external_id'], exact: ['email', 'external_id', 'is_active'] },
      toResponse: toCustomerResponse,
      // An erased person's e-mail address or external id is refused, sent anew (a value kept as it was is no new one).
      validate: async (dto, { tx, existing }) => {
        const sent = {
          email: dto.email !== existing?.email ? dto.email : undefined,
          external_id: dto.external_id !== existing?.external_id ? dto.external_id : undefined,
        };
        await rules.check(tx, sent);
      },
      // Every field optional: a PUT changes only the fields it sends.
      toColumns: (dto, existing) => ({
        external_id: optional(dto.external_id, existing?.external_id, null),
        first_name: optional(dto.first_name, existing?.first_name, null),
        last_name: optional(dto.last_name, existing?.last_name, null),
        email: optional(dto.email, existing?.email, null),
        phone: optional(dto.phone, existing?.phone, null),
        attributes: optional(dto.attributes, existing?.attributes, null),
        is_active: optional(dto.is_active, existing?.is_active, true),
      }),
    });
  }
}
