import type { SqlValue } from './sql-text.js';

/** Rows for one table, each the values of `columns` in order. */
export interface RowsInsert {
  table: string;
  columns: readonly string[];
  rows: readonly (readonly SqlValue[])[];
}

/** The multi-row INSERT of `insert`: `INSERT INTO table (columns) VALUES (...), (...)` and its values. */
export function insertStatement({ table, columns, rows }: RowsInsert): { sql: string; params: SqlValue[] } {
  const row = `(${columns.map(() => '?').join(', ')})`;
  return {
    sql: `INSERT INTO \`${table}\` (${columns.map((column) => `\`${column}\``).join(', ')}) VALUES ${rows.map(() => row).join(', ')}`,
    params: rows.flat(),
  };
}

/** `rows` in slices of at most `size`. */
export function slices<T>(rows: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < rows.length; start += size) out.push(rows.slice(start, start + size));
  return out;
}
