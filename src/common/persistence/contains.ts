import type { Dialect } from './database.js';
import { sortKeyOf } from './sort-key.js';
import type { Condition } from './keyset.js';

// `!` rather than backslash: string literals treat a backslash differently on MySQL and SQLite.
const ESCAPE = '!';

/**
 * The column in lower case, compared byte for byte: MySQL's LOWER() under a binary collation
 * (the column's own collation would also equate accents and every emoji), and on SQLite the
 * `lower_unicode` function the connection registers (SQLite's lower() folds ASCII only).
 */
export const lowerCased = (column: string, dialect: Dialect) =>
  dialect === 'mysql' ? `LOWER(${column}) COLLATE utf8mb4_bin` : `lower_unicode(${column})`;

/** Any of the columns contains the term, regardless of case (`%` and `_` match themselves). */
export function containsCondition(columns: string[], term: string, dialect: Dialect): Condition {
  const pattern = `%${sortKeyOf(term)!.replace(/[!%_]/g, (c) => ESCAPE + c)}%`;
  return {
    sql: `(${columns.map((c) => `${lowerCased(c, dialect)} LIKE ? ESCAPE '${ESCAPE}'`).join(' OR ')})`,
    params: columns.map(() => pattern),
  };
}
