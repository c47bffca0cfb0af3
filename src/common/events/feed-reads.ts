import { Injectable } from '@nestjs/common';
import { Database, type SqlValue } from '../persistence/database.js';
import { eventId, type FeedEvent } from './change-feed.js';

/** An `events` row as the feed reads it. */
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

/** Where a tenant's feed stands: its last sequence, and what retention removed. */
/** One event of a record's history, numbered or not (FeedReads.newestFirst). */
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

export interface FeedCounters {
  last_sequence: number;
  purged_through: number;
  purged_until: number;
}

/** What a page of the feed filters on. */
export interface FeedFilter {
  after: number;
  /** The last sequence the page may read (a filtered page reads a bounded window). */
  through?: number;
  resource?: string;
  resourceId?: number;
  types?: readonly string[];
  limit: number;
}

const EVENT_SELECT =
  'SELECT id, sequence, type, resource, resource_id, data, changes, causer_id, request_id, occurred_at FROM events';
/** One record's events, in the order of their ids. */
const RESOURCE_INDEX = 'events_tenant_id_resource_resource_id_id_index';
const SEQUENCE_INDEX = 'events_tenant_id_sequence_unique';

/** A numbered event row as the feed answers it (GET /api/events, a webhook's body, a customer's hand-over). */
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
 * Reads of one tenant's numbered events: the feed's table is the change feed's own (written by
 * ChangeFeed, numbered by EventSequencer), so its reads live beside them, each scoped to the tenant
 * given. The feed's routes, a webhook replay and a customer's hand-over read through here.
 */
@Injectable()
export class FeedReads {
  constructor(private readonly db: Database) {}

  async counters(tenantId: number): Promise<FeedCounters> {
    const [row] = await this.db.query<Record<keyof FeedCounters, number | string>>(
      'SELECT last_sequence, purged_through, purged_until FROM event_counters WHERE tenant_id = ?',
      [tenantId],
    );
    return {
      last_sequence: Number(row?.last_sequence ?? 0),
      purged_through: Number(row?.purged_through ?? 0),
      purged_until: Number(row?.purged_until ?? 0),
    };
  }

  /** Up to `limit + 1` events after `filter.after`, by sequence (one record's: by id). */
  async page(tenantId: number, filter: FeedFilter): Promise<EventRow[]> {
    const where: string[] = ['tenant_id = ?', 'sequence > ?'];
    const params: SqlValue[] = [tenantId, filter.after];
    if (filter.resource !== undefined) {
      where.push('resource = ?');
      params.push(filter.resource);
      if (filter.resourceId !== undefined) {
        where.push('resource_id = ?');
        params.push(filter.resourceId);
      }
    }
    if (filter.types) {
      where.push(`type IN (${filter.types.map(() => '?').join(', ')})`);
      params.push(...filter.types);
    }
    if (filter.through !== undefined) {
      where.push('sequence <= ?');
      params.push(filter.through);
    }
    // One record's events are in the order of their ids (its writes' order): its index needs no sort.
    // The index is named on MySQL/MariaDB: left to itself, MariaDB reads a deep page along the
    // sequencer's (sequence, id) index, across every tenant's events (1.1 s at 10,000,000 events).
    const history = filter.resourceId !== undefined;
    const hint = this.db.dialect === 'mysql' ? ` FORCE INDEX (${history ? RESOURCE_INDEX : SEQUENCE_INDEX})` : '';
    return this.db.query<EventRow>(
      `${EVENT_SELECT}${hint} WHERE ${where.join(' AND ')} ORDER BY ${history ? 'id' : 'sequence'} LIMIT ${filter.limit + 1}`,
      params,
    );
  }

  async get(tenantId: number, id: number): Promise<EventRow | undefined> {
    const [row] = await this.db.query<EventRow>(
      `${EVENT_SELECT} WHERE id = ? AND tenant_id = ? AND sequence IS NOT NULL`,
      [id, tenantId],
    );
    return row;
  }

  /**
   * The sequence of the first event that occurred at or after `since` (the head's next one when
   * none has): a binary search over the sequence, whose order follows occurrence to within the
   * time a transaction takes to commit.
   */
  async firstAtOrAfter(tenantId: number, since: number, counters: FeedCounters): Promise<number> {
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

  /** The numbered events about records of one resource after event `afterId`, oldest first (a hand-over's batches). */
  async ofRecords(
    tenantId: number,
    resource: string,
    resourceIds: readonly number[],
    afterId: number,
    limit: number,
  ): Promise<EventRow[]> {
    const hint = this.db.dialect === 'mysql' ? ` FORCE INDEX (${RESOURCE_INDEX})` : '';
    const branch = (id: number) => ({
      sql: `${EVENT_SELECT}${hint}
             WHERE tenant_id = ? AND resource = ? AND resource_id = ? AND sequence IS NOT NULL AND id > ?
             ORDER BY id LIMIT ${limit}`,
      params: [tenantId, resource, id, afterId],
    });
    // Each record reads its own index in order; several are merged by one UNION ALL.
    const branches = [...new Set(resourceIds)].map(branch);
    const statement =
      branches.length === 1
        ? branches[0].sql
        : `${branches.map((b, i) => `SELECT * FROM (${b.sql}) h${i}`).join(' UNION ALL ')} ORDER BY id LIMIT ${limit}`;
    return this.db.query<EventRow>(
      statement,
      branches.flatMap((b) => b.params),
    );
  }

  /**
   * The events of the records `resourceIds` of `resource`, newest first (occurred_at, then id),
   * after `before` in that order when given: a record's history for a customer's timeline. Every
   * committed event, numbered yet or not (a timeline is no sync feed: it shows a change at once).
   */
  async newestFirst(
    tenantId: number,
    resource: string,
    resourceIds: readonly number[],
    before: { at: number; id: number } | null,
    limit: number,
  ): Promise<HistoryEvent[]> {
    if (resourceIds.length === 0) return [];
    const where = ['tenant_id = ?', 'resource = ?', `resource_id IN (${resourceIds.map(() => '?').join(', ')})`];
    const params: SqlValue[] = [tenantId, resource, ...resourceIds];
    if (before) {
      where.push('(occurred_at < ? OR (occurred_at = ? AND id < ?))');
      params.push(before.at, before.at, before.id);
    }
    const hint = this.db.dialect === 'mysql' ? ` FORCE INDEX (${RESOURCE_INDEX})` : '';
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

  /** The events of a span of sequences, of some types (all: undefined), after sequence `after`: a replay's batches. */
  async ofSpan(
    tenantId: number,
    span: { after: number; through: number; types?: readonly string[] },
    limit: number,
  ): Promise<{ id: number; sequence: number; type: string; resourceId: number; occurredAt: number }[]> {
    const typeFilter = span.types ? ` AND type IN (${span.types.map(() => '?').join(', ')})` : '';
    const rows = await this.db.query<{
      id: number | string;
      sequence: number | string;
      type: string;
      resource_id: number | string;
      occurred_at: number | string;
    }>(
      `SELECT id, sequence, type, resource_id, occurred_at FROM events
        WHERE tenant_id = ? AND sequence > ? AND sequence <= ?${typeFilter} ORDER BY sequence LIMIT ${limit}`,
      [tenantId, span.after, span.through, ...(span.types ?? [])],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      sequence: Number(row.sequence),
      type: row.type,
      resourceId: Number(row.resource_id),
      occurredAt: Number(row.occurred_at),
    }));
  }
}
