import { createHash } from 'node:crypto';
import type { Dialect, SqlFragment } from './sql-compiler.js';

/**
 * Treatment assignment. A customer's bucket in a campaign is the first four bytes of
 * SHA-256("<campaign_id>:<customer_id>"), read as an unsigned big-endian integer, modulo 10,000.
 * The campaign's treatment groups, ordered by id, take consecutive bucket ranges from 0, each
 * `allocation_percentage × 100` buckets wide; a bucket past the last range is held out.
 */
export const BUCKETS = 10_000;

/** Name of the SQLite function `registerSqliteFunctions` adds; MariaDB computes the bucket natively. */
export const SQLITE_BUCKET_FUNCTION = 'campaign_bucket';

export type RecordId = number | string | bigint;

export interface TreatmentAllocation {
  id: RecordId;
  /** DECIMAL(5,2) as the driver returns it (a string on MariaDB) or as a number. */
  allocation_percentage: number | string;
}

export interface BucketRange {
  groupId: RecordId;
  /** First bucket of the range. */
  from: number;
  /** One past the last bucket (`from === to` for a 0 % group). */
  to: number;
}

/** An id as its decimal text; refuses anything that is not a non-negative whole number. */
function idText(id: RecordId): string {
  const text = typeof id === 'number' ? (Number.isSafeInteger(id) ? String(id) : '') : String(id);
  if (!/^\d+$/.test(text)) throw new Error(`Not a record id: ${String(id)}`);
  return text.replace(/^0+(?=\d)/, '');
}

export function bucketOf(campaignId: RecordId, customerId: RecordId): number {
  const digest = createHash('sha256')
    .update(`${idText(campaignId)}:${idText(customerId)}`)
    .digest();
  return digest.readUInt32BE(0) % BUCKETS;
}

/** Buckets of one allocation: `33.33` → 3333 (rounded, so binary fractions of DECIMAL strings do not matter). */
const bucketWidth = (allocation: number | string) => Math.max(0, Math.round(Number(allocation) * 100));

/** The groups' bucket ranges, groups ordered by id; ranges stop at the last bucket. */
export function bucketRanges(groups: TreatmentAllocation[]): BucketRange[] {
  const ordered = [...groups].sort((a, b) => {
    const [x, y] = [BigInt(idText(a.id)), BigInt(idText(b.id))];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  let from = 0;
  return ordered.map((group) => {
    const to = Math.min(BUCKETS, from + bucketWidth(group.allocation_percentage));
    const range = { groupId: group.id, from, to };
    from = to;
    return range;
  });
}

/** The group a bucket falls in, or null when it is held out. */
export function assignGroup(bucket: number, groups: TreatmentAllocation[]): RecordId | null {
  return bucketRanges(groups).find((range) => bucket >= range.from && bucket < range.to)?.groupId ?? null;
}

/**
 * The bucket of `<alias>.id` as SQL; its one parameter is the campaign id. MariaDB:
 * CONV(LEFT(SHA2(...), 8), 16, 10) is the first four bytes as an unsigned integer. SQLite has no
 * SHA-256: the expression calls the function `registerSqliteFunctions` puts on the connection.
 */
export function bucketSql(dialect: Dialect, alias: string, campaignId: RecordId): SqlFragment {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(alias)) throw new Error(`Not a table alias: ${alias}`);
  const campaign = idText(campaignId);
  return dialect === 'mysql'
    ? { sql: `(CONV(LEFT(SHA2(CONCAT(?, ':', ${alias}.id), 256), 8), 16, 10) % ${BUCKETS})`, params: [campaign] }
    : { sql: `${SQLITE_BUCKET_FUNCTION}(?, ${alias}.id)`, params: [campaign] };
}

/** The part of better-sqlite3's Database this module uses (TypeORM: `dataSource.driver.databaseConnection`). */
export interface SqliteFunctionHost {
  function(name: string, options: { deterministic: boolean }, fn: (...args: unknown[]) => unknown): unknown;
}

/**
 * Adds `campaign_bucket(campaign_id, customer_id)` to a better-sqlite3 connection: the same
 * bucket as `bucketOf`, deterministic. Registering again replaces it, so calling it before each
 * use is safe; TypeORM's better-sqlite3 driver keeps one connection.
 */
export function registerSqliteFunctions(db: SqliteFunctionHost): void {
  db.function(SQLITE_BUCKET_FUNCTION, { deterministic: true }, (campaignId, customerId) =>
    campaignId === null || customerId === null ? null : bucketOf(sqliteId(campaignId), sqliteId(customerId)),
  );
}

/** SQLite hands integers over as numbers (or bigints in safe-integer mode) and text as strings. */
function sqliteId(value: unknown): RecordId {
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'bigint') return value;
  throw new Error(`Not a record id: ${String(value)}`);
}

export interface AssignmentSummary {
  groups: { id: RecordId; customers: number }[];
  held_out: number;
}

/**
 * Folds per-bucket counts (`SELECT <bucketSql> AS bucket, COUNT(*) AS customers ... GROUP BY
 * bucket`) into per-group counts: the database computes each bucket once per customer and
 * returns at most 10,000 rows, whatever the ranges.
 */
export function summarizeBuckets(
  rows: { bucket: number | string; customers: number | string }[],
  groups: TreatmentAllocation[],
): AssignmentSummary {
  const ranges = bucketRanges(groups);
  const counts = new Map<RecordId, number>(ranges.map((range) => [range.groupId, 0]));
  let heldOut = 0;
  for (const row of rows) {
    const bucket = Number(row.bucket);
    const customers = Number(row.customers);
    const range = ranges.find((r) => bucket >= r.from && bucket < r.to);
    if (range) counts.set(range.groupId, counts.get(range.groupId)! + customers);
    else heldOut += customers;
  }
  return {
    groups: ranges.map((range) => ({ id: range.groupId, customers: counts.get(range.groupId)! })),
    held_out: heldOut,
  };
}
