import { Injectable } from '@nestjs/common';
import type { Actor } from '../activity/activity-log.writer.js';
import type { SqlValue, TransactionOptions } from '../persistence/database.js';
import { InsertIds, insertedIds } from '../persistence/insert-ids.js';
import type { ChangeRecorder, RecordedWrite } from '../persistence/journal.js';
import type { RecordChange } from '../persistence/record-change.js';
import { slices, type RowsInsert } from '../persistence/rows-insert.js';
import { EventCatalog, type RecordKind } from './event-catalog.js';
import { EventSequencer } from './event-sequencer.js';

/** An event as the feed and the webhooks publish it. */
export interface FeedEvent {
  id: string;
  sequence: number;
  type: string;
  occurred_at: string;
  resource: string;
  resource_id: number;
  data: unknown;
  changes: string[];
  causer: { type: 'user'; id: number } | null;
  request_id: string | null;
}

/** An event as the write stores it, before the sequencer numbers it. */
export interface NewEvent {
  tenantId: number;
  type: string;
  resource: string;
  resourceId: number;
  data: unknown;
  changes: readonly string[];
  /** The write counted the record's creation or deletion against its tenant's limit itself (RecordCaps). */
  counted?: boolean;
}

/** The columns of a stored event, as eventValues gives them (`sequence` last, when numbered). */
const EVENT_COLUMNS = [
  'tenant_id',
  'type',
  'resource',
  'resource_id',
  'data',
  'changes',
  'causer_id',
  'request_id',
  'occurred_at',
  'counted',
];
/** The same with the sequence, for a write that numbers its own events. */
const NUMBERED_EVENT_COLUMNS = [...EVENT_COLUMNS, 'sequence'];
const EVENTS_PER_STATEMENT = 2_000;
/**
 * A write with at least this many events numbers them in its own transaction
 * (EventSequencer.numberInWrite): a batch or an import chunk, whose events a pass would otherwise
 * rewrite once more. A smaller write leaves them to the passes after its commit, so that writers
 * of one tenant never wait for each other's commits.
 */
export const NUMBERED_IN_WRITE = 100;
/**
 * The transaction of a bulk write (a batch, an import chunk): READ COMMITTED, so that numbering its
 * events in it takes no gap lock on the events still without a number (other writers' inserts).
 */
export const BULK_WRITE: TransactionOptions = { isolation: 'read committed' };

/** The public id of the event stored as row `id`: the same in the feed and in every webhook delivery. */
export const eventId = (id: number): string => `evt_${id}`;

/** The row id of a public event id, or undefined when it is not one. */
export function eventRowId(publicId: string): number | undefined {
  const match = /^evt_([1-9]\d{0,15})$/.exec(publicId);
  return match ? Number(match[1]) : undefined;
}

/**
 * The change feed's writer (a transactional outbox): every change the tables record becomes an
 * event row in the change's own transaction, so that a committed change always has its event and
 * a rolled-back one never does. Several changes of one record in one write are one event: created
 * (then changed) is `created`, changed twice is one `updated` with both changes, deleted is a
 * tombstone, and created then deleted is nothing. `data` is the record as its GET answers it,
 * presented by the service that owns the record (EventCatalog); `sequence` is given after commit
 * by the EventSequencer, which this writer nudges once the write has committed.
 */
@Injectable()
export class ChangeFeed implements ChangeRecorder {
  constructor(
    private readonly catalog: EventCatalog,
    private readonly sequencer: EventSequencer,
    private readonly insertIds: InsertIds,
  ) {}

  async record(write: RecordedWrite): Promise<void> {
    const events = await this.eventsOf(write);
    const occurredAt = Date.now();
    if (events.length >= NUMBERED_IN_WRITE) {
      await this.sequencer.numberInWrite(write.sql, events, occurredAt, (sequences) =>
        this.insertNumbered(write, events, occurredAt, sequences),
      );
    } else if (events.length) write.send(...eventInserts(write.actor, events, occurredAt));
  }

  /** Stores a write's events with their sequences (numberInWrite) and answers their ids, in order. */
  private async insertNumbered(
    write: RecordedWrite,
    events: readonly NewEvent[],
    occurredAt: number,
    sequences: readonly number[],
  ): Promise<number[]> {
    const { sql } = write;
    const step = await this.insertIds.consecutiveStep();
    const ids: number[] = [];
    for (const { table, columns, rows } of eventInserts(write.actor, events, occurredAt, sequences)) {
      const { insertId } = await sql.insertRows(table, columns, rows);
      if (step !== null) ids.push(...insertedIds(sql.dialect, insertId, rows.length, step));
    }
    if (step !== null) return ids;
    // Ids that may interleave with another INSERT's (Galera, MySQL 8): read back by (tenant, sequence).
    const byNumber = new Map<string, number>();
    for (const tenantId of new Set(events.map((event) => event.tenantId))) {
      const own = sequences.filter((_, i) => events[i].tenantId === tenantId);
      const rows = await sql.query<{ id: number | string; sequence: number | string }>(
        'SELECT id, sequence FROM events WHERE tenant_id = ? AND sequence BETWEEN ? AND ?',
        [tenantId, own[0], own[own.length - 1]],
      );
      for (const row of rows) byNumber.set(`${tenantId}:${Number(row.sequence)}`, Number(row.id));
    }
    return events.map((event, i) => byNumber.get(`${event.tenantId}:${sequences[i]}`)!);
  }

