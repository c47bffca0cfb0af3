import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { eventId, eventRowId, type FeedEvent } from '../../common/events/change-feed.js';
import { EventCatalog } from '../../common/events/event-catalog.js';
import { EventSequencer } from '../../common/events/event-sequencer.js';
import { parseDateLike } from '../../common/fields/fields.js';
import { ApiException, RecordNotFound, ValidationFailed } from '../../common/http/api-exception.js';
import { Page, type PageMeta } from '../../common/http/page.js';
import { Database, type SqlValue } from '../../common/persistence/database.js';
import { DEFAULT_EVENTS_PAGE, type EventsQueryDto, type EventTypeResponse } from './dto/event.dto.js';

/** An `events` row as EVENT_SELECT reads it. */
export interface EventRow {
  id: number | string;
  sequence: number | string;
  type: string;
  resource: string;
  resource_id: number | string;
  data: string;
  changes: string;
  causer_id: number | string | null;
  request_id: string | null;
  occurred_at: number | string;
}

interface Counters {
  last_sequence: number;
  purged_through: number;
  purged_until: number;
}

/** One event of a record's history, numbered or not (newestFirst). */
export interface HistoryEvent {
  id: number;
  type: string;
  occurredAt: number;
  resourceId: number;
  data: unknown;
  changes: string[];
  causer: { type: 'user'; id: number } | null;
  requestId: string | null;
}

export const EVENT_SELECT =
  'SELECT id, sequence, type, resource, resource_id, data, changes, causer_id, request_id, occurred_at FROM events';

/** A filtered page scans at most this many sequences, so that a rare type costs a bounded read per page. */
const FILTER_WINDOW = 10_000;

export const encodeFeedCursor = (sequence: number): string => Buffer.from(`seq:${sequence}`).toString('base64url');

