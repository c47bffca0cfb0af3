import type { FieldErrors } from '../http/api-exception.js';

/** One row of an upsert: the values it writes and, to update a row by its id, that id. */
export interface UpsertRow<E> {
  id?: number;
  values: { [K in keyof E & string]?: E[K] | null };
}

export type UpsertOutcome =
  { status: 'created' | 'updated' | 'unchanged'; id: number } | { status: 'failed'; errors: FieldErrors };

/** The row that holds a key, and the key as it is stored. */
export interface KeyHolder {
  id: number;
  stored: string;
}

const label = (column: string) => column.replace(/_/g, ' ');

/** The messages of an upsert's refusals, as the single-record routes word them. */
export const duplicateValue = (column: string) => `The ${label(column)} field has a duplicate value.`;
export const alreadyTaken = (column: string) => `The ${label(column)} has already been taken.`;
export const UNKNOWN_ID = 'The selected id is invalid.';

export interface UpsertPlan {
  /** Decided already: the rows that fail on a duplicate or a taken key. */
  outcomes: (UpsertOutcome | undefined)[];
  /** Per row, the id of the row it updates (by its id, or by its key's holder); undefined: a create. */
  target: (number | undefined)[];
  /** Every id some row updates: the rows to read under lock. */
  targets: number[];
}

/**
 * Which rows of an upsert update which existing row, and which fail before anything is written:
 * the later of two rows with one key, or aimed at the same row, fails on that key (or on `id`); a
 * row naming an `id` whose key another row holds fails on the key.
 */
export function planUpserts<E>(
  rows: readonly UpsertRow<E>[],
  key: string,
  holders: ReadonlyMap<string, KeyHolder>,
): UpsertPlan {
  const outcomes: (UpsertOutcome | undefined)[] = new Array(rows.length).fill(undefined);
  const target: (number | undefined)[] = new Array(rows.length).fill(undefined);
  const fail = (i: number, field: string, message: string) =>
    (outcomes[i] = { status: 'failed', errors: { [field]: [message] } });
  const seenKeys = new Set<string>();
  const claimedBy = new Map<number, number>();
  rows.forEach((row, i) => {
    const value = (row.values as Record<string, unknown>)[key];
    const keyValue = typeof value === 'string' ? value : undefined;
    if (keyValue !== undefined) {
      if (seenKeys.has(keyValue)) return fail(i, key, duplicateValue(key));
      seenKeys.add(keyValue);
    }
    const holder = keyValue === undefined ? undefined : holders.get(keyValue);
    if (row.id !== undefined && holder && holder.id !== row.id) return fail(i, key, alreadyTaken(key));
    const id = row.id ?? holder?.id;
    if (id === undefined) return;
    if (claimedBy.has(id))
      return row.id !== undefined ? fail(i, 'id', duplicateValue('id')) : fail(i, key, duplicateValue(key));
    claimedBy.set(id, i);
    target[i] = id;
  });
  return { outcomes, target, targets: [...claimedBy.keys()] };
}