  committed(): void {
    this.sequencer.nudge();
  }

  private async eventsOf(write: RecordedWrite): Promise<NewEvent[]> {
    const byRecord = new Map<string, RecordChange[]>();
    for (const change of write.changes) {
      if (change.tenantId === null || !this.catalog.kindOf(change.entityName)) continue;
      const key = `${change.entityName}:${change.row.id}`;
      const changes = byRecord.get(key);
      if (changes) changes.push(change);
      else byRecord.set(key, [change]);
    }
    const deletedAt = new Date().toISOString();
    const events: (NewEvent & { present?: RecordChange })[] = [];
    for (const changes of byRecord.values()) {
      const first = changes[0];
      const last = changes[changes.length - 1];
      const kind = this.catalog.kindOf(first.entityName)!;
      const { resource } = kind;
      const event = (action: string, data: unknown, fields: readonly string[], present?: RecordChange) => ({
        tenantId: first.tenantId!,
        type: `${resource}.${action}`,
        resource,
        resourceId: first.row.id,
        data,
        changes: fields,
        present,
        counted: changes.some((change) => change.counted),
      });
      const deletion = changes.find((change) => change.event === 'deleted');
      if (deletion) {
        if (first.event !== 'created') {
          const tombstone = Object.assign(
            { id: first.row.id, deleted_at: deletedAt },
            kind.identify?.(first.row),
            deletion.tombstone,
          );
          events.push(event('deleted', tombstone, []));
        }
      } else if (first.event === 'created') {
        events.push(event('created', null, [], last));
      } else {
        const fields = changes.length === 1 ? first.fields : [...new Set(changes.flatMap((change) => change.fields))];
        events.push(event('updated', null, fields, last));
      }
    }
    await this.present(write, events);
    for (const announcement of write.announcements) events.push(Object.assign({ changes: [] }, announcement));
    return events;
  }

  /** The answers of the created and updated records, one presenter call per kind and tenant. */
  private async present(write: RecordedWrite, events: (NewEvent & { present?: RecordChange })[]): Promise<void> {
    const groups = new Map<string, { kind: RecordKind<unknown>; tenantId: number; events: typeof events }>();
    for (const event of events) {
      if (!event.present) continue;
      const key = `${event.present.entityName}:${event.tenantId}`;
      let group = groups.get(key);
      if (!group) {
        group = { kind: this.catalog.kindOf(event.present.entityName)!, tenantId: event.tenantId, events: [] };
        groups.set(key, group);
      }
      group.events.push(event);
    }
    for (const { kind, tenantId, events: group } of groups.values()) {
      const answers = await kind.present(
        write.readsOf(tenantId),
        group.map((event) => event.present!.row),
      );
      group.forEach((event, i) => {
        event.data = answers[i];
        // The names of the fields that changed, as the answer names them (a password is no field of it).
        const fields = answers[i] && typeof answers[i] === 'object' ? (answers[i] as object) : {};
        event.changes = event.changes.filter((field) => field in fields);
        event.present = undefined;
      });
    }
  }
}

/**
 * The rows that store the events of one write: without a sequence (the Journal sends them with its
 * activity entries, the sequencer numbers them after commit), or with the ones given.
 */
export function eventInserts(
  actor: Actor,
  events: readonly NewEvent[],
  occurredAt: number,
  sequences?: readonly number[],
): RowsInsert[] {
  const columns = sequences ? NUMBERED_EVENT_COLUMNS : EVENT_COLUMNS;
  const rows = events.map((event, i) => {
    const values = eventValues(actor, event, occurredAt);
    if (sequences) values.push(sequences[i]);
    return values;
  });
  return slices(rows, EVENTS_PER_STATEMENT).map((slice) => ({ table: 'events', columns, rows: slice }));
}

/** The values of an event's row, in the order of EVENT_COLUMNS. */
function eventValues(actor: Actor, event: NewEvent, occurredAt: number): SqlValue[] {
  return [
    event.tenantId,
    event.type,
    event.resource,
    event.resourceId,
    JSON.stringify(event.data ?? null),
    JSON.stringify(event.changes),
    actor.job ? null : (actor.user?.id ?? null),
    actor.requestId,
    occurredAt,
    event.counted === true,
  ];
}
