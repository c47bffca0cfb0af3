import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Query, type Provider, type Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import type { PermissionName } from '../auth/permissions.js';
import { RequirePermission } from '../auth/require-permission.decorator.js';
import { RecordNotFound, ValidationFailed } from '../http/api-exception.js';
import type { Page } from '../http/page.js';
import { ApiEnvelope } from '../openapi/api-envelope.decorator.js';
import { RequestContext } from '../tenancy/request-context.js';
import { ApiIdParam, IdParam } from './id-param.js';
import { paginate, resolveSort } from './keyset-paginator.js';
import { recordMapper } from './record-mapper.js';
import type { ResourceService } from './resource.service.js';
import { ListQueryDto } from './list-query.dto.js';
import type { ParentDefinition } from './resource-definition.js';
import { pascalCase } from './resource.controller.js';
import { defineRoute } from './route-builder.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';
import { TenantScopedRepository } from './tenant-scoped.repository.js';

const LINK_SORTS = { created_at: 'date' } as const;

/** A link between a campaign (the owner) and another record (the target), with its own fields. */
export interface AssociationDefinition<A extends TenantOwnedEntity, Dto extends object, R, T extends object = object> {
  entity: Type<A>;
  owner: ParentDefinition;
  /** The column naming the target, and the target's own resource service (its records, its tenant scope). */
  target: { column: string; label: string };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  targets: ResourceService<any, T>;
  /** The same target may be linked once per owner (a second link is a 422 on the target column). */
  unique: boolean;
  targetId(dto: Dto): number;
  toColumns(dto: Dto): Partial<A>;
  validate?(dto: Dto, context: { manager: EntityManager; ownerId: number }): Promise<void>;
  /** One item of the answer, from the link's record and its target's record. */
  present(link: Record<string, unknown>, target: T): R;
}

/**
 * List, create and remove the links of one owner. Links whose target is soft-deleted vanish
 * from every read. Each write is one transaction with the owner row locked.
 */
export class AssociationService<A extends TenantOwnedEntity, Dto extends object, R> {
  private readonly links: TenantScopedRepository<A>;
  private readonly owners: TenantScopedRepository<TenantOwnedEntity>;
  private readonly toLinkRecord: (link: A) => Record<string, unknown>;

  constructor(
    private readonly dataSource: DataSource,
    context: RequestContext,
    private readonly definition: AssociationDefinition<A, Dto, R>,
  ) {
    this.links = new TenantScopedRepository(dataSource, definition.entity, context);
    this.owners = new TenantScopedRepository(dataSource, definition.owner.entity, context);
    this.toLinkRecord = recordMapper(dataSource.getMetadata(definition.entity));
  }

  async list(ownerId: number, query: ListQueryDto): Promise<Page<R>> {
    await this.findOwner(ownerId);
    const { definition } = this;
    const sort = resolveSort(query.sort, LINK_SORTS);
    const qb = this.links
      .listQuery(sort.field, false)
      .andWhere(`${this.links.alias}.${definition.owner.column} = :ownerId`, { ownerId });
    this.joinLiveTarget(qb);
    return paginate(qb, query, LINK_SORTS, (rows) => this.respond(rows));
  }

  async create(ownerId: number, dto: Dto): Promise<R> {
    const { definition } = this;
    const link = await this.dataSource.transaction(async (manager) => {
      await this.findOwner(ownerId, manager, true);
      const targetId = definition.targetId(dto);
      const target = await definition.targets.repo.findById(targetId, manager);
      const field = definition.target.column;
      if (!target) throw ValidationFailed.field(field, `The selected ${field.replace(/_/g, ' ')} is invalid.`);
      if (definition.unique) {
        const taken = await this.linksOf(ownerId, manager)
          .andWhere(`${this.links.alias}.${field} = :targetId`, { targetId })
          .getExists();
        if (taken) {
          throw ValidationFailed.field(
            field,
            `The ${definition.target.label} is already associated with this ${definition.owner.label}.`,
          );
        }
      }
      await definition.validate?.(dto, { manager, ownerId });
      return this.links.insert(
        { ...definition.toColumns(dto), [definition.owner.column]: ownerId, [field]: targetId } as never,
        manager,
      );
    });
    return (await this.respond([link]))[0];
  }

