import type { INestApplication } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import type { FastifyContextConfig } from 'fastify';

/**
 * Adds settings to the route's fastify config. Nest's RouteConfig replaces the whole config, so
 * two of them on one route would lose one; these merge.
 */
export const RouteSettings =
  (settings: Partial<FastifyContextConfig>): MethodDecorator =>
  (_target, _key, descriptor) => {
    const handler = descriptor.value as object;
    const previous = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) ?? {}) as object;
    Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...previous, ...settings }, handler);
    return descriptor;
  };

/**
 * Puts each controller route's operation id (its method's name, as the OpenAPI document names it)
 * in its fastify config, so that what runs per request reads `config.operationId` instead of
 * looking it up. Runs once, after the application is created and before it registers its routes
 * (`app.init()`), which is when Nest copies a method's metadata to the route.
 */
export function nameOperations(app: INestApplication): void {
  const scanner = new MetadataScanner();
  for (const module of app.get(ModulesContainer).values()) {
    for (const controller of module.controllers.values()) {
      const prototype = (controller.metatype as { prototype?: Record<string, unknown> } | null)?.prototype;
      if (!prototype) continue;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        RouteSettings({ operationId: name })(prototype, name, { value: handler });
      }
    }
  }
}
