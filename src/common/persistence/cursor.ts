import { ValidationFailed } from '../http/api-exception.js';

export interface CursorPosition {
  /** The sort the page was read with, e.g. "-id" or "name". */
  sort: string;
  /** Sort value of the last row of the page (absent when sorting by id). */
  value?: string | number | null;
  id: number;
}

/** The text a cursor can be (base64url, as encodeCursor writes it, up to the length a list query takes). */
export const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,1024}$/;

/** Opaque to clients: base64url of a small JSON object. */
export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.sort, position.value ?? null, position.id]), 'utf8').toString(
    'base64url',
  );
}

/** Decodes a cursor made for this sort; anything else is a 422 on `cursor`. */
export function decodeCursor(cursor: string, sort: string): CursorPosition {
  const invalid = () => ValidationFailed.field('cursor', 'The cursor is invalid.');
  if (!CURSOR_TEXT.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw invalid();
  const [cursorSort, value, id] = parsed as [unknown, unknown, unknown];
  if (cursorSort !== sort) {
    throw ValidationFailed.field('cursor', 'The cursor belongs to a different sort order.');
  }
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw invalid();
  if (value !== null && typeof value !== 'string' && typeof value !== 'number') throw invalid();
  return { sort: cursorSort, value, id };
}

/** The cursor's value must be of the sort column's kind (a date cursor holds an ISO instant). */
export function assertCursorValue(value: unknown, type: 'number' | 'string' | 'date', nullable: boolean): void {
  const fits =
    (value === null && nullable) ||
    (type === 'number' && typeof value === 'number' && Number.isFinite(value)) ||
    (type === 'string' && typeof value === 'string') ||
    (type === 'date' &&
      typeof value === 'string' &&
      /^\d{4}-\d{2}-\d{2}T/.test(value) &&
      !Number.isNaN(Date.parse(value)));
  if (!fits) throw ValidationFailed.field('cursor', 'The cursor is invalid.');
}
