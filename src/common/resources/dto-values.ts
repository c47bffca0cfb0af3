import { parseDateLike } from '../fields/fields.js';

/** A validated date field as the Date to store, in whole seconds as MySQL DATETIME keeps it on every database. */
export const dateValue = (value: string): Date => new Date(Math.floor(parseDateLike(value)!.getTime() / 1000) * 1000);

/**
 * An optional field of a body: the value sent (null included), else the record's current value
 * on update, else the default on create. Nothing a client left out is lost.
 */
export function optional<V>(sent: V | undefined, current: V | undefined, fallback: V): V {
  if (sent !== undefined) return sent;
  return current !== undefined ? current : fallback;
}

/** A number as DECIMAL(p, scale) stores it (SQLite would otherwise keep 0.1 + 0.2 unrounded). */
export const decimal = (value: number, scale = 2): number => Number(value.toFixed(scale));
