import type { Dialect, SqlValue } from './database.js';

/**
 * Rows of parameters as a derived table `(...) AS alias` with the given column names, for
 * set-based statements over many items (one lookup, one UPDATE ... JOIN). MySQL/MariaDB: a
 * UNION ALL of SELECTs (works on both); SQLite: a VALUES list (a UNION of more than 500
 * SELECTs is beyond SQLite's compound-select limit).
 */
export function valuesTable(
  dialect: Dialect,
  columns: readonly string[],
  rows: readonly (readonly SqlValue[])[],
  alias: string,
): { sql: string; params: SqlValue[] } {
  const params = rows.flat();
  const placeholders = `(${columns.map(() => '?').join(', ')})`;
  if (dialect === 'sqlite') {
    const names = columns.map((c, i) => `column${i + 1} AS ${c}`).join(', ');
    return { sql: `(SELECT ${names} FROM (VALUES ${rows.map(() => placeholders).join(', ')})) AS ${alias}`, params };
  }
  const first = `SELECT ${columns.map((c) => `? AS ${c}`).join(', ')}`;
  const rest = rows.slice(1).map(() => ` UNION ALL SELECT ${columns.map(() => '?').join(', ')}`);
  return { sql: `(${first}${rest.join('')}) AS ${alias}`, params };
}
