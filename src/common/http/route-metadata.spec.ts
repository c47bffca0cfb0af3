import type { ExecutionContext } from '@nestjs/common';
import { RouteMetadataCache } from './route-metadata.js';

class Base {
  shared(): void {}
}
class First extends Base {
  own(): void {}
}
class Second extends Base {}

const contextOf = (controller: object, handler: () => void) =>
  ({ getClass: () => controller, getHandler: () => handler }) as unknown as ExecutionContext;

describe('RouteMetadataCache', () => {
  it('derives a route once and answers the same value afterwards', () => {
    const derive = jest.fn((handler: { name: string }) => handler.name);
    const cache = new RouteMetadataCache(derive);
    expect(cache.of(contextOf(First, First.prototype.own))).toBe('own');
    expect(cache.of(contextOf(First, First.prototype.own))).toBe('own');
    expect(derive).toHaveBeenCalledTimes(1);
  });

  it('keeps an inherited method apart per controller', () => {
    const derive = jest.fn((_handler: unknown, controller: { name: string }) => controller.name);
    const cache = new RouteMetadataCache(derive);
    expect(cache.of(contextOf(First, Base.prototype.shared))).toBe('First');
    expect(cache.of(contextOf(Second, Base.prototype.shared))).toBe('Second');
    expect(derive).toHaveBeenCalledTimes(2);
  });

  it('remembers a derived undefined or false instead of deriving it again', () => {
    const derive = jest.fn(() => undefined);
    const cache = new RouteMetadataCache(derive);
    cache.of(contextOf(First, First.prototype.own));
    cache.of(contextOf(First, First.prototype.own));
    expect(derive).toHaveBeenCalledTimes(1);
  });
});
