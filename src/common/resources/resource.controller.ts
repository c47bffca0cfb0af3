import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Put, Query, type Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { PermissionName } from '../auth/permissions.js';
import { RequirePermission } from '../auth/require-permission.decorator.js';
import { ApiEnvelope } from '../openapi/api-envelope.decorator.js';
import { ApiIdParam, IdParam } from './id-param.js';
import type { ListQueryDto } from './list-query.dto.js';
import { resourceServiceToken } from './resource.providers.js';
import type { ResourceService } from './resource.service.js';
import { defineRoute } from './route-builder.js';

type Operation = 'list' | 'create' | 'get' | 'update' | 'delete';

/** 'campaign KPI' → 'CampaignKpi': operation ids read `listCampaignKpis`, `createCampaignKpi`, ... */
export const pascalCase = (words: string) =>
  words
    .split(/[\s-]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())
    .join('');

function operationIds([one, many]: [string, string], without: Operation[] = []): Partial<Record<Operation, string>> {
  const ids: Record<Operation, string> = {
    list: `list${pascalCase(many)}`,
    create: `create${pascalCase(one)}`,
    get: `get${pascalCase(one)}`,
    update: `update${pascalCase(one)}`,
    delete: `delete${pascalCase(one)}`,
  };
  for (const operation of without) delete (ids as Partial<Record<Operation, string>>)[operation];
  return ids;
}

export interface ResourceRoutes {
  /** Collection path, e.g. `marketing-programs` or `campaigns/:campaign_id/kpis`. */
  collection: string;
  /** Path parameter naming the parent in the collection path, e.g. `campaign_id`. */
  parentParam?: string;
  /** Item path, e.g. `campaign-kpis/:kpi_id`. */
  item: string;
  /** Path parameter naming the record in the item path. */
  itemParam: string;
}

export interface ResourceControllerOptions {
  /** The resource's definition; its ResourceService (see resourceService()) answers the routes. */
  definition: Type<unknown>;
  tag: string;
  /** Singular and plural names, for summaries and operation ids: ['campaign KPI', 'campaign KPIs']. */
  names: [string, string];
  /** Routes to leave out (INTERFACE.md has no read-one route for customer goals). */
  without?: Operation[];
  permissions: { view: PermissionName; manage: PermissionName };
  routes: ResourceRoutes;
  response: Type<unknown>;
  createDto: Type<object>;
  updateDto: Type<object>;
  listQuery: Type<ListQueryDto>;
  /** Further OpenAPI decorators for one operation (an answer particular to this resource). */
  extraDocs?: Partial<Record<Operation, MethodDecorator[]>>;
}

/**
 * Builds the thin controller of a resource: its routes, permissions, validation types and
 * OpenAPI metadata, each method one call into the generic ResourceService. Written once so that
 * no resource repeats the CRUD plumbing.
 */
export function createResourceController(options: ResourceControllerOptions): Type<unknown> {
  const { routes, names, permissions } = options;
  const operations = operationIds(names, options.without);
  const [one, many] = names;

  @ApiTags(options.tag)
  @Controller()
  class ResourceController {
    constructor(
      @Inject(resourceServiceToken(options.definition)) readonly service: ResourceService<never, unknown, object>,
    ) {}
  }

  const define = (
    operation: Operation,
    handler: (this: ResourceController, ...args: never[]) => unknown,
    decorators: MethodDecorator[],
    params: [ParameterDecorator, unknown][],
  ) => {
    const name = operations[operation];
    if (!name) return;
    defineRoute(ResourceController, name, {
      handler,
      decorators: [...decorators, ...(options.extraDocs?.[operation] ?? [])],
      params,
    });
  };

  const parent: [ParameterDecorator, unknown][] = routes.parentParam ? [[IdParam(routes.parentParam), Number]] : [];
  const parentDoc = routes.parentParam ? [ApiIdParam(routes.parentParam)] : [];
  const item: [ParameterDecorator, unknown] = [IdParam(routes.itemParam), Number];
  const itemDoc = ApiIdParam(routes.itemParam);

  define(
    'list',
    function (this: ResourceController, ...args: never[]) {
      return routes.parentParam ? this.service.list(args[1], args[0]) : this.service.list(args[0]);
    },
    [
      Get(routes.collection),
      RequirePermission(permissions.view),
      ...parentDoc,
      ApiOperation({ summary: `List ${many}` }),
      ApiEnvelope(options.response, { list: 'page' }),
    ],
    [...parent, [Query(), options.listQuery]],
  );
  define(
    'create',
    function (this: ResourceController, ...args: never[]) {
      return routes.parentParam ? this.service.create(args[1], args[0]) : this.service.create(args[0]);
    },
    [
      Post(routes.collection),
      HttpCode(201),
      RequirePermission(permissions.manage),
      ...parentDoc,
      ApiOperation({ summary: `Create a ${one}` }),
      ApiEnvelope(options.response, { status: 201 }),
    ],
    [...parent, [Body(), options.createDto]],
  );
  define(
    'get',
    function (this: ResourceController, id: never) {
      return this.service.get(id);
    },
    [
      Get(routes.item),
      RequirePermission(permissions.view),
      itemDoc,
      ApiOperation({ summary: `Read a ${one}` }),
      ApiEnvelope(options.response),
    ],
    [item],
  );
  define(
    'update',
    function (this: ResourceController, id: never, dto: never) {
      return this.service.update(id, dto);
    },
    [
      Put(routes.item),
      RequirePermission(permissions.manage),
      itemDoc,
      ApiOperation({ summary: `Update a ${one}` }),
      ApiEnvelope(options.response),
    ],
    [item, [Body(), options.updateDto]],
  );
  define(
    'delete',
    async function (this: ResourceController, id: never) {
      await this.service.delete(id);
      return null;
    },
    [
      Delete(routes.item),
      RequirePermission(permissions.manage),
      itemDoc,
      ApiOperation({ summary: `Delete a ${one}` }),
      ApiEnvelope(null),
    ],
    [item],
  );

  Object.defineProperty(ResourceController, 'name', { value: `${many.replace(/\W/g, '')}Controller` });
  return ResourceController;
}
