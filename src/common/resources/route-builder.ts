import type { Type } from '@nestjs/common';

export interface RouteSpec {
  handler: (...args: never[]) => unknown;
  decorators: MethodDecorator[];
  /** Each parameter's decorator and its type (what TypeScript would emit as design:paramtypes). */
  params: readonly (readonly [ParameterDecorator, unknown])[];
}

/**
 * Adds a decorated method to a generated controller class, exactly as if it were written by
 * hand: the validation pipe and the OpenAPI explorer read the parameter types it records.
 */
export function defineRoute(controller: Type<unknown>, name: string, spec: RouteSpec): void {
  const proto = controller.prototype as Record<string, unknown>;
  // The OpenAPI operation id is the handler function's own name.
  Object.defineProperty(spec.handler, 'name', { value: name });
  Object.defineProperty(proto, name, { value: spec.handler, writable: true, configurable: true });
  Reflect.defineMetadata(
    'design:paramtypes',
    spec.params.map(([, type]) => type),
    proto,
    name,
  );
  spec.params.forEach(([decorator], index) => decorator(proto, name, index));
  const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
  const decorated = Reflect.decorate(spec.decorators, proto, name, descriptor) as PropertyDescriptor | undefined;
  Object.defineProperty(proto, name, decorated ?? descriptor);
}
