import type { SqlValue } from './sql-text.js';

/** Rows for one table, each the values of `columns` in order. */
export interface RowsInsert {
  table: string;
  columns: readonly string[];
  rows: readonly (readonly SqlValue[])[];
}

/** `INSERT INTO table (columns) VALUES ` and one row's placeholders, kept per columns list (most are constants). */
const insertHeads = new WeakMap<readonly string[], { table: string; head: string; row: string; oneRow: string }>();

/** The multi-row INSERT of `insert`: `INSERT INTO table (columns) VALUES (...), (...)` and its values. */
export function insertStatement({ table, columns, rows }: RowsInsert): { sql: string; params: SqlValue[] } {
  let parts = insertHeads.get(columns);
  if (parts?.table !== table) {
    const head = `INSERT INTO \`${table}\` (${columns.map((column) => `\`${column}\``).join(', ')}) VALUES `;
    const row = `(${columns.map(() => '?').join(', ')})`;
    parts = { table, head, row, oneRow: head + row };
    insertHeads.set(columns, parts);
  }
  const params: SqlValue[] = [];
  for (const row of rows) for (const value of row) params.push(value);
  return { sql: rows.length === 1 ? parts.oneRow : parts.head + Array(rows.length).fill(parts.row).join(', '), params };
}

/** `rows` in slices of at most `size`. */
export function slices<T>(rows: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < rows.length; start += size) out.push(rows.slice(start, start + size));
  return out;
}
