import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { parseDateLike } from '../../common/fields/fields.js';
import { RecordNotFound, ValidationFailed } from '../../common/http/api-exception.js';
import { Page } from '../../common/http/page.js';
import { assertCursorValue, decodeCursor } from '../../common/persistence/cursor.js';
import { pageRequest, resolveSort, type Condition, type PageRequest } from '../../common/persistence/keyset.js';
import { quote } from '../../common/persistence/table-gateway.js';
import { Tables, type TenantReads } from '../../common/persistence/tables.js';
import { DEFAULT_PAGE_SIZE } from '../../common/resources/list-query.dto.js';
import { Customer } from '../customer/entities/customer.entity.js';
import {
  EVENT_FILTER_MESSAGE,
  toCustomerEventResponse,
  toEventNameResponse,
  type CustomerEventResponse,
  type CustomerEventsQueryDto,
  type EventNameResponse,
  type EventNamesQueryDto,
} from './dto/customer-event.dto.js';
import { CustomerEvent, CustomerEventName } from './entities/customer-event.entity.js';
import { knownNameIds } from './event-names.js';
import { DAY_MS, isEventName } from './track-input.js';

/** The events list's sorts by their public name: `timestamp` is the `occurred_at` column. */
const EVENT_SORTS: Record<string, string> = { timestamp: 'occurred_at', '-timestamp': '-occurred_at' };
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** The reads of tracked events: a customer's events, one event, the tenant's event names. */
@Injectable()
export class CustomerEventsService {
  constructor(private readonly tables: Tables) {}

  /** `GET /api/customers/{id}/events`: newest timestamp first (ties by id), keyset pages on the customer index. */
  async list(
    auth: AuthContext,
    customerId: number,
    query: CustomerEventsQueryDto,
  ): Promise<Page<CustomerEventResponse>> {
    const reads = this.tables.read(auth);
    const request = eventsPageRequest(query);
    if (query.event !== undefined && !isEventName(query.event))
      throw ValidationFailed.field('event', EVENT_FILTER_MESSAGE);
    const since = query.since === undefined ? undefined : parseDateLike(query.since)!.getTime();
    const until =
      query.until === undefined
        ? undefined
        : parseDateLike(query.until)!.getTime() + (DATE_ONLY.test(query.until) ? DAY_MS - 1 : 0);
    if (!(await reads.table(Customer).exists({ id: customerId }))) throw new RecordNotFound('customer');

    const events = reads.table(CustomerEvent);
    const e = quote(events.spec.table);
    const conditions: Condition[] = [{ sql: `${e}.customer_id = ?`, params: [customerId] }];
    if (query.event !== undefined) {
      const nameId = (await knownNameIds(reads, [query.event])).get(query.event);
      if (nameId === undefined) {
        return new Page([], {
          limit: request.limit,
          next_cursor: null,
          has_more: false,
          ...(request.withTotal && { total: 0 }),
        });
      }
      conditions.push({ sql: `${e}.name_id = ?`, params: [nameId] });
    }
    if (since !== undefined) conditions.push({ sql: `${e}.occurred_at >= ?`, params: [since] });
    if (until !== undefined) conditions.push({ sql: `${e}.occurred_at <= ?`, params: [until] });
    const { rows, meta } = await events.page(request, conditions, true);
    return new Page(await this.respond(reads, rows), meta);
  }

  /** `GET /api/customer-events/{id}`. */
  async get(auth: AuthContext, id: number): Promise<CustomerEventResponse> {
    const reads = this.tables.read(auth);
    const event = await reads.table(CustomerEvent).findById(id);
    if (!event) throw new RecordNotFound('customer event');
    const [answer] = await this.respond(reads, [event]);
    return answer;
  }

  /** `GET /api/event-names`: the tenant's dictionary of names, with their kept counts and newest timestamps. */
  async names(auth: AuthContext, query: EventNamesQueryDto): Promise<Page<EventNameResponse>> {
    const reads = this.tables.read(auth);
    const request = pageRequest(query, { name: 'string', count: 'number' });
    const names = reads.table(CustomerEventName);
    const n = quote(names.spec.table);
    const conditions: Condition[] = [];
    if (query.q !== undefined) {
      conditions.push({
        sql: `${n}.name_key LIKE ? ESCAPE '!'`,
        params: [`%${query.q.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`],
      });
    }
    const { rows, meta } = await names.page(request, conditions, conditions.length > 0);
    return new Page(rows.map(toEventNameResponse), meta);
  }

  /** The events as answered, their names read in one query. */
  async respond(reads: TenantReads, events: readonly CustomerEvent[]): Promise<CustomerEventResponse[]> {
    const names = new Map(
      (await reads.table(CustomerEventName).findMany(events.map((event) => event.name_id))).map((row) => [
        row.id,
        row.name,
      ]),
    );
    return events.map((event) => toCustomerEventResponse(event, names.get(event.name_id) ?? ''));
  }
}

/** `?sort` (`-timestamp`, `timestamp`), `?limit`, `?cursor` and `?with_total` of a customer's events. */
function eventsPageRequest(query: CustomerEventsQueryDto): PageRequest {
  const key = EVENT_SORTS[query.sort ?? '-timestamp'];
  if (!key) {
    throw ValidationFailed.field('sort', 'The selected sort is invalid. Sort by timestamp (prefix - for descending).');
  }
  const sort = resolveSort(key, { occurred_at: 'number' });
  const request: PageRequest = { sort, limit: query.limit ?? DEFAULT_PAGE_SIZE, withTotal: query.with_total === true };
  if (query.cursor) {
    request.after = decodeCursor(query.cursor, sort.key);
    assertCursorValue(request.after.value ?? null, 'number', false);
  }
  return request;
}
