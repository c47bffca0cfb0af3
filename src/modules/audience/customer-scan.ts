import { Injectable } from '@nestjs/common';
import type { SqlValue } from '../../common/persistence/sql.js';
import { ValidationFailed } from '../../common/http/api-exception.js';
import type { PageMeta } from '../../common/http/page.js';
import { decodeCursor, encodeCursor } from '../../common/persistence/cursor.js';
import { resolveSort, type Condition } from '../../common/persistence/keyset.js';
import { listIndexName } from '../../common/persistence/list-index.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../../common/resources/list-query.dto.js';
import type { ReadableTable, TenantReads } from '../../common/persistence/tables.js';
import { quote } from '../../common/persistence/table-gateway.js';
import { Customer } from '../customer/entities/customer.entity.js';
import { CUSTOMER_ALIAS, type Selection } from './audience-selection.js';
import { IdFloors, type IdRange } from './id-floors.js';
import { ScanSlots } from './scan-slots.js';
import { bucketSql } from './rules/bucket.js';

const c = CUSTOMER_ALIAS;

/**
 * The id floor a member list carries in its cursor: the lowest id of the customers created at or
 * after `since`. It stays exact while `since` only moves later (as within_last_days does with
 * time); a page whose rules now reach further back finds a new one.
 */
export interface IdFloor {
  id: number;
  since: string;
}

/** A page of members: newest first by id (or oldest first), after the cursor's id, above its id floor. */
export interface MemberPageRequest {
  limit: number;
  direction: 'ASC' | 'DESC';
  sortKey: string;
  after?: number;
  /** The floor the cursor carries (null: none). */
  floor: IdFloor | null;
  withTotal: boolean;
}

/** `<id>@<since>` in the cursor's value slot. */
const FLOOR_TEXT = /^([1-9]\d{0,15})@(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})$/;

/** `?limit`, `?cursor`, `?sort` (`-id` or `id`) and `?with_total` of a member list (API-CONVENTIONS §4). */
export function memberPageRequest(query: ListQueryDto): MemberPageRequest {
  const sort = resolveSort(query.sort, {});
  const request: MemberPageRequest = {
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
    direction: sort.direction,
    sortKey: sort.key,
    floor: null,
    withTotal: query.with_total === true,
  };
  if (query.cursor) {
    const position = decodeCursor(query.cursor, sort.key);
    const value = position.value ?? null;
    const floor = typeof value === 'string' ? FLOOR_TEXT.exec(value) : null;
    if (value !== null && (!floor || !Number.isSafeInteger(Number(floor[1])))) {
      throw ValidationFailed.field('cursor', 'The cursor is invalid.');
    }
    request.after = position.id;
    request.floor = floor ? { id: Number(floor[1]), since: floor[2] } : null;
  }
  return request;
}

/** A cold first page tries the newest ids this many ids deep before it waits for the id floor. */
const RECENT_IDS = 25_000;

/** MySQL/MariaDB: a whole-selection scan is split into id ranges read side by side, one per connection. */
const MAX_PARALLEL_SCANS = 4;
const IDS_PER_SCAN = 100_000;

/**
 * [from, to) id ranges covering every id from `from` (up to `to` as known now; the last range is
 * open, so customers created meanwhile belong in it), each of about IDS_PER_SCAN ids, at most
 * MAX_PARALLEL_SCANS of them.
 */
export function idRanges(from: number, to: number): [number, number | null][] {
  const count = Math.max(1, Math.min(MAX_PARALLEL_SCANS, Math.ceil((to - from + 1) / IDS_PER_SCAN)));
  const step = Math.ceil((to - from + 1) / count);
  return Array.from({ length: count }, (_, i) => [from + i * step, i === count - 1 ? null : from + (i + 1) * step]);
}

/**
 * Whether the ids above the floor are mostly candidates (created_at grows with id, as the app
 * writes it): then the primary key is read in order instead of one lookup per row.
 */
export const denseAboveFloor = (range: IdRange) =>
  range.candidates > 0 && range.maxId - range.floor + 1 <= 3 * range.candidates;

/** The conditions of a whole-selection scan, its index hint, and the id ranges to read side by side. */
interface ScanPlan {
  where: Condition[];
  hint: string;
  /** [from, to) id ranges (the last one open: customers created meanwhile belong in it); one range: no split. */
  ranges: [number, number | null][];
}

/**
 * Reads the customers a Selection chooses, in the tenant (rules/README.md, "Member lists on
 * MariaDB"): keyset pages on (tenant_id, id) with FORCE INDEX; counts and bucket summaries
 * bounded by the id floor that a created_at lower bound implies (read along the primary key
 * where the customers above it are mostly candidates), in up to four id ranges at once.
 */
export class CustomerScan {
  private readonly customers: ReadableTable<Customer>;
  private readonly table: string;
  /** One floor lookup per `since` for everything this scan answers (a preview's count and page). */
  private readonly lookups = new Map<string, Promise<IdRange>>();

