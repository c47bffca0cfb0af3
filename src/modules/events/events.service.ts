import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { eventRowId, type FeedEvent } from '../../common/events/change-feed.js';
import { FeedReads, toFeedEvent, type FeedCounters } from '../../common/events/feed-reads.js';
import { EventCatalog } from '../../common/events/event-catalog.js';
import { EventSequencer } from '../../common/events/event-sequencer.js';
import { parseDateLike } from '../../common/fields/fields.js';
import { ApiException, RecordNotFound, ValidationFailed } from '../../common/http/api-exception.js';
import { Page, type PageMeta } from '../../common/http/page.js';
import { DEFAULT_EVENTS_PAGE, type EventsQueryDto, type EventTypeResponse } from './dto/event.dto.js';

/** A filtered page scans at most this many sequences, so that a rare type costs a bounded read per page. */
const FILTER_WINDOW = 10_000;

export const encodeFeedCursor = (sequence: number): string => Buffer.from(`seq:${sequence}`).toString('base64url');

function decodeFeedCursor(cursor: string): number {
  const text = /^[\w-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const match = /^seq:(0|[1-9]\d{0,15})$/.exec(text);
  if (!match) throw ValidationFailed.field('cursor', 'The cursor is invalid.');
  return Number(match[1]);
}

/**
 * The change feed of the caller's tenant (a super-admin's: X-Tenant-ID, or their own), oldest
 * first. Every read first numbers what has committed (EventSequencer.catchUp), so a client sees
 * its own writes; `meta.next_cursor` is always set, so a client polls on from where it stopped.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly feed: FeedReads,
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

    // One record's history has its own index; other filters read a bounded window of the feed.
    const windowEnd =
      (types || query.resource !== undefined) && query.resource_id === undefined
        ? Math.min(after + FILTER_WINDOW, counters.last_sequence)
        : undefined;
    const rows = await this.feed.page(tenantId, {
      after,
      through: windowEnd,
      resource: query.resource,
      resourceId: query.resource === undefined ? undefined : query.resource_id,
      types,
      limit,
    });
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
    const row = await this.feed.get(auth.tenantId, id);
    if (!row) throw new RecordNotFound('event');
    return toFeedEvent(row);
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

  private counters(tenantId: number): Promise<FeedCounters> {
    return this.feed.counters(tenantId);
  }

  /** The sequence the page starts after: the cursor's, the one before `since`, or the oldest kept. */
  private async startOf(tenantId: number, query: EventsQueryDto, counters: FeedCounters): Promise<number> {
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

  private firstAtOrAfter(tenantId: number, since: number, counters: FeedCounters): Promise<number> {
    return this.feed.firstAtOrAfter(tenantId, since, counters);
  }
}

const pastRetention = () =>
  new ApiException(410, {
    message:
      'The feed no longer holds the events after this position (they are kept for a limited time): read the records again, then follow the feed from now.',
  });
