import type { AuthContext } from '../auth/auth-context.js';
import { USER_MODEL_TYPE } from '../auth/auth-user.js';
import { wholeSecondNow } from '../persistence/columns.js';
import type { Sql, SqlValue } from '../persistence/database.js';
import { slices, type RowsInsert } from '../persistence/rows-insert.js';
import { runTogether } from '../persistence/statement-batch.js';
import { isoString } from '../http/serialize.js';

export type ActivityEvent = 'created' | 'updated' | 'deleted';
export type Attributes = Record<string, unknown>;

export interface ActivityEntry {
  /** The entity's name: `Campaign`, `User`, `Tenant`, ... */
  subjectType: string;
  subjectId: number | null;
  /** The tenant the subject belongs to (a tenant's own entries: its own id). */
  tenantId: number | null;
  event: ActivityEvent;
  /** What happened, when it says more than the event (a password reset); the event otherwise. */
  description?: string;
  /** Created: every column; updated: the changed columns; deleted: nothing. */
  attributes: Attributes;
  /** Updated: the changed columns' previous values; deleted: every column; created: none. */
  old: Attributes | null;
  /** The entry's whole properties instead of `{attributes, old}` (an erased record's: `{erased: true}`). */
  properties?: Attributes;
}

/** The causer and the batch (the request id) of an entry; a change without a signed-in user has no causer. */
export type Actor = Pick<AuthContext, 'requestId' | 'job'> & { user?: Pick<AuthContext['user'], 'id'> };

/** Columns never written to the log, whatever the table. */
export const NEVER_LOGGED = new Set(['password', 'remember_token', 'token', 'secret', 'previous_secret']);

/**
 * Writes one activity-log entry in the transaction of what it records (an import job's summary,
 * when the job ends). Every change of a record is logged through the write's Journal instead.
 */
export function recordActivity(tx: Sql, actor: Actor, entry: ActivityEntry): Promise<void> {
  return recordActivities(tx, actor, [entry]);
}

/** Rows of one multi-row INSERT: 12 parameters each, well under the placeholder limits of both databases. */
const ENTRIES_PER_STATEMENT = 2000;

/** The columns of an entry's row, as activityValues gives them. */
const ACTIVITY_COLUMNS = [
  'log_name',
  'description',
  'subject_type',
  'subject_id',
  'event',
  'causer_type',
  'causer_id',
  'properties',
  'batch_uuid',
  'tenant_id',
  'created_at',
  'updated_at',
];

/**
 * Writes entries of one actor in the same transaction as the changes they record, so that the log
 * holds exactly the changes that were committed. The write's Journal (src/common/persistence/journal.ts)
 * writes them for every change the tables made; nothing else writes the log but recordActivity.
 */
export async function recordActivities(tx: Sql, actor: Actor, entries: readonly ActivityEntry[]): Promise<void> {
  await runTogether(tx, activityInserts(actor, entries));
}

/** The rows that write `entries` (a write's Journal sends them with its events: runTogether). */
export function activityInserts(actor: Actor, entries: readonly ActivityEntry[]): RowsInsert[] {
  const now = wholeSecondNow();
  return slices(entries, ENTRIES_PER_STATEMENT).map((slice) => ({
    table: 'activity_log',
    columns: ACTIVITY_COLUMNS,
    rows: slice.map((entry) => activityValues(actor, entry, now)),
  }));
}

/** The values of an entry's row, in the order of ACTIVITY_COLUMNS. */
function activityValues(actor: Actor, entry: ActivityEntry, now: Date): SqlValue[] {
  return [
    'default',
    entry.description ?? entry.event,
    entry.subjectType,
    entry.subjectId,
    entry.event,
    // A user id 0 is the service itself (systemAuth): no causer.
    actor.user?.id ? USER_MODEL_TYPE : null,
    actor.user?.id || null,
    JSON.stringify(
      entry.properties ??
        (entry.old === null ? { attributes: entry.attributes } : { attributes: entry.attributes, old: entry.old }),
    ),
    actor.requestId,
    entry.tenantId,
    now,
    now,
  ];
}

/** A row's loggable values, as the API shows them: dates in ISO 8601; secrets left out. */
export function loggable(row: Record<string, unknown>, columns?: Iterable<string>): Attributes {
  const attributes: Attributes = {};
  for (const column of columns ?? Object.keys(row)) {
    if (NEVER_LOGGED.has(column)) continue;
    const value = row[column];
    attributes[column] = value instanceof Date ? isoString(value) : (value ?? null);
  }
  return attributes;
}

/** What an erased record's entries say instead of their properties. */
export const ERASED_PROPERTIES = JSON.stringify({ erased: true });

/**
 * An erasure's step through the log: the properties of up to `limit` entries about these subjects
 * of the tenant, after entry `afterId`, become `{"erased": true}` (event and date stay). Answers
 * the last entry it looked at (null when there are no more) and how many it changed.
 */
export async function forgetActivity(
  sql: Sql,
  subject: { tenantId: number; type: string; ids: readonly number[] },
  afterId: number,
  limit: number,
): Promise<{ lastId: number | null; forgotten: number }> {
  const rows = await sql.query<{ id: number | string }>(
    `SELECT id FROM activity_log
      WHERE tenant_id = ? AND subject_type = ? AND subject_id IN (${subject.ids.map(() => '?').join(', ')}) AND id > ?
      ORDER BY id LIMIT ${limit}`,
    [subject.tenantId, subject.type, ...subject.ids, afterId],
  );
  if (rows.length === 0) return { lastId: null, forgotten: 0 };
  const ids = rows.map((row) => Number(row.id));
  const { affected } = await sql.run(
    `UPDATE activity_log SET properties = ? WHERE id IN (${ids.map(() => '?').join(', ')}) AND properties <> ?`,
    [ERASED_PROPERTIES, ...ids, ERASED_PROPERTIES],
  );
  return { lastId: ids[ids.length - 1], forgotten: affected };
}
