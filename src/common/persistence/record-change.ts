import type { ActivityEvent, Attributes } from '../activity/activity-log.writer.js';

/** One change of one record, as the table that made it saw it. */
export interface RecordChange {
  /** The entity's name: `Campaign`, `Customer`, ... */
  entityName: string;
  /** The tenant the record belongs to (a tenant's own changes: its own id). */
  tenantId: number | null;
  event: ActivityEvent;
  /** The row after the change (created, updated) or as it was (deleted). */
  row: Record<string, unknown> & { id: number };
  /** Updated: the names of the fields that changed; otherwise empty. */
  fields: readonly string[];
  /**
   * The activity-log entry: attributes (created: every column; updated: the changed ones) and old
   * values (updated: the changed ones before; deleted: every column). Null when the write asked
   * for no entry per record (an import: one entry per job).
   */
  activity: { attributes: Attributes; old: Attributes | null; description?: string; properties?: Attributes } | null;
  /** Deleted: what the change feed's tombstone says beyond `{id, deleted_at}` (`reason: "merged"`). */
  tombstone?: Record<string, unknown>;
  /** Set by RecordCaps when the write counted this creation or deletion itself (under a limit). */
  counted?: boolean;
}

/** An event that is not a record's change (`webhook.disabled`, `webhook.test`), published with the write. */
export interface Announcement {
  tenantId: number;
  type: string;
  resource: string;
  resourceId: number;
  data: unknown;
}

/** Where the tables record the changes of one write (the write's Journal). */
export interface ChangeLog {
  record(change: RecordChange): void;
}
