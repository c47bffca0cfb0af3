import { escape } from 'mysql2';
import type { SqlValue } from './sql-text.js';

/**
 * From this many rows, insertRows in a MySQL/MariaDB transaction sends the rows as LOAD DATA LOCAL
 * INFILE, where the server allows it (`local_infile`, on by default in MariaDB): tab-separated
 * values cost the server and the service less than the same values as SQL literals
 * (docs/bulk-data.md).
 */
export const LOAD_DATA_MIN_ROWS = 100;

/**
 * `LOAD DATA LOCAL INFILE` of rows sent by the client, as tab-separated lines in the server's
 * default format, spelled out. The file name is a placeholder: the connection answers the server's
 * request for it with the rows (mysql2's `infileStreamFactory`), never with a file.
 */
export function loadDataStatement(table: string, columns: readonly string[]): string {
  return (
    `LOAD DATA LOCAL INFILE 'rows' INTO TABLE \`${table}\` CHARACTER SET utf8mb4` +
    ` FIELDS TERMINATED BY '\\t' ENCLOSED BY '' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n'` +
    ` (${columns.map((column) => `\`${column}\``).join(', ')})`
  );
}

/** What the server reads back as the character itself after the escape character. */
const SPECIAL = /[\\\t\n\0]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\0': '\\0' };

/**
 * One field as LOAD DATA reads back the value mysql2 would have bound: NULL as `\N`, booleans as
 * 1/0, instants in UTC (the connections' `timezone: 'Z'`), text with its tab, newline, NUL and
 * backslash escaped.
 */
export function loadDataField(value: SqlValue | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return value.replace(SPECIAL, (character) => ESCAPED[character]);
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  const literal = escape(value, false, 'Z'); // an invalid date is NULL
  return literal.startsWith("'") ? literal.slice(1, -1) : '\\N';
}

/** The rows as the text a LOAD DATA of loadDataStatement reads: one line each. */
export function loadDataText(rows: readonly (readonly SqlValue[])[]): Buffer {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) text += (i === 0 ? '' : '\t') + loadDataField(row[i]);
    text += '\n';
  }
  return Buffer.from(text, 'utf8');
}
