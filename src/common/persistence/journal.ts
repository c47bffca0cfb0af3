import {
  recordActivities,
  type ActivityEntry,
  type ActivityEvent,
  type Actor,
  type Attributes,
} from '../activity/activity-log.writer.js';
import type { Sql } from './database.js';

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
  activity: { attributes: Attributes; old: Attributes | null; description?: string } | null;
}

/** What else a write's changes are recorded as, before its transaction commits (the change feed). */
export interface ChangeRecorder {
  record(sql: Sql, actor: Actor, changes: readonly RecordChange[]): Promise<void>;
}

/**
 * The changes one write makes, collected by the tables as they make them and written out together
 * at the end of the write, inside its transaction: the activity-log entries in a few multi-row
 * INSERTs, then whatever else records changes. A rolled-back write leaves no trace of either.
 */
export class Journal {
  private readonly changes: RecordChange[] = [];

  constructor(
    private readonly sql: Sql,
    private readonly actor: Actor,
    private readonly recorders: readonly ChangeRecorder[],
  ) {}

  record(change: RecordChange): void {
    this.changes.push(change);
  }

  /** Writes the activity entries and hands the changes to the recorders; called once, last in the transaction. */
  async flush(): Promise<void> {
    if (this.changes.length === 0) return;
    const entries: ActivityEntry[] = [];
    for (const change of this.changes) {
      if (!change.activity) continue;
      entries.push({
        subjectType: change.entityName,
        subjectId: change.row.id,
        tenantId: change.tenantId,
        event: change.event,
        description: change.activity.description,
        attributes: change.activity.attributes,
        old: change.activity.old,
      });
    }
    if (entries.length) await recordActivities(this.sql, this.actor, entries);
    for (const recorder of this.recorders) await recorder.record(this.sql, this.actor, this.changes);
  }
}
