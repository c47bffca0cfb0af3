import { Injectable } from '@nestjs/common';
import { eventId } from '../../../common/events/change-feed.js';
import { FeedReads } from '../../../common/events/feed-reads.js';
import { quote } from '../../../common/persistence/table-gateway.js';
import type { TenantReads } from '../../../common/persistence/tables.js';
import { CustomerEventsService } from '../customer-events.service.js';
import { CustomerEvent } from '../entities/customer-event.entity.js';
import type { TimelineEntry, TimelineSource, TimelineSubject } from './timeline-source.js';

/** The change feed's name of a customer (`resource`). */
const CUSTOMER_RESOURCE = 'customer';

/** `change`: the customer's record changes, from the change feed (also those of the customers merged into it). */
@Injectable()
export class ChangeTimeline implements TimelineSource {
  readonly kind = 'change';

  constructor(private readonly feed: FeedReads) {}

  async read(
    reads: TenantReads,
    subject: TimelineSubject,
    before: { at: number; position: number } | null,
    limit: number,
  ): Promise<TimelineEntry[]> {
    const rows = await this.feed.newestFirst(
      reads.auth.tenantId,
      CUSTOMER_RESOURCE,
      subject.historyIds,
      before && { at: before.at, id: before.position },
      limit,
    );
    return rows.map((row) => ({
      at: row.occurredAt,
      kind: this.kind,
      type: row.type,
      id: eventId(row.id),
      position: row.id,
      data: { changes: row.changes, record: row.data, causer: row.causer, request_id: row.requestId },
    }));
  }
}

/** `event`: the customer's tracked events (a merge moved the merged customers' events to it). */
@Injectable()
export class EventTimeline implements TimelineSource {
  readonly kind = 'event';

  constructor(private readonly events: CustomerEventsService) {}

  async read(
    reads: TenantReads,
    subject: TimelineSubject,
    before: { at: number; position: number } | null,
    limit: number,
  ): Promise<TimelineEntry[]> {
    const table = reads.table(CustomerEvent);
    const e = quote(table.spec.table);
    const scope = table.scope(e);
    const where = [scope, { sql: `${e}.customer_id = ?`, params: [subject.id] }];
    if (before) {
      where.push({
        sql: `(${e}.occurred_at < ? OR (${e}.occurred_at = ? AND ${e}.id < ?))`,
        params: [before.at, before.at, before.position],
      });
    }
    const rows = await reads.select<Record<string, unknown>>(
      `SELECT ${table.spec.selectList(e)} FROM ${e} WHERE ${where.map((c) => c.sql).join(' AND ')}
        ORDER BY ${e}.occurred_at DESC, ${e}.id DESC LIMIT ${limit}`,
      where.flatMap((c) => c.params),
    );
    const answers = await this.events.respond(
      reads,
      rows.map((row) => table.spec.normalize(row)),
    );
    return answers.map((answer) => ({
      at: Date.parse(answer.timestamp),
      kind: this.kind,
      type: answer.event,
      id: answer.id,
      position: answer.id,
      data: { ...answer },
    }));
  }
}
