/**
 * A stored instant as a Date. Drivers hand timestamps over as Date objects (mysql2) or as
 * `YYYY-MM-DD HH:MM:SS.SSS` text in UTC (SQLite); both mean the same instant.
 */
export function toDate(value: Date | string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  const date =
    value instanceof Date
      ? value
      : new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** ISO 8601 UTC (`...Z`), as every record's timestamps are returned. */
export function toIso(value: Date | string | null | undefined): string | null {
  const date = toDate(value);
  return date && isoString(date);
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/**
 * `date.toISOString()`, built from the UTC fields: V8's toISOString takes about 0.9 µs, this about
 * 0.2 µs, and a page of 25 customers formats 50 instants (docs/performance.md). Years outside
 * 1000 to 9999, which toISOString writes differently, go to it.
 */
export function isoString(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return date.toISOString();
  return `${year}-${TWO_DIGITS[date.getUTCMonth() + 1]}-${TWO_DIGITS[date.getUTCDate()]}T${TWO_DIGITS[date.getUTCHours()]}:${TWO_DIGITS[date.getUTCMinutes()]}:${TWO_DIGITS[date.getUTCSeconds()]}.${THREE_DIGITS[date.getUTCMilliseconds()]}Z`;
}
