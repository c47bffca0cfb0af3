import type { ColumnInfo } from '../schema-inspector.js';

const WORDS: Record<string, string> = { id: 'ID', uuid: 'UUID', url: 'URL', kpi: 'KPI', json: 'JSON' };

/** `tenant_id` → "Tenant", `created_at` → "Created At", `batch_uuid` → "Batch UUID". */
export function displayNameOf(columnName: string): string {
  const words = columnName.replace(/_id$/, '').split('_');
  return words.map((w) => WORDS[w] ?? w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}

/** An application-level type label derived from the column's name and storage type. */
export function appTypeOf(column: ColumnInfo): string {
  const type = column.db_type;
  if (column.auto_incrementing) return 'id';
  if (column.name.endsWith('_id')) return 'reference';
  if (column.name === 'email') return 'email';
  if (type.startsWith('tinyint(1)') || type === 'boolean') return 'boolean';
  if (/int/.test(type)) return 'integer';
  if (/decimal|numeric|float|double|real/.test(type)) return 'decimal';
  if (/timestamp|datetime/.test(type)) return 'datetime';
  if (type === 'date') return 'date';
  if (/text/.test(type)) return 'text';
  return 'string';
}
