import { Injectable, Module } from '@nestjs/common';
import { ValidationFailed } from '../../common/http/api-exception.js';
import { optional } from '../../common/resources/dto-values.js';
import type { ResourceDefinition, WriteContext } from '../../common/resources/resource-definition.js';
import { createResourceController } from '../../common/resources/resource.controller.js';
import { resourceService } from '../../common/resources/resource.providers.js';
import { CustomerDto, CustomerListQueryDto, CustomerResponse } from './dto/customer.dto.js';
import { Customer } from './entities/customer.entity.js';

@Injectable()
export class CustomersDefinition implements ResourceDefinition<Customer, unknown, CustomerDto> {
  entity = Customer;
  label = 'customer';
  sorts = { last_name: 'string|null', email: 'string|null', created_at: 'date' } as const;
  filters = { q: ['first_name', 'last_name', 'email', 'external_id'], exact: ['email', 'external_id', 'is_active'] };

  toColumns(dto: CustomerDto, existing?: Customer): Partial<Customer> {
    return {
      external_id: optional(dto.external_id, existing?.external_id, null),
      first_name: optional(dto.first_name, existing?.first_name, null),
      last_name: optional(dto.last_name, existing?.last_name, null),
      email: optional(dto.email, existing?.email, null),
      phone: optional(dto.phone, existing?.phone, null),
      attributes: optional(dto.attributes, existing?.attributes, null),
      is_active: optional(dto.is_active, existing?.is_active, true),
    };
  }

  /** `external_id` is unique within the tenant when given (an empty string is a value too, as in the index). */
  async validate(dto: CustomerDto, { manager, existing, repo }: WriteContext<Customer>): Promise<void> {
    if (dto.external_id === undefined || dto.external_id === null || dto.external_id === existing?.external_id) return;
    const qb = repo.query(manager).andWhere('customers.external_id = :externalId', { externalId: dto.external_id });
    if (existing) qb.andWhere('customers.id <> :id', { id: existing.id });
    if (await qb.getExists()) throw ValidationFailed.field('external_id', 'The external id has already been taken.');
  }
}

export const CustomersController = createResourceController({
  definition: CustomersDefinition,
  tag: 'Customers',
  names: ['customer', 'customers'],
  permissions: { view: 'customers.view', manage: 'customers.manage' },
  routes: { collection: 'customers', item: 'customers/:id', itemParam: 'id' },
  response: CustomerResponse,
  createDto: CustomerDto,
  updateDto: CustomerDto,
  listQuery: CustomerListQueryDto,
});

@Module({
  controllers: [CustomersController],
  providers: [...resourceService(CustomersDefinition)],
})
export class CustomerModule {}
