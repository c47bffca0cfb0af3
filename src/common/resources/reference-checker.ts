import { Injectable, type Type } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ValidationFailed } from '../http/api-exception.js';
import { RequestContext } from '../tenancy/request-context.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';
import { TenantScopedRepository } from './tenant-scoped.repository.js';

/** Body references (`audience_id`, `validation_rule_id`, ...) must name a live record of the caller's tenant. */
@Injectable()
export class ReferenceChecker {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly context: RequestContext,
  ) {}

  async find<E extends TenantOwnedEntity>(
    manager: EntityManager,
    entity: Type<E>,
    id: number,
    field: string,
  ): Promise<E> {
    const record = await new TenantScopedRepository(this.dataSource, entity, this.context).findById(id, manager);
    if (!record) throw ValidationFailed.field(field, `The selected ${field.replace(/_/g, ' ')} is invalid.`);
    return record;
  }
}
