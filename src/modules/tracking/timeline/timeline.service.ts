import { Inject, Injectable, Optional } from '@nestjs/common';
import type { AuthContext } from '../../../common/auth/auth-context.js';
import { RecordNotFound, ValidationFailed } from '../../../common/http/api-exception.js';
import { Page } from '../../../common/http/page.js';
import { decodeCursor, encodeCursor } from '../../../common/persistence/cursor.js';
import { Tables } from '../../../common/persistence/tables.js';
import { DEFAULT_PAGE_SIZE } from '../../../common/resources/list-query.dto.js';
import { Customer } from '../../customer/entities/customer.entity.js';
import { historyIds } from '../../customer/merge/merge-history.js';
import type { TimelineItemResponse, TimelineQueryDto } from '../dto/customer-event.dto.js';
import { ChangeTimeline, EventTimeline } from './timeline-sources.js';
import {
  TIMELINE_KINDS,
  TIMELINE_SOURCES,
  type TimelineEntry,
  type TimelineKind,
  type TimelineSource,
} from './timeline-source.js';

/** The cursor's sort name. */
const TIMELINE_SORT = 'timeline';
const rank = (kind: string) => TIMELINE_KINDS.indexOf(kind as TimelineKind);

/** Where a timeline page ended: the last item's instant, kind and position. */
interface TimelinePosition {
  at: number;
  kind: TimelineKind;
  position: number;
}

/** Newest first: by instant, then kind (in TIMELINE_KINDS order, later first), then position. */
function compare(a: TimelinePosition, b: TimelinePosition): number {
  return b.at - a.at || rank(b.kind) - rank(a.kind) || b.position - a.position;
}

/**
 * `GET /api/customers/{id}/timeline`: one list, newest first, of what every source holds about the
 * customer (TIMELINE_KINDS), merged by instant. Each source reads its own next items after the
 * cursor's position (one indexed read each), and the page takes the newest of them all.
 */
@Injectable()
export class TimelineService {
  private readonly sources: ReadonlyMap<TimelineKind, TimelineSource>;

  constructor(
    private readonly tables: Tables,
    changes: ChangeTimeline,
    events: EventTimeline,
    @Optional() @Inject(TIMELINE_SOURCES) others: readonly TimelineSource[] = [],
  ) {
    const all = [changes, events, ...others];
    const kinds = all.map((source) => source.kind);
    if (kinds.length !== TIMELINE_KINDS.length || !TIMELINE_KINDS.every((kind) => kinds.includes(kind))) {
      throw new Error(
        `The timeline's sources (${kinds.join(', ')}) differ from TIMELINE_KINDS (${TIMELINE_KINDS.join(', ')})`,
      );
    }
    this.sources = new Map(all.map((source) => [source.kind, source]));
  }

  async timeline(auth: AuthContext, customerId: number, query: TimelineQueryDto): Promise<Page<TimelineItemResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const kinds = kindsOf(query.kinds);
    const after = query.cursor === undefined ? null : positionOf(query.cursor);
    const reads = this.tables.read(auth);
    if (!(await reads.table(Customer).exists({ id: customerId }))) throw new RecordNotFound('customer');
    const subject = { id: customerId, historyIds: await historyIds(reads, customerId) };

    const parts = await Promise.all(
      kinds.map((kind) => this.sources.get(kind)!.read(reads, subject, boundFor(kind, after), limit + 1)),
    );
    const merged = parts.flat().sort(compare);
    const hasMore = merged.length > limit;
    const page = merged.slice(0, limit);
    const last = page[page.length - 1];
    const next =
      hasMore && last
        ? encodeCursor({ sort: TIMELINE_SORT, value: `${last.at}:${last.kind}`, id: last.position })
        : null;
    return new Page(page.map(toItem), { limit, next_cursor: next, has_more: hasMore });
  }
}

const toItem = (entry: TimelineEntry): TimelineItemResponse => ({
  at: new Date(entry.at).toISOString(),
  kind: entry.kind,
  type: entry.type,
  id: entry.id,
  data: entry.data,
});

/**
 * What a source of `kind` reads after the cursor: its items at an earlier instant, and at the
 * cursor's instant those that come later in the order (a kind ranked below the cursor's: all of
 * them; the cursor's own kind: below its position; a kind ranked above: none).
 */
function boundFor(kind: TimelineKind, after: TimelinePosition | null): { at: number; position: number } | null {
  if (!after) return null;
  const r = rank(kind) - rank(after.kind);
  return { at: after.at, position: r < 0 ? Number.MAX_SAFE_INTEGER : r === 0 ? after.position : 0 };
}

/** `?kinds`: a comma list of TIMELINE_KINDS (default: every kind). */
function kindsOf(text: string | undefined): TimelineKind[] {
  if (text === undefined) return [...TIMELINE_KINDS];
  const kinds = text.split(',').map((kind) => kind.trim());
  const unknown = kinds.filter((kind) => !TIMELINE_KINDS.includes(kind as TimelineKind));
  if (unknown.length || kinds.length === 0) {
    throw ValidationFailed.field(
      'kinds',
      `The selected kinds are invalid: ${unknown.map((k) => `"${k}"`).join(', ')}. Kinds: ${TIMELINE_KINDS.join(', ')}.`,
    );
  }
  return [...new Set(kinds as TimelineKind[])];
}

function positionOf(cursor: string): TimelinePosition {
  const { value, id } = decodeCursor(cursor, TIMELINE_SORT);
  const match = typeof value === 'string' ? /^(0|[1-9]\d{0,15}):([a-z]+)$/.exec(value) : null;
  if (!match || !TIMELINE_KINDS.includes(match[2] as TimelineKind) || !Number.isSafeInteger(Number(match[1]))) {
    throw ValidationFailed.field('cursor', 'The cursor is invalid.');
  }
  return { at: Number(match[1]), kind: match[2] as TimelineKind, position: id };
}
