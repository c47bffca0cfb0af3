import type { EntityMetadata, ObjectLiteral } from 'typeorm';
import { toIso } from '../http/serialize.js';

const FIRST = ['id', 'tenant_id'];
const LAST = ['created_at', 'updated_at'];

type Convert = (value: unknown) => unknown;

const toNumber: Convert = (v) => (v === null || v === undefined ? null : Number(v));
const toBool: Convert = (v) => (v === null || v === undefined ? null : Boolean(Number(v)));
const toIsoString: Convert = (v) => toIso(v as Date | string | null);

function converterFor(type: unknown): Convert | undefined {
  const name = typeof type === 'string' ? type : typeof type === 'function' ? type.name.toLowerCase() : '';
  if (['decimal', 'numeric', 'bigint', 'int', 'integer', 'float', 'double', 'number'].includes(name)) return toNumber;
  if (name === 'boolean') return toBool;
  if (['datetime', 'timestamp', 'date'].includes(name)) return toIsoString;
  return undefined;
}

/**
 * Builds, once per entity, the function that turns a row into its JSON record: DECIMAL and
 * BIGINT as numbers, booleans as true/false, dates as ISO 8601 UTC; soft-delete markers and
 * the listed hidden columns never leave. Fields come as id, tenant_id, the rest, timestamps.
 */
export function recordMapper<R = Record<string, unknown>>(metadata: EntityMetadata, hidden: string[] = []) {
  const deleteDate = metadata.deleteDateColumn?.propertyName;
  const columns = metadata.columns
    .filter((c) => c.propertyName !== deleteDate && !hidden.includes(c.propertyName))
    .map((c) => ({ name: c.propertyName, convert: converterFor(c.type) }));
  const rank = (name: string) =>
    FIRST.includes(name) ? FIRST.indexOf(name) - 10 : LAST.includes(name) ? 10 + LAST.indexOf(name) : 0;
  columns.sort((a, b) => rank(a.name) - rank(b.name));
  return (row: ObjectLiteral): R => {
    const record: Record<string, unknown> = {};
    for (const { name, convert } of columns) {
      const value = row[name] === undefined ? null : row[name];
      record[name] = convert ? convert(value) : value;
    }
    return record as R;
  };
}
