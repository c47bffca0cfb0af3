import type { DataSource, EntityManager, ObjectLiteral } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { RecordNotFound } from '../http/api-exception.js';
import type { Page } from '../http/page.js';
import { RequestContext } from '../tenancy/request-context.js';
import { paginate, resolveSort } from './keyset-paginator.js';
import type { ListQueryDto } from './list-query.dto.js';
import { recordMapper } from './record-mapper.js';
import type { ResourceDefinition } from './resource-definition.js';
import { whereContains } from './search.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';
import { TenantScopedRepository } from './tenant-scoped.repository.js';

/**
 * Get, keyset list, create, update and delete of one tenant-owned resource, all through the
 * tenant-scoped repository; each write is one transaction. Resources differ only in their
 * ResourceDefinition.
 */
export class ResourceService<E extends TenantOwnedEntity, R = Record<string, unknown>, Dto extends object = object> {
  readonly repo: TenantScopedRepository<E>;
  private readonly parentRepo?: TenantScopedRepository<TenantOwnedEntity>;
  private readonly toRecord: (row: E) => R;

  constructor(
    protected readonly dataSource: DataSource,
    context: RequestContext,
    readonly definition: ResourceDefinition<E, R, Dto>,
    protected readonly config?: AppConfig,
  ) {
    this.repo = new TenantScopedRepository(dataSource, definition.entity, context);
    if (definition.parent) this.parentRepo = new TenantScopedRepository(dataSource, definition.parent.entity, context);
    this.toRecord = recordMapper<R>(dataSource.getMetadata(definition.entity));
  }

  async list(query: ListQueryDto & ObjectLiteral, parentId?: number): Promise<Page<R>> {
    const { definition } = this;
    if (parentId !== undefined) await this.findParent(parentId);
    const filtered =
      Boolean(query.q) || (definition.filters?.exact ?? []).some((column) => query[column] !== undefined);
    const qb = this.repo.listQuery(resolveSort(query.sort, definition.sorts).field, filtered);
    if (definition.parent && parentId !== undefined) {
      qb.andWhere(`${qb.alias}.${definition.parent.column} = :parentId`, { parentId });
    }
    if (definition.filters?.q && query.q) whereContains(qb, definition.filters.q, String(query.q));
    for (const column of definition.filters?.exact ?? []) {
      if (query[column] !== undefined) qb.andWhere(`${qb.alias}.${column} = :${column}`, { [column]: query[column] });
    }
    return paginate(qb, query, definition.sorts, (rows) => this.respond(rows));
  }

  async get(id: number): Promise<R> {
    return (await this.respond([await this.find(id)]))[0];
  }

  async create(dto: Dto, parentId?: number): Promise<R> {
    const record = await this.dataSource.transaction(async (manager) => {
      if (parentId !== undefined) await this.findParent(parentId, manager, true);
      const context = { manager, parentId, repo: this.repo };
      await this.definition.validate?.(dto, context);
      const values = {
        ...this.definition.toColumns(dto),
        ...(this.definition.parent && parentId !== undefined ? { [this.definition.parent.column]: parentId } : {}),
      };
      const saved = await this.repo.insert(values as never, manager);
      await this.definition.afterWrite?.(saved, dto, context);
      return saved;
    });
    // Answer exactly what a GET will answer (stored values, related data from decorate()).
    return this.get(record.id);
  }

  async update(id: number, dto: Dto): Promise<R> {
    await this.dataSource.transaction(async (manager) => {
      const existing = await this.find(id, manager);
      const parentId = this.definition.parent
        ? Number((existing as ObjectLiteral)[this.definition.parent.column])
        : undefined;
      if (parentId !== undefined) await this.findParent(parentId, manager, true);
      const context = { manager, existing, parentId, repo: this.repo };
      await this.definition.validate?.(dto, context);
      Object.assign(existing, this.definition.toColumns(dto, existing));
      const saved = await this.repo.save(existing, manager);
      await this.definition.afterWrite?.(saved, dto, context);
    });
    return this.get(id);
  }

  async delete(id: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const record = await this.find(id, manager);
      await this.definition.beforeDelete?.(record, manager);
      await this.repo.remove(record, manager);
    });
  }

  async find(id: number, manager?: EntityManager): Promise<E> {
    const record = await this.repo.findById(id, manager);
    if (!record) throw new RecordNotFound(this.definition.label);
    return record;
  }

  /** Records of the caller's tenant by id (for answers that embed them), in one query. */
  async findMany(ids: number[], manager?: EntityManager): Promise<E[]> {
    if (ids.length === 0) return [];
    return this.repo
      .query(manager)
      .andWhere(`${this.repo.alias}.id IN (:...ids)`, { ids: [...new Set(ids.map(Number))] })
      .getMany();
  }

  /** The parent in the caller's tenant; on writes its row is locked so that sums over siblings stay true. */
  private async findParent(parentId: number, manager?: EntityManager, lock = false): Promise<TenantOwnedEntity> {
    const parent = lock
      ? await this.parentRepo!.findByIdForUpdate(parentId, manager!)
      : await this.parentRepo!.findById(parentId, manager);
    if (!parent) throw new RecordNotFound(this.definition.parent!.label);
    return parent;
  }

  async respond(rows: E[]): Promise<R[]> {
    const responses = rows.map(this.toRecord);
    await this.definition.decorate?.(rows, responses, this.dataSource.manager);
    return responses;
  }
}
