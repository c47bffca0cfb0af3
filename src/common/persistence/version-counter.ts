import { Column } from 'typeorm';

/**
 * A counter the service increments for its own use, not part of the record's state: writes that
 * must conflict claim it (`campaigns.allocation_version`), and caches keep copies under it
 * (`campaigns.selection_version`, `users.access_version`). It never leaves the service: the
 * response mappers do not name it, and the activity log leaves it out (TableSpec.loggedColumns).
 */
export function VersionCounterColumn(): PropertyDecorator {
  return (prototype, property) => {
    Column({ type: 'int', unsigned: true, default: 0 })(prototype, property);
    const counters = countersByEntity.get(prototype.constructor) ?? new Set<string>();
    counters.add(String(property));
    countersByEntity.set(prototype.constructor, counters);
  };
}

const countersByEntity = new Map<object, Set<string>>();

/** The entity's counter columns, base classes included. */
export function versionCountersOf(entity: unknown): Set<string> {
  const counters = new Set<string>();
  for (let c = entity; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    for (const column of countersByEntity.get(c) ?? []) counters.add(column);
  }
  return counters;
}
