import type { ExecutionContext, Type } from '@nestjs/common';

/** A controller method, as Nest hands it to guards. */
type Handler = (...args: never[]) => unknown;

/**
 * What a guard derives from a route's decorator metadata, derived once per controller method:
 * the metadata never changes after start-up, and reading it through reflect-metadata on every
 * request took about 2 % of a GET's CPU (docs/performance.md). Kept per controller class too, since
 * a method inherited by two controllers is one function with two classes' decorators.
 */
export class RouteMetadataCache<T> {
  private readonly byController = new WeakMap<Type<unknown>, WeakMap<Handler, T>>();

  constructor(private readonly derive: (handler: Handler, controller: Type<unknown>) => T) {}

  of(context: ExecutionContext): T {
    const controller = context.getClass();
    const handler = context.getHandler() as Handler;
    let handlers = this.byController.get(controller);
    if (!handlers) {
      handlers = new WeakMap();
      this.byController.set(controller, handlers);
    }
    if (handlers.has(handler)) return handlers.get(handler) as T;
    const value = this.derive(handler, controller);
    handlers.set(handler, value);
    return value;
  }
}
