import type { Provider, Type } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { RequestContext } from '../tenancy/request-context.js';
import type { ResourceDefinition } from './resource-definition.js';
import { ResourceService } from './resource.service.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';

/** The ResourceService of a definition class, registered under the definition's own name. */
export function resourceService<E extends TenantOwnedEntity>(
  definition: Type<ResourceDefinition<E, never, never>>,
  service: Type<ResourceService<E, any, any>> = ResourceService, // eslint-disable-line @typescript-eslint/no-explicit-any
): Provider[] {
  return [
    definition,
    {
      provide: resourceServiceToken(definition),
      inject: [getDataSourceToken(), RequestContext, definition, APP_CONFIG],
      useFactory: (
        dataSource: DataSource,
        context: RequestContext,
        def: ResourceDefinition<E, never, never>,
        config: AppConfig,
      ) => new service(dataSource, context, def, config),
    },
  ];
}

export const resourceServiceToken = (definition: Type<unknown>) => `ResourceService:${definition.name}`;
