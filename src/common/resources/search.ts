import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

// `!` rather than backslash: string literals treat a backslash differently on MySQL and SQLite.
const ESCAPE = '!';

/** Narrows a query to rows where any of the columns contains the term (`%` and `_` match themselves). */
export function whereContains<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
  columns: string[],
  term: string,
): void {
  const pattern = `%${term.replace(/[!%_]/g, (c) => ESCAPE + c)}%`;
  const alias = qb.alias;
  qb.andWhere(`(${columns.map((c) => `${alias}.${c} LIKE :contains ESCAPE '${ESCAPE}'`).join(' OR ')})`, {
    contains: pattern,
  });
}
