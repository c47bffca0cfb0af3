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
