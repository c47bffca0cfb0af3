import type { SqlValue } from './database.js';
import { ValidationFailed } from '../http/api-exception.js';
import type { PageMeta } from '../http/page.js';
import { assertCursorValue, decodeCursor, encodeCursor, type CursorPosition } from './cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../resources/list-query.dto.js';
import { isoString } from '../http/serialize.js';

export type SortValueType = 'number' | 'string' | 'date';

/** A sort column's kind; `string|null` marks a nullable column (NULLs sort first ascending). */
export type SortFieldType = SortValueType | 'string|null';

/** Sort fields a list accepts: the public name → its value type. `id` is always allowed. */
export type SortFields = Readonly<Record<string, SortFieldType>>;

export interface ResolvedSort {
  key: string;
  field: string;
  type: SortValueType;
  nullable: boolean;
  direction: 'ASC' | 'DESC';
}

export function resolveSort(sort: string | undefined, fields: SortFields): ResolvedSort {
  const key = sort ?? '-id';
  const descending = key.startsWith('-');
  const field = descending ? key.slice(1) : key;
  const declared = field === 'id' ? 'number' : Object.hasOwn(fields, field) ? fields[field] : undefined;
  const type = declared === 'string|null' ? 'string' : declared;
  if (!type) {
    const allowed = ['id', ...Object.keys(fields)].join(', ');
    throw ValidationFailed.field(
      'sort',
      `The selected sort is invalid. Sort by one of: ${allowed} (prefix - for descending).`,
    );
  }
  return { key, field, type, nullable: declared === 'string|null', direction: descending ? 'DESC' : 'ASC' };
}

/** A SQL condition with its positional parameters. */
export interface Condition {
  sql: string;
  params: SqlValue[];
}

/** One page of a keyset list: how to read it, before the table adds its tenant scope. */
export interface PageRequest {
  sort: ResolvedSort;
  limit: number;
  /** Where the previous page ended, checked against the sort. */
  after?: CursorPosition;
  withTotal: boolean;
}

export function pageRequest(query: ListQueryDto, fields: SortFields): PageRequest {
  const sort = resolveSort(query.sort, fields);
  let after: CursorPosition | undefined;
  if (query.cursor) {
    after = decodeCursor(query.cursor, sort.key);
    if (sort.field !== 'id') assertCursorValue(after.value ?? null, sort.type, sort.nullable);
  }
  return { sort, limit: query.limit ?? DEFAULT_PAGE_SIZE, after, withTotal: query.with_total === true };
}

/**
 * "After the cursor" for (column, id), with NULLs where both databases put them: first when
 * ascending, last when descending.
 */
export function keysetCondition(
  column: string,
  idColumn: string,
  sort: ResolvedSort,
  after: CursorPosition,
): Condition {
  const op = sort.direction === 'ASC' ? '>' : '<';
  if (sort.field === 'id') return { sql: `${idColumn} ${op} ?`, params: [after.id] };
  const ascending = sort.direction === 'ASC';
  const raw = after.value ?? null;
  if (raw === null) {
    const sameNull = `(${column} IS NULL AND ${idColumn} ${op} ?)`;
    return { sql: ascending ? `(${sameNull} OR ${column} IS NOT NULL)` : sameNull, params: [after.id] };
  }
  const value = sort.type === 'date' && typeof raw === 'string' ? new Date(raw) : raw;
  const next = `(${column} ${op} ? OR (${column} = ? AND ${idColumn} ${op} ?))`;
  return { sql: ascending ? next : `(${next} OR ${column} IS NULL)`, params: [value, value, after.id] };
}

/** `ORDER BY` of a keyset list: the sort column, then id, in the same direction. */
export function keysetOrder(column: string, idColumn: string, sort: ResolvedSort): string {
  return sort.field === 'id'
    ? `${idColumn} ${sort.direction}`
    : `${column} ${sort.direction}, ${idColumn} ${sort.direction}`;
}

/** Where a row stands in its list: its sort value and its id. */
export type Position<E> = (row: E) => { value: unknown; id: number };

const ownPosition =
  (sort: ResolvedSort): Position<{ id: number }> =>
  (row) => ({ value: (row as Record<string, unknown>)[sort.field], id: Number(row.id) });

/** Trims the extra row a keyset query reads (LIMIT n + 1) and makes the next cursor. */
export function pageOf<E extends object>(
  rows: E[],
  request: PageRequest,
  total?: number,
  position: Position<E> = ownPosition(request.sort) as Position<E>,
): { rows: E[]; meta: PageMeta } {
  const hasMore = rows.length > request.limit;
  const pageRows = hasMore ? rows.slice(0, request.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  let nextCursor: string | null = null;
  if (hasMore && last) {
    const { value, id } = position(last);
    nextCursor = encodeCursor({ sort: request.sort.key, value: cursorValue(value, request.sort), id });
  }
  const meta: PageMeta = { limit: request.limit, next_cursor: nextCursor, has_more: hasMore };
  if (total !== undefined) meta.total = total;
  return { rows: pageRows, meta };
}

function cursorValue(value: unknown, sort: ResolvedSort): string | number | null {
  if (sort.field === 'id') return null;
  if (value instanceof Date) return isoString(value);
  if (sort.type === 'number' && typeof value === 'string') return Number(value);
  if (typeof value === 'number' || typeof value === 'string') return value;
  return null;
}
