import { activityInserts, type ActivityEntry, type Actor } from '../activity/activity-log.writer.js';
import type { Sql } from './database.js';
import type { Announcement, ChangeLog, RecordChange } from './record-change.js';
import type { RowsInsert } from './rows-insert.js';
import { runTogether, type Statement } from './statement-batch.js';
import type { TenantReads } from './tenant-reads.js';

/** What a recorder gets of one write: its SQL (inside the transaction), who wrote, and reads of any tenant in it. */
export interface RecordedWrite {
  sql: Sql;
  actor: Actor;
  /** 1, or which run of the transaction this is (Database.transaction). */
  attempt: number;
  changes: readonly RecordChange[];
  announcements: readonly Announcement[];
  /** The tables of a tenant as this transaction sees them (read only). */
  readsOf(tenantId: number): TenantReads;
  /** Publishes an event with this write (a recorder that runs before the change feed: usage thresholds). */
  announce(announcement: Announcement): void;
  /** Statements that write what the recorder keeps, sent with the activity entries once every recorder ran. */
  send(...statements: (Statement | RowsInsert)[]): void;
}

/** What else a write's changes are recorded as, before its transaction commits (the change feed). */
export interface ChangeRecorder {
  record(write: RecordedWrite): Promise<void>;
  /** After a write that recorded changes has committed. */
  committed?(): void;
}

/**
 * The changes one write makes, collected by the tables as they make them and written out together
 * at the end of the write, inside its transaction: the activity-log entries in a few multi-row
 * INSERTs, then whatever else records changes. A rolled-back write leaves no trace of either.
 */
export class Journal implements ChangeLog {
  private readonly changes: RecordChange[] = [];
  private readonly announcements: Announcement[] = [];

  constructor(
    private readonly sql: Sql,
    private readonly actor: Actor,
    private readonly recorders: readonly ChangeRecorder[],
    private readonly attempt: number,
  ) {}

  get isEmpty(): boolean {
    return this.changes.length === 0 && this.announcements.length === 0;
  }

  record(change: RecordChange): void {
    this.changes.push(change);
  }

  announce(announcement: Announcement): void {
    this.announcements.push(announcement);
  }

  /**
   * Hands the changes to the recorders, then writes the activity entries and what the recorders
   * sent; called once, last in the transaction, whose COMMIT may go with them (runTogether's `last`).
   */
  async flush(readsOf: (tenantId: number) => TenantReads): Promise<void> {
    if (this.isEmpty) return;
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
        properties: change.activity.properties,
      });
    }
    // Nothing a recorder reads is written by these: they all go out last, in one round trip where the database allows.
    const statements: (Statement | RowsInsert)[] = activityInserts(this.actor, entries);
    const write: RecordedWrite = {
      sql: this.sql,
      actor: this.actor,
      attempt: this.attempt,
      changes: this.changes,
      announcements: this.announcements,
      readsOf,
      announce: (announcement) => this.announce(announcement),
      send: (...more) => statements.push(...more),
    };
    for (const recorder of this.recorders) await recorder.record(write);
    await runTogether(this.sql, statements, { last: true });
  }
}
