import { Column, type ColumnOptions } from 'typeorm';

/**
 * A column the service keeps for its own use, not part of the record's state: it never leaves the
 * service (the response mappers do not name it), the activity log leaves it out, and a write that
 * changes only such columns is no change of the record (no activity entry, no event).
 */
export function InternalColumn(options: ColumnOptions): PropertyDecorator {
  return (prototype, property) => {
    Column(options)(prototype, property);
    const columns = internalByEntity.get(prototype.constructor) ?? new Set<string>();
    columns.add(String(property));
    internalByEntity.set(prototype.constructor, columns);
  };
}

/**
 * A counter the service increments for its own use: writes that must conflict claim it
 * (`campaigns.allocation_version`), and caches keep copies under it (`campaigns.selection_version`,
 * `users.access_version`).
 */
export const VersionCounterColumn = (): PropertyDecorator =>
  InternalColumn({ type: 'int', unsigned: true, default: 0 });

const internalByEntity = new Map<object, Set<string>>();

/** The entity's internal columns, base classes included. */
export function internalColumnsOf(entity: unknown): Set<string> {
  const columns = new Set<string>();
  for (let c = entity; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    for (const column of internalByEntity.get(c) ?? []) columns.add(column);
  }
  return columns;
}