function decodeFeedCursor(cursor: string): number {
  const text = /^[\w-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const match = /^seq:(0|[1-9]\d{0,15})$/.exec(text);
  if (!match) throw ValidationFailed.field('cursor', 'The cursor is invalid.');
  return Number(match[1]);
}

/** A numbered event row as the feed answers it (GET /api/events, and a customer's hand-over). */
export function toFeedEvent(row: EventRow): FeedEvent {
  const causer = row.causer_id === null ? null : { type: 'user' as const, id: Number(row.causer_id) };
  return {
    id: eventId(Number(row.id)),
    sequence: Number(row.sequence),
    type: row.type,
    occurred_at: new Date(Number(row.occurred_at)).toISOString(),
    resource: row.resource,
    resource_id: Number(row.resource_id),
    data: JSON.parse(row.data) as unknown,
    changes: JSON.parse(row.changes) as string[],
    causer,
    request_id: row.request_id,
  };
}

/**
 * The change feed of the caller's tenant (a super-admin's: X-Tenant-ID, or their own), oldest
 * first. Every read first numbers what has committed (EventSequencer.catchUp), so a client sees
 * its own writes; `meta.next_cursor` is always set, so a client polls on from where it stopped.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly db: Database,
    private readonly sequencer: EventSequencer,
    private readonly catalog: EventCatalog,
  ) {}

  types(): EventTypeResponse[] {
    return this.catalog.types();
  }

  async list(auth: AuthContext, query: EventsQueryDto): Promise<Page<FeedEvent>> {
    const limit = query.limit ?? DEFAULT_EVENTS_PAGE;
    const types = this.typesOf(query);
    if (query.resource_id !== undefined && query.resource === undefined) {
      throw ValidationFailed.field('resource_id', 'The resource_id filter needs the resource filter.');
    }
    if (query.since !== undefined && query.cursor !== undefined) {
      throw ValidationFailed.field('since', 'The since filter cannot be combined with a cursor.');
    }
    const tenantId = auth.tenantId;
    await this.sequencer.catchUp();
    const counters = await this.counters(tenantId);
    const after = await this.startOf(tenantId, query, counters);

    const where: string[] = ['tenant_id = ?', 'sequence > ?'];
    const params: SqlValue[] = [tenantId, after];
    if (query.resource !== undefined) {
      where.push('resource = ?');
      params.push(query.resource);
      if (query.resource_id !== undefined) {
        where.push('resource_id = ?');
        params.push(query.resource_id);
      }
    }
    if (types) {
      where.push(`type IN (${types.map(() => '?').join(', ')})`);
      params.push(...types);
    }
    // One record's history has its own index; other filters read a bounded window of the feed.
    const windowEnd =
      (types || query.resource !== undefined) && query.resource_id === undefined
        ? Math.min(after + FILTER_WINDOW, counters.last_sequence)
        : undefined;
    if (windowEnd !== undefined) {
      where.push('sequence <= ?');
      params.push(windowEnd);
    }
    // One record's events are in the order of their ids (its writes' order): its index needs no sort.
    // The index is named on MySQL/MariaDB: left to itself, MariaDB reads a deep page along the
    // sequencer's (sequence, id) index, across every tenant's events (1.1 s at 10,000,000 events).
    const history = query.resource_id !== undefined;
    const index = history ? 'events_tenant_id_resource_resource_id_id_index' : 'events_tenant_id_sequence_unique';
    const hint = this.db.dialect === 'mysql' ? ` FORCE INDEX (${index})` : '';
    const rows = await this.db.query<EventRow>(
      `${EVENT_SELECT}${hint} WHERE ${where.join(' AND ')} ORDER BY ${history ? 'id' : 'sequence'} LIMIT ${limit + 1}`,
      params,
    );
    const events = rows.slice(0, limit).map(toFeedEvent);
    const last = events.length ? events[events.length - 1].sequence : (windowEnd ?? after);
    const meta: PageMeta = {
      limit,
      next_cursor: encodeFeedCursor(last),
      has_more: rows.length > limit || (windowEnd !== undefined && windowEnd < counters.last_sequence),
    };
    return new Page(events, meta);
  }

  async get(auth: AuthContext, publicId: string): Promise<FeedEvent> {
    const id = eventRowId(publicId);
    if (id === undefined) throw new RecordNotFound('event');
    await this.sequencer.catchUp();
    const [row] = await this.db.query<EventRow>(
      `${EVENT_SELECT} WHERE id = ? AND tenant_id = ? AND sequence IS NOT NULL`,
      [id, auth.tenantId],
    );
    if (!row) throw new RecordNotFound('event');
    return toFeedEvent(row);
  }

  /**
   * The events of the records `resourceIds` of `resource`, newest first (occurred_at, then id),
   * after `before` in that order when given: a record's history for a customer's timeline. Every
   * committed event, numbered yet or not (a timeline is no sync feed: it shows a change at once).
   */
  async newestFirst(
    auth: AuthContext,
    resource: string,
    resourceIds: readonly number[],
    before: { at: number; id: number } | null,
    limit: number,
  ): Promise<HistoryEvent[]> {
    if (resourceIds.length === 0) return [];
    const where = [`tenant_id = ?`, 'resource = ?', `resource_id IN (${resourceIds.map(() => '?').join(', ')})`];
    const params: SqlValue[] = [auth.tenantId, resource, ...resourceIds];
    if (before) {
      where.push('(occurred_at < ? OR (occurred_at = ? AND id < ?))');
      params.push(before.at, before.at, before.id);
    }
    const hint = this.db.dialect === 'mysql' ? ' FORCE INDEX (events_tenant_id_resource_resource_id_id_index)' : '';
    const rows = await this.db.query<EventRow>(
      `${EVENT_SELECT}${hint} WHERE ${where.join(' AND ')} ORDER BY occurred_at DESC, id DESC LIMIT ${limit}`,
      params,
    );
    return rows.map((row) => ({
      id: Number(row.id),
      type: row.type,
      occurredAt: Number(row.occurred_at),
      resourceId: Number(row.resource_id),
      data: JSON.parse(row.data) as unknown,
      changes: JSON.parse(row.changes) as string[],
      causer: row.causer_id === null ? null : { type: 'user' as const, id: Number(row.causer_id) },
      requestId: row.request_id,
    }));
  }

  /** The sequences of the tenant's events that occurred from `since` to `until` (epoch ms): [first, last], empty when first > last. */
  async sequenceSpan(tenantId: number, since: number, until: number): Promise<[number, number]> {
    await this.sequencer.catchUp();
    const counters = await this.counters(tenantId);
    const first = await this.firstAtOrAfter(tenantId, since, counters);
    const afterLast = await this.firstAtOrAfter(tenantId, until + 1, counters);
    return [first, afterLast - 1];
  }

  /** The types filter as a list, each a type of the catalog (422 otherwise). */
  private typesOf(query: EventsQueryDto): string[] | undefined {
    if (query.types === undefined) return undefined;
    const known = new Set(this.catalog.types().map((t) => t.type));
    const types = query.types.split(',').map((type) => type.trim());
    const unknown = types.filter((type) => !known.has(type));
    if (types.length === 0 || unknown.length) {
      throw ValidationFailed.field(
        'types',
        `Unknown event type: ${unknown.join(', ') || '(none)'}. See GET /api/events/types.`,
      );
    }
    return [...new Set(types)];
  }

  private async counters(tenantId: number): Promise<Counters> {
    const [row] = await this.db.query<Record<keyof Counters, number | string>>(
      'SELECT last_sequence, purged_through, purged_until FROM event_counters WHERE tenant_id = ?',
      [tenantId],
    );
    return {
      last_sequence: Number(row?.last_sequence ?? 0),
      purged_through: Number(row?.purged_through ?? 0),
      purged_until: Number(row?.purged_until ?? 0),
    };
  }

  /** The sequence the page starts after: the cursor's, the one before `since`, or the oldest kept. */
  private async startOf(tenantId: number, query: EventsQueryDto, counters: Counters): Promise<number> {
    if (query.cursor !== undefined) {
      const after = decodeFeedCursor(query.cursor);
      if (after < counters.purged_through) throw pastRetention();
      return after;
    }
    if (query.since !== undefined) {
      const since = parseDateLike(query.since)!.getTime();
      if (since < counters.purged_until) throw pastRetention();
      return (await this.firstAtOrAfter(tenantId, since, counters)) - 1;
    }
    return counters.purged_through;
  }

  /**
   * The sequence of the first event that occurred at or after `since` (the head's next one when
   * none has): a binary search over the sequence, whose order follows occurrence to within the
   * time a transaction takes to commit.
   */
  private async firstAtOrAfter(tenantId: number, since: number, counters: Counters): Promise<number> {
    let low = counters.purged_through + 1;
    let high = counters.last_sequence + 1;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      const [row] = await this.db.query<{ sequence: number | string; occurred_at: number | string }>(
        'SELECT sequence, occurred_at FROM events WHERE tenant_id = ? AND sequence >= ? ORDER BY sequence LIMIT 1',
        [tenantId, middle],
      );
      if (!row || Number(row.occurred_at) >= since) high = middle;
      else low = Number(row.sequence) + 1;
    }
    return low;
  }
}

const pastRetention = () =>
  new ApiException(410, {
    message:
      'The feed no longer holds the events after this position (they are kept for a limited time): read the records again, then follow the feed from now.',
  });