  constructor(
    private readonly tx: TenantReads,
    private readonly floors: IdFloors,
    private readonly slots: ScanSlots,
  ) {
    this.customers = tx.table(Customer);
    this.table = quote(this.customers.spec.table);
  }

  private get mysql() {
    return this.tx.dialect === 'mysql';
  }

  async count(selection: Selection): Promise<number> {
    if (!selection.evaluable) return 0;
    const counts = await this.scan(selection, (plan, where) =>
      this.tx.select<{ n: number | string }>(
        `SELECT COUNT(*) AS n FROM ${this.table} ${c}${plan.hint} WHERE ${sql(where)}`,
        params(where),
      ),
    );
    return counts.flat().reduce((sum, row) => sum + Number(row.n), 0);
  }

  /**
   * One page of members. With a created_at floor, the page is bounded by the id floor (carried in
   * the cursor, or remembered by this instance). Without a known one, the floor is looked up and,
   * newest first, the newest RECENT_IDS ids are tried meanwhile: a full page there needs no floor
   * (the lookup still lands in IdFloors for the next page); a short one waits for it.
   */
  async page(selection: Selection, request: MemberPageRequest): Promise<{ rows: Customer[]; meta: PageMeta }> {
    const total = request.withTotal ? await this.count(selection) : undefined;
    if (!selection.evaluable) return { rows: [], meta: meta(request, false, null, total) };
    const answer = (rows: Customer[], floor: IdFloor | null) => {
      const hasMore = rows.length > request.limit;
      const page = hasMore ? rows.slice(0, request.limit) : rows;
      const value = floor && `${floor.id}@${floor.since}`;
      const next = hasMore ? encodeCursor({ sort: request.sortKey, value, id: page[page.length - 1].id }) : null;
      return { rows: page, meta: meta(request, hasMore, next, total) };
    };
    const { since } = selection;
    if (since === null) return answer(await this.readPage(selection, request), null);
    const carried = request.floor && request.floor.since <= since ? request.floor : null;
    const known = carried ?? this.knownFloor(since);
    if (known) return answer(await this.readPage(selection, request, known.id), known);
    const lookup = this.idRange(since);
    lookup.catch(() => undefined); // when the page is answered without it, a failure is the next page's to report
    if (request.direction === 'DESC') {
      const top = request.after ?? (await this.newestId()) + 1;
      const recent = await this.readPage(selection, request, top - RECENT_IDS);
      if (recent.length > request.limit) return answer(recent, null);
    }
    const floor = { id: (await lookup).floor, since };
    return answer(await this.readPage(selection, request, floor.id), floor);
  }

  /** Members after the request's cursor, from `fromId` on, one more than the page holds. */
  private async readPage(selection: Selection, request: MemberPageRequest, fromId?: number): Promise<Customer[]> {
    const where = [this.customers.scope(c), selection.filter];
    const op = request.direction === 'DESC' ? '<' : '>';
    if (request.after !== undefined) where.push({ sql: `${c}.id ${op} ?`, params: [request.after] });
    if (fromId !== undefined) where.push({ sql: `${c}.id >= ?`, params: [fromId] });
    // FORCE, not USE: MariaDB would otherwise read the tenant by `ref` and skip to the cursor row by row.
    const hint = this.mysql ? ` FORCE INDEX (${quote(listIndexName(this.customers.spec.table, 'id'))})` : '';
    const rows = await this.tx.select<Record<string, unknown>>(
      `SELECT ${this.customers.spec.selectList(c)} FROM ${this.table} ${c}${hint}
        WHERE ${sql(where)} ORDER BY ${c}.id ${request.direction} LIMIT ${request.limit + 1}`,
      params(where),
    );
    return rows.map((row) => this.customers.spec.normalize(row));
  }

  /** The tenant's newest customer id (0 without customers): one probe of (tenant_id, id). */
  private async newestId(): Promise<number> {
    const scope = this.customers.scope(c);
    const [row] = await this.tx.select<{ id: number | string | null }>(
      `SELECT MAX(${c}.id) AS id FROM ${this.table} ${c} WHERE ${scope.sql}`,
      scope.params,
    );
    return Number(row?.id ?? 0);
  }

  /** A floor for `since` this instance already knows. */
  private knownFloor(since: string): IdFloor | null {
    const range = this.floors.find(this.tx.auth.tenantId, since);
    return range ? { id: range.floor, since } : null;
  }

  /** Selected customers per treatment bucket of a campaign (at most 10,000 buckets). */
  async buckets(selection: Selection, campaignId: number): Promise<{ bucket: number; customers: number }[]> {
    if (!selection.evaluable) return [];
    const bucket = bucketSql(this.tx.dialect, c, campaignId);
    const parts = await this.scan(selection, (plan, where) =>
      this.tx.select<{ bucket: number | string; customers: number | string }>(
        `SELECT ${bucket.sql} AS bucket, COUNT(*) AS customers FROM ${this.table} ${c}${plan.hint}
          WHERE ${sql(where)} GROUP BY bucket`,
        [...bucket.params, ...params(where)],
      ),
    );
    const totals = new Map<number, number>();
    for (const row of parts.flat()) {
      totals.set(Number(row.bucket), (totals.get(Number(row.bucket)) ?? 0) + Number(row.customers));
    }
    return [...totals].map(([b, customers]) => ({ bucket: b, customers }));
  }

