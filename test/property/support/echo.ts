import { isDeepStrictEqual } from 'node:util';
import { instant } from './bodies.js';
import { isIdSchema, type Schema } from './openapi-operations.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const TRUE_FORMS = [true, 1, '1', 'true'];

/**
 * What the API stores and answers for a value it accepted. These are the only normalizations a
 * 2xx may apply (API-CONVENTIONS §3, §6 and docs/design-decisions.md):
 * - e-mail fields (`format: email`): trimmed and lower-cased;
 * - dates (`format: date-time`): the same instant, to the whole second, answered as ISO 8601 UTC
 *   (`YYYY-MM-DD` is midnight UTC; a date-time without an offset is UTC); compared as instants;
 * - numbers (`number`, `integer`, id references): JSON numbers; a numeric string is read as the
 *   number it spells; -0 is 0; a `number` field (every one is a DECIMAL(…, 2) column) is stored at two
 *   decimals, so float noise within the two-decimals rule's tolerance is rounded (0.1 + 0.2 → 0.3);
 * - booleans: `true`, `1`, `"1"`, `"true"` are true; `false`, `0`, `"0"`, `"false"` are false;
 * - arrays of names (roles): a set, so order and repeats do not matter;
 * - everything else, JSON-string fields included: exactly what was sent, code unit for code unit.
 */
export function normalize(schema: Schema, sent: unknown): unknown {
  if (sent === null || sent === undefined) return sent;
  if (schema.format === 'email' && typeof sent === 'string') return sent.trim().toLowerCase();
  if (schema.format === 'date-time' && typeof sent === 'string') return instant(sent);
  if (schema.type === 'number' || schema.type === 'integer' || isIdSchema(schema)) {
    const n = typeof sent === 'string' ? Number(sent) : (sent as number);
    const stored = schema.type === 'number' ? Number(n.toFixed(2)) : n;
    return stored === 0 ? 0 : stored;
  }
  if (schema.type === 'boolean') return TRUE_FORMS.includes(sent as never);
  if (schema.type === 'array' && !schema.items?.properties && Array.isArray(sent)) {
    return [...new Set(sent.map((item) => normalize(schema.items ?? {}, item)))].sort();
  }
  return sent;
}

/** The answered form of a value, as comparable with `normalize(sent)`; undefined when its form is wrong. */
function answered(schema: Schema, value: unknown): unknown {
  if (value === null) return null;
  if (schema.format === 'date-time')
    return typeof value === 'string' && ISO_UTC.test(value) ? Date.parse(value) : undefined;
  if (schema.type === 'number' || schema.type === 'integer' || isIdSchema(schema)) {
    return typeof value === 'number' ? value : undefined;
  }
  if (schema.type === 'boolean') return typeof value === 'boolean' ? value : undefined;
  if (schema.type === 'array' && !schema.items?.properties) {
    return Array.isArray(value) ? [...new Set(value)].sort() : undefined;
  }
  return value;
}

const show = (v: unknown) => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length} chars)` : text;
};

/**
 * The fields of `sent` (those the request schema documents and the record has) whose stored value
 * is not what was sent, after `normalize`. Objects in arrays (audience rules) compare member by
 * member, in order.
 */
export function echoDifferences(
  request: Schema,
  record: Schema | undefined,
  sent: unknown,
  stored: unknown,
  path = '',
): string[] {
  if (request.type === 'array' && request.items?.properties && Array.isArray(sent)) {
    if (!Array.isArray(stored) || stored.length !== sent.length)
      return [`${path}: sent ${show(sent)}, stored ${show(stored)}`];
    return sent.flatMap((item, i) => echoDifferences(request.items!, record?.items, item, stored[i], `${path}.${i}`));
  }
  if (request.properties && sent !== null && typeof sent === 'object' && !Array.isArray(sent)) {
    const storedObject = (stored ?? {}) as Record<string, unknown>;
    return Object.entries(sent as Record<string, unknown>).flatMap(([key, value]) => {
      const field = request.properties![key];
      if (!field || !Object.hasOwn(request.properties!, key)) return []; // unknown keys are ignored
      if (record && !record.properties?.[key]) return []; // write-only (password) or not part of the record
      return echoDifferences(field, record?.properties?.[key], value, storedObject[key], path ? `${path}.${key}` : key);
    });
  }
  const want = normalize(request, sent);
  const got = answered(request, stored);
  return isDeepStrictEqual(got, want) ? [] : [`${path}: sent ${show(sent)}, stored ${show(stored)}`];
}