  /** DELETE /owners/{id}/targets/{target_id}: removes the owner's link to that target. */
  async removeByTarget(ownerId: number, targetId: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.findOwner(ownerId, manager);
      const link = await this.linksOf(ownerId, manager)
        .andWhere(`${this.links.alias}.${this.definition.target.column} = :targetId`, { targetId })
        .getOne();
      if (!link) throw new RecordNotFound(`${this.definition.target.label} of this ${this.definition.owner.label}`);
      await this.links.remove(link, manager);
    });
  }

  /** DELETE /links/{id}: removes a link by its own key. */
  async removeById(id: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const link = await this.links.findById(id, manager);
      if (!link) throw new RecordNotFound(`${this.definition.target.label} association`);
      await this.links.remove(link, manager);
    });
  }

  /** Each link with its target's record; one query for the targets of a whole page. */
  private async respond(links: A[]): Promise<R[]> {
    const { targets, target, present } = this.definition;
    const ids = links.map((link) => Number((link as Record<string, unknown>)[target.column]));
    const records = await targets.respond(await targets.findMany(ids));
    const byId = new Map(records.map((record) => [Number((record as { id?: unknown }).id), record]));
    return links.map((link, index) => present(this.toLinkRecord(link), byId.get(ids[index])!));
  }

  /** The owner's links whose target still exists (a soft-deleted target's links vanish). */
  private linksOf(ownerId: number, manager: EntityManager) {
    const qb = this.links
      .query(manager)
      .andWhere(`${this.links.alias}.${this.definition.owner.column} = :ownerId`, { ownerId });
    return this.joinLiveTarget(qb);
  }

  private joinLiveTarget<Q extends SelectQueryBuilder<A>>(qb: Q): Q {
    const targetEntity = this.definition.targets.definition.entity;
    const deleted = this.dataSource.getMetadata(targetEntity).deleteDateColumn;
    if (deleted) {
      qb.innerJoin(
        targetEntity,
        'target',
        `target.id = ${this.links.alias}.${this.definition.target.column} AND target.${deleted.propertyName} IS NULL`,
      );
    }
    return qb;
  }

  private async findOwner(ownerId: number, manager?: EntityManager, lock = false): Promise<void> {
    const owner = lock
      ? await this.owners.findByIdForUpdate(ownerId, manager!)
      : await this.owners.findById(ownerId, manager);
    if (!owner) throw new RecordNotFound(this.definition.owner.label);
  }
}

export const associationServiceToken = (definition: Type<unknown>) => `AssociationService:${definition.name}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyAssociationDefinition = AssociationDefinition<any, any, unknown, any>;

export function associationService(definition: Type<AnyAssociationDefinition>): Provider[] {
  return [
    definition,
    {
      provide: associationServiceToken(definition),
      inject: [getDataSourceToken(), RequestContext, definition],
      useFactory: (
        dataSource: DataSource,
        context: RequestContext,
        def: AssociationDefinition<never, never, unknown>,
      ) => new AssociationService(dataSource, context, def),
    },
  ];
}

export interface AssociationControllerOptions {
  definition: Type<unknown>;
  tag: string;
  /** ['audience', 'audiences'] */
  names: [string, string];
  permissions: { view: PermissionName; manage: PermissionName };
  /** e.g. `campaigns/:campaign_id/audiences` */
  collection: string;
  ownerParam: string;
  /** Removal by target (`campaigns/:campaign_id/audiences/:audience_id`) or by the link's own id. */
  remove: { path: string; param: string; by: 'target' | 'id' };
  response: Type<unknown>;
  createDto: Type<object>;
}

/** The three routes of a campaign association, each one call into AssociationService. */
export function createAssociationController(options: AssociationControllerOptions): Type<unknown> {
  const [one, many] = options.names;
  const operations = {
    list: `listCampaign${pascalCase(many)}`,
    create: `addCampaign${pascalCase(one)}`,
    remove: `removeCampaign${pascalCase(one)}`,
  };

  @ApiTags(options.tag)
  @Controller()
  class AssociationController {
    constructor(
      @Inject(associationServiceToken(options.definition)) readonly service: AssociationService<never, object, unknown>,
    ) {}
  }

  const owner = IdParam(options.ownerParam);
  defineRoute(AssociationController, operations.list, {
    handler(this: AssociationController, ownerId: number, query: ListQueryDto) {
      return this.service.list(ownerId, query);
    },
    decorators: [
      Get(options.collection),
      RequirePermission(options.permissions.view),
      ApiIdParam(options.ownerParam),
      ApiOperation({ summary: `List the ${many} of a campaign` }),
      ApiEnvelope(options.response, { list: 'page' }),
    ],
    params: [
      [owner, Number],
      [Query(), ListQueryDto],
    ],
  });
  defineRoute(AssociationController, operations.create, {
    handler(this: AssociationController, ownerId: number, dto: object) {
      return this.service.create(ownerId, dto);
    },
    decorators: [
      Post(options.collection),
      HttpCode(201),
      RequirePermission(options.permissions.manage),
      ApiIdParam(options.ownerParam),
      ApiOperation({ summary: `Associate a ${one} with a campaign` }),
      ApiEnvelope(options.response, { status: 201 }),
    ],
    params: [
      [owner, Number],
      [Body(), options.createDto],
    ],
  });
  const byTarget = options.remove.by === 'target';
  defineRoute(AssociationController, operations.remove, {
    async handler(this: AssociationController, ...ids: number[]) {
      if (byTarget) await this.service.removeByTarget(ids[0], ids[1]);
      else await this.service.removeById(ids[0]);
      return null;
    },
    decorators: [
      Delete(options.remove.path),
      RequirePermission(options.permissions.manage),
      ...(byTarget ? [ApiIdParam(options.ownerParam)] : []),
      ApiIdParam(options.remove.param),
      ApiOperation({ summary: `Remove a ${one} from a campaign` }),
      ApiEnvelope(null),
    ],
    params: [...(byTarget ? [[owner, Number] as const] : []), [IdParam(options.remove.param), Number]],
  });

  Object.defineProperty(AssociationController, 'name', { value: `Campaign${many.replace(/\W/g, '')}Controller` });
  return AssociationController;
}