  /** Runs `read` over the whole selection: once, or once per id range side by side. */
  private async scan<T>(selection: Selection, read: (plan: ScanPlan, where: Condition[]) => Promise<T[]>) {
    const plan = await this.plan(selection);
    if (plan.ranges.length <= 1) return [await this.slots.run(() => read(plan, plan.where))];
    return Promise.all(
      plan.ranges.map(([from, to]) =>
        this.slots.run(() =>
          read(plan, [
            ...plan.where,
            { sql: `${c}.id >= ?`, params: [from] },
            ...(to === null ? [] : [{ sql: `${c}.id < ?`, params: [to] }]),
          ]),
        ),
      ),
    );
  }

  /**
   * The tenant and the filter and, when the rules imply a created_at floor, `c.id >= floor`. On
   * MySQL/MariaDB the ids from the floor (or the tenant's lowest) are split into ranges read side
   * by side: the filters cost CPU per row (JSON, SHA-256), and one statement uses one core.
   */
  private async plan(selection: Selection): Promise<ScanPlan> {
    const where = [this.customers.scope(c), selection.filter];
    // Each statement would read the tracked events a behaviour node counts once more: one statement.
    const split = this.mysql && !selection.behaviour;
    if (selection.since !== null) {
      const range = await this.idRange(selection.since);
      where.push({ sql: `${c}.id >= ?`, params: [range.floor] });
      if (!this.mysql) return { where, hint: '', ranges: [] };
      const hint = denseAboveFloor(range) ? ' FORCE INDEX (PRIMARY)' : '';
      return { where, hint, ranges: split ? idRanges(range.floor, range.maxId) : [] };
    }
    if (!split) return { where, hint: '', ranges: [] };
    const scope = this.customers.scope(c);
    const [ids] = await this.tx.select<{ low: number | string | null; high: number | string | null }>(
      `SELECT MIN(${c}.id) AS low, MAX(${c}.id) AS high FROM ${this.table} ${c} WHERE ${scope.sql}`,
      scope.params,
    );
    const ranges = ids?.low == null || ids.high == null ? [] : idRanges(Number(ids.low), Number(ids.high));
    return { where, hint: '', ranges };
  }

  /** The id floor for `since`: a recent one of the tenant, else one range read of (tenant_id, created_at, id). */
  private idRange(since: string): Promise<IdRange> {
    let lookup = this.lookups.get(since);
    if (!lookup) {
      const tenantId = this.tx.auth.tenantId;
      const known = this.floors.find(tenantId, since);
      lookup = known
        ? Promise.resolve(known)
        : this.readIdRange(since).then((range) => {
            this.floors.remember(tenantId, range);
            return range;
          });
      this.lookups.set(since, lookup);
    }
    return lookup;
  }

  private async readIdRange(since: string): Promise<IdRange> {
    const scope = this.customers.scope(c);
    const newest = this.customers.scope('m');
    const [row] = await this.tx.select<{
      floor: number | string | null;
      n: number | string;
      max_id: number | string | null;
    }>(
      `SELECT MIN(${c}.id) AS floor, COUNT(*) AS n,
              (SELECT MAX(m.id) FROM ${this.table} m WHERE ${newest.sql}) AS max_id
         FROM ${this.table} ${c} WHERE ${scope.sql} AND ${c}.created_at >= ?`,
      [...newest.params, ...scope.params, since],
    );
    const maxId = Number(row?.max_id ?? 0);
    // With no candidate yet, only customers created after this read can be one.
    const floor = row?.floor === null || row?.floor === undefined ? maxId + 1 : Number(row.floor);
    return { since, floor, candidates: Number(row?.n ?? 0), maxId };
  }
}

/** CustomerScans of a request, sharing the instance's id floors and scan slots. */
@Injectable()
export class CustomerScans {
  constructor(
    private readonly floors: IdFloors,
    private readonly slots: ScanSlots,
  ) {}

  in(tx: TenantReads): CustomerScan {
    return new CustomerScan(tx, this.floors, this.slots);
  }
}

const sql = (conditions: Condition[]) => conditions.map((x) => `(${x.sql})`).join(' AND ');
const params = (conditions: Condition[]): SqlValue[] => conditions.flatMap((x) => x.params);

function meta(request: MemberPageRequest, hasMore: boolean, next: string | null, total?: number): PageMeta {
  const result: PageMeta = { limit: request.limit, next_cursor: next, has_more: hasMore };
  if (total !== undefined) result.total = total;
  return result;
}
