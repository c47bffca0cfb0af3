import { Column } from 'typeorm';

/**
 * Case-insensitive order and uniqueness that give the same answer on MySQL/MariaDB and SQLite.
 * A column whose sorts (or uniqueness) ignore case has a companion `<column>_key` holding the text
 * in lower case (JavaScript's full Unicode mapping), written by the table gateways with every
 * insert and update, and compared byte for byte on both databases (a binary, no-pad collation
 * on MySQL). Lists sort by the key, then id; the key never leaves the service (the response
 * mappers do not name it, the activity log leaves it out).
 */
export function sortKeyOf(text: unknown): string | null {
  return typeof text === 'string' ? text.toLowerCase() : null;
}

/** Characters of a key column: 255 characters lower-cased can grow (İ becomes i + U+0307). */
export const SORT_KEY_LENGTH = 512;

/** Entity class → (key column → the column it is the key of). */
const keysByEntity = new Map<object, Map<string, string>>();

/** Declares `<source>_key`: the lower-case key of `source` (see sortKeyOf). */
export function SortKeyColumn(source: string): PropertyDecorator {
  return (prototype, property) => {
    Column({ type: 'varchar', length: SORT_KEY_LENGTH, nullable: true })(prototype, property);
    const keys = keysByEntity.get(prototype.constructor) ?? new Map<string, string>();
    keys.set(String(property), source);
    keysByEntity.set(prototype.constructor, keys);
  };
}

/** The entity's key columns by source column (`name` → `name_key`), base classes included. */
export function sortKeysOf(entity: unknown): Map<string, string> {
  const bySource = new Map<string, string>();
  for (let c = entity; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    for (const [key, source] of keysByEntity.get(c) ?? []) if (!bySource.has(source)) bySource.set(source, key);
  }
  return bySource;
}
