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
  return toDate(value)?.toISOString() ?? null;
}
