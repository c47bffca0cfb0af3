import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ValidationFailed } from '../http/api-exception.js';
import { Page, type PageMeta } from '../http/page.js';
import { assertCursorValue, decodeCursor, encodeCursor } from './cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from './list-query.dto.js';

export type SortValueType = 'number' | 'string' | 'date';

/** A sort column's kind; `string|null` marks a nullable column (NULLs sort first ascending). */
export type SortFieldType = SortValueType | 'string|null';

/** Sort fields a list accepts: the public name → its column and value type. `id` is always allowed. */
export type SortFields = Record<string, SortFieldType>;

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
  const declared = field === 'id' ? 'number' : fields[field];
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

/**
 * Keyset pagination: the page after a cursor is found by comparing (sort value, id) with the
 * cursor's, so every page costs an index range read, never an OFFSET scan. The query's
 * where-clauses (tenant, parent, filters) must already be on the builder.
 */
export async function paginate<E extends ObjectLiteral, R>(
  qb: SelectQueryBuilder<E>,
  query: ListQueryDto,
  fields: SortFields,
  toResponses: (rows: E[]) => R[] | Promise<R[]>,
): Promise<Page<R>> {
  const sort = resolveSort(query.sort, fields);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const alias = qb.alias;
  const total = query.with_total ? await qb.clone().getCount() : undefined;

  if (query.cursor) {
    const position = decodeCursor(query.cursor, sort.key);
    if (sort.field === 'id') {
      qb.andWhere(`${alias}.id ${sort.direction === 'ASC' ? '>' : '<'} :cursorId`, { cursorId: position.id });
    } else {
      assertCursorValue(position.value ?? null, sort.type, sort.nullable);
      qb.andWhere(
        ...keysetCondition(`${alias}.${sort.field}`, `${alias}.id`, sort, position.value ?? null, position.id),
      );
    }
  }
  if (sort.field !== 'id')
    qb.orderBy(`${alias}.${sort.field}`, sort.direction).addOrderBy(`${alias}.id`, sort.direction);
  else qb.orderBy(`${alias}.id`, sort.direction);
  const rows = await qb.limit(limit + 1).getMany();

  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  const meta: PageMeta = {
    limit,
    next_cursor:
      hasMore && last ? encodeCursor({ sort: sort.key, value: sortValue(last, sort), id: Number(last.id) }) : null,
    has_more: hasMore,
  };
  if (total !== undefined) meta.total = total;
  return new Page(await toResponses(pageRows), meta);
}

function sortValue(row: ObjectLiteral, sort: ResolvedSort): string | number | null {
  if (sort.field === 'id') return null;
  const value: unknown = row[sort.field];
  if (value instanceof Date) return value.toISOString();
  // DECIMAL arrives as a string from mysql2; the cursor keeps the number the sort compares.
  if (sort.type === 'number' && typeof value === 'string') return Number(value);
  if (typeof value === 'number' || typeof value === 'string') return value;
  return null;
}

/**
 * "After the cursor" for (column, id), with NULLs where both databases put them: first when
 * ascending, last when descending.
 */
export function keysetCondition(
  column: string,
  idColumn: string,
  sort: ResolvedSort,
  value: string | number | null,
  id: number,
): [string, Record<string, unknown>] {
  const ascending = sort.direction === 'ASC';
  const op = ascending ? '>' : '<';
  const params = {
    cursorValue: sort.type === 'date' && typeof value === 'string' ? new Date(value) : value,
    cursorId: id,
  };
  if (value === null) {
    const sameNull = `(${column} IS NULL AND ${idColumn} ${op} :cursorId)`;
    return [ascending ? `(${sameNull} OR ${column} IS NOT NULL)` : sameNull, params];
  }
  const after = `(${column} ${op} :cursorValue OR (${column} = :cursorValue AND ${idColumn} ${op} :cursorId))`;
  return [ascending ? after : `(${after} OR ${column} IS NULL)`, params];
}
