import { Inject } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource, DeepPartial, EntityManager, EntityTarget, SelectQueryBuilder } from 'typeorm';
import { RequestContext } from '../tenancy/request-context.js';
import { listIndexName } from './list-index.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';

/**
 * The one gate to tenant-owned tables: every read is filtered by the request's tenant and
 * every write is stamped with it (or refused when the record belongs to another tenant).
 * Services never write `tenant_id = ...` themselves; with no tenant in context it throws.
 */
export class TenantScopedRepository<E extends TenantOwnedEntity> {
  constructor(
    private readonly dataSource: DataSource,
    readonly entity: EntityTarget<E>,
    private readonly context: RequestContext,
  ) {}

  get alias(): string {
    return this.dataSource.getMetadata(this.entity).tableName;
  }

  /**
   * A query over this tenant's rows only. `index` names the index that serves the list order:
   * MariaDB 10.11 otherwise may walk the primary key past every newer row of other tenants.
   */
  query(manager: EntityManager = this.dataSource.manager, alias = this.alias, index?: string): SelectQueryBuilder<E> {
    const qb = manager
      .createQueryBuilder(this.entity, alias)
      .where(`${alias}.tenant_id = :tenantId`, { tenantId: this.context.tenantId() });
    if (index && this.dataSource.options.type === 'mysql') qb.useIndex(index);
    return qb;
  }

  /**
   * A list of this tenant's rows sorted by `sortField`. Unfiltered, it names the sort's own index;
   * a filtered list leaves the choice to the optimizer, since each filter has an index of its own.
   */
  listQuery(sortField: string, filtered: boolean, manager?: EntityManager): SelectQueryBuilder<E> {
    return this.query(manager, this.alias, filtered ? undefined : listIndexName(this.alias, sortField));
  }

  findById(id: number, manager?: EntityManager): Promise<E | null> {
    return this.query(manager).andWhere(`${this.alias}.id = :id`, { id }).getOne();
  }

  /** Reads and locks the row until the transaction ends (MySQL; SQLite serialises writers anyway). */
  findByIdForUpdate(id: number, manager: EntityManager): Promise<E | null> {
    const qb = this.query(manager).andWhere(`${this.alias}.id = :id`, { id });
    if (this.dataSource.options.type === 'mysql') qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  /** Creates and saves a record in the caller's tenant. */
  async insert(values: DeepPartial<E>, manager: EntityManager = this.dataSource.manager): Promise<E> {
    const entity = manager.create(this.entity, { ...values, tenant_id: this.context.tenantId() } as DeepPartial<E>);
    return manager.save(this.entity, entity);
  }

  /** Saves changes to a record read through this repository. */
  async save(entity: E, manager: EntityManager = this.dataSource.manager): Promise<E> {
    this.assertOwned(entity);
    return manager.save(this.entity, entity);
  }

  /** Deletes the record, or marks it deleted when the entity is soft-deleted (`deleted_at`). */
  async remove(entity: E, manager: EntityManager = this.dataSource.manager): Promise<void> {
    this.assertOwned(entity);
    if (this.dataSource.getMetadata(this.entity).deleteDateColumn) await manager.softRemove(this.entity, entity);
    else await manager.remove(this.entity, entity);
  }

  private assertOwned(entity: E): void {
    if (Number(entity.tenant_id) !== this.context.tenantId()) {
      throw new Error('Refusing to write a record of another tenant.');
    }
  }
}

/** Builds the tenant-scoped repository of an entity (used by module providers). */
export const tenantScoped = <E extends TenantOwnedEntity>(entity: EntityTarget<E>) => ({
  provide: repositoryToken(entity),
  inject: [getDataSourceToken(), RequestContext],
  useFactory: (dataSource: DataSource, context: RequestContext) =>
    new TenantScopedRepository(dataSource, entity, context),
});

export const repositoryToken = (entity: EntityTarget<unknown>) =>
  `TenantScopedRepository:${typeof entity === 'function' ? entity.name : String(entity)}`;

/** Injects the tenant-scoped repository of an entity provided with `tenantScoped(Entity)`. */
export const InjectTenantRepository = (entity: EntityTarget<unknown>) => Inject(repositoryToken(entity));
