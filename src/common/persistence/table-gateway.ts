import { loggable, type ActivityEvent, type Attributes } from '../activity/activity-log.writer.js';
import type { FieldErrors } from '../http/api-exception.js';
import type { PageMeta } from '../http/page.js';
import { wholeSecondNow } from './columns.js';
import type { Sql, SqlValue } from './database.js';
import { uniqueViolationField, RetryTransaction } from './database-errors.js';
import { insertedIds } from './insert-ids.js';
import type { Announcement, ChangeLog, RecordChange } from './record-change.js';
import { keysetCondition, keysetOrder, pageOf, type Condition, type PageRequest } from './keyset.js';
import type { TableSpec } from './table-spec.js';
import { planUpserts, type KeyHolder, type UpsertOutcome, type UpsertRow } from './upsert-plan.js';
import { valuesTable } from './values-table.js';

/** Column values to match, by column name (null matches NULL). */
export type Where<E> = { [K in keyof E & string]?: E[K] | null };
/** Column values to write. */
export type Values<E> = { [K in keyof E & string]?: E[K] | null };

export const quote = (identifier: string) => `\`${identifier}\``;

/** A Where from column names decided at run time (a parent column, a target column). */
export function matching<E>(...pairs: [keyof E & string, SqlValue | null][]): Where<E> {
  return Object.fromEntries(pairs) as Where<E>;
}

/** Values equal as stored: instants by time, everything else by value. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : false;
  }
  return (a ?? null) === (b ?? null);
}

/** What a table needs to write: the write's journal, and how the database numbers a multi-row INSERT. */
export interface WriteSession {
  readonly journal: ChangeLog & { announce(announcement: Announcement): void };
  /**
   * The id step of a multi-row INSERT whose ids are consecutive, or null when they may interleave
   * with another statement's (InnoDB's interleaved auto-increment mode, Galera): see InsertIds.
   */
  insertStep(): Promise<number | null>;
}

/** What insertNew did with one row: stored it, or found its key stored already (by a row before, or by an earlier row of the list). */
export type InsertOutcome = { status: 'created' | 'duplicate'; id: number } | { status: 'failed'; errors: FieldErrors };

/** A counter update of one row (tally): columns to add to, and columns to raise to at least a value. */
export interface Tally<E> {
  id: number;
  add?: { [K in keyof E & string]?: number };
  atLeast?: { [K in keyof E & string]?: number };
}

/** Options of the set-based writes. */
export interface BulkOptions {
  /** One activity-log entry per record (default); false for an import, which logs one entry per job. */
  log?: boolean;
}

/** How a removal is recorded. */
export interface RemoveOptions {
  /** What the change feed's tombstone says beyond `{id, deleted_at}` (`reason: "merged"`). */
  tombstone?: Record<string, unknown>;
  /** The activity entry's description (`merged`), when it says more than `deleted`. */
  description?: string;
  /** An erasure: the activity entry keeps its event and date, and says only `{"erased": true}`. */
  forget?: boolean;
}

/**
 * A locking read, on MySQL/MariaDB: `true` for the rows this write changes or deletes (FOR UPDATE),
 * `'share'` for rows it only needs to stay (a link's two ends: their deletion waits for this write).
 */
export type RowLock = boolean | 'share';

/** An update of one row: the row as read (under lock) and the values to write. */
export interface RowUpdate<E> {
  existing: E;
  values: Values<E>;
}

/** Placeholders of one statement, under the limits of both databases (SQLite: 32,766). */
const MAX_PARAMS = 30_000;

/**
 * The rows of one table that a scope allows, read and written through one SQL connection (a
 * transaction or the pool): the one write path. Every statement it builds carries the scope's
 * condition (and hides soft-deleted rows); every insert is stamped with the scope, filled with the
 * columns' defaults, timestamps and sort keys; every insert, update and delete is recorded in the
 * write's journal (activity log, change feed), single-row and set-based alike. Writes exist only
 * inside Tables.write (one transaction, one retry policy). Column names come from the entity's
 * metadata and the service's code, never from a request. ScopedTable (one tenant) is the gate to
 * tenant-owned data; GlobalTable is the separately named way to tables above tenancy.
 */
export abstract class TableGateway<E extends { id: number }> {
  protected readonly t: string;

  constructor(
    readonly spec: TableSpec<E>,
    protected readonly sql: Sql,
    private readonly session: WriteSession | undefined,
  ) {
    this.t = quote(spec.table);
  }

  get dialect() {
    return this.sql.dialect;
  }

  /** The rows this gateway may see: every read starts with it. */
  abstract scope(alias?: string): Condition;
  /** Columns every insert gets from the scope (the tenant). */
  protected abstract stamp(): Record<string, unknown>;
  /** The tenant a change of `row` belongs to. */
  protected abstract tenantOf(row: E): number | null;
  /** `FORCE INDEX (...)` for an unfiltered list, where the table has one per sort. */
  protected abstract indexHint(sortField: string, filtered: boolean): string;

  /** `t.deleted_at IS NULL` for soft-deleted tables. */
  protected live(alias: string): string | undefined {
    return this.spec.softDeleteColumn ? `${alias}.${quote(this.spec.softDeleteColumn)} IS NULL` : undefined;
  }

  // ---- reads ----

  async findById(id: number, options: { lock?: RowLock } = {}): Promise<E | undefined> {
    const scope = this.scope();
    const lock = this.lock(options);
    const sql = this.spec.statements.of(
      `id|${scope.sql}|${lock}`,
      () => `SELECT ${this.spec.selectList(this.t)} FROM ${this.t} WHERE ${this.t}.id = ? AND ${scope.sql}${lock}`,
    );
    const [row] = await this.sql.query<Record<string, unknown>>(sql, [id, ...scope.params]);
    return row && this.spec.normalize(row);
  }

  /** The rows of these ids that the scope has, in no particular order (with `lock`, locked for this transaction). */
  async findMany(ids: readonly number[], options: { lock?: RowLock } = {}): Promise<E[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const scope = this.scope();
    const rows = await this.sql.query<Record<string, unknown>>(
      `SELECT ${this.spec.selectList(this.t)} FROM ${this.t}
        WHERE ${this.t}.id IN (${unique.map(() => '?').join(', ')}) AND ${scope.sql}${this.lock(options)}`,
      [...unique, ...scope.params],
    );
    return rows.map((row) => this.spec.normalize(row));
  }

  /** Every row matching `where`, oldest first. For small sets (a campaign's children), never for lists. */
  async findWhere(where: Where<E>): Promise<E[]> {
    const condition = this.where(where);
    const rows = await this.sql.query<Record<string, unknown>>(
      `SELECT ${this.spec.selectList(this.t)} FROM ${this.t} WHERE ${condition.sql} ORDER BY ${this.t}.id`,
      condition.params,
    );
    return rows.map((row) => this.spec.normalize(row));
  }

  /** Every row whose `column` holds one of `values`, oldest first. For small sets, never for lists. */
  async findIn(column: keyof E & string, values: readonly SqlValue[]): Promise<E[]> {
    this.assertColumn(column);
    if (values.length === 0) return [];
    const scope = this.scope();
    const rows = await this.sql.query<Record<string, unknown>>(
      `SELECT ${this.spec.selectList(this.t)} FROM ${this.t}
        WHERE ${this.t}.${quote(column)} IN (${values.map(() => '?').join(', ')}) AND ${scope.sql} ORDER BY ${this.t}.id`,
      [...values, ...scope.params],
    );
    return rows.map((row) => this.spec.normalize(row));
  }

  /**
   * At most `limit` rows of the scope matching `conditions` (which name the table by its quoted
   * name), in `orderBy` order (default id), locked with `lock`: one batch of a set-based job (an
   * erasure's or a retention's deletes), read where an index serves the order.
   */
  async findBatch(
    conditions: readonly Condition[],
    options: { limit: number; orderBy?: readonly (keyof E & string)[]; lock?: RowLock },
  ): Promise<E[]> {
    const order = (options.orderBy ?? ['id']).map((column) => {
      this.assertColumn(column);
      return `${this.t}.${quote(column)}`;
    });
    const where = [this.scope(), ...conditions];
    const rows = await this.sql.query<Record<string, unknown>>(
      `SELECT ${this.spec.selectList(this.t)} FROM ${this.t} WHERE ${where.map((c) => c.sql).join(' AND ')}
        ORDER BY ${order.join(', ')} LIMIT ${Math.max(1, Math.floor(options.limit))}${this.lock(options)}`,
      where.flatMap((c) => c.params),
    );
    return rows.map((row) => this.spec.normalize(row));
  }

  async count(where: Where<E>, exceptId?: number): Promise<number> {
    const condition = this.where(where, exceptId);
    const [row] = await this.sql.query<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM ${this.t} WHERE ${condition.sql}`,
      condition.params,
    );
    return Number(row?.n ?? 0);
  }

  async exists(where: Where<E>, exceptId?: number): Promise<boolean> {
    const condition = this.where(where, exceptId);
    const rows = await this.sql.query(
      `SELECT 1 AS found FROM ${this.t} WHERE ${condition.sql} LIMIT 1`,
      condition.params,
    );
    return rows.length > 0;
  }

  /** SUM(column) over the matching rows, 0 when there are none. */
  async sum(column: keyof E & string, where: Where<E>, exceptId?: number): Promise<number> {
    this.assertColumn(column);
    const condition = this.where(where, exceptId);
    const [row] = await this.sql.query<{ total: number | string | null }>(
      `SELECT COALESCE(SUM(${this.t}.${quote(column)}), 0) AS total FROM ${this.t} WHERE ${condition.sql}`,
      condition.params,
    );
    return Number(row?.total ?? 0);
  }

  /**
   * One keyset page: the scope's rows matching `conditions`, after the request's cursor. An
   * unfiltered list forces the index of its sort on MySQL/MariaDB: otherwise MariaDB plans a
   * deep page as a walk of every newer row of the tenant (docs/performance.md).
   */
  async page(request: PageRequest, conditions: Condition[], filtered: boolean): Promise<{ rows: E[]; meta: PageMeta }> {
    const { sort } = request;
    const sortColumn = this.spec.sortColumn(sort.field);
    const column = `${this.t}.${quote(sortColumn)}`;
    const id = `${this.t}.id`;
    const where = [this.scope(), ...conditions];
    const hint = this.indexHint(sort.field, filtered);
    const total = request.withTotal ? await this.countWhere(where) : undefined;
    if (request.after) where.push(keysetCondition(column, id, sort, request.after));
    const whereSql = where.map((c) => c.sql).join(' AND ');
    const sql = this.spec.statements.of(
      `page|${hint}|${whereSql}|${sort.field}|${sort.direction}|${request.limit}`,
      () =>
        `SELECT ${this.spec.selectList(this.t)} FROM ${this.t}${hint}
        WHERE ${whereSql}
        ORDER BY ${keysetOrder(column, id, sort)} LIMIT ${request.limit + 1}`,
    );
    const rows = await this.sql.query<Record<string, unknown>>(
      sql,
      where.flatMap((c) => c.params),
    );
    return pageOf(
      rows.map((row) => this.spec.normalize(row)),
      request,
      total,
      (row) => ({ value: (row as Record<string, unknown>)[sortColumn], id: Number(row.id) }),
    );
  }

  /**
   * For each of `keys` (values of a unique column of the scope): the row that holds it, if any. By
   * default one `IN (...)` read, matched back here byte for byte (both databases compare such keys
   * exactly); with `byDatabase` (or when a found key matches none of `keys` that way), the
   * database pairs them itself, by its own comparison.
   */
  async keyHolders(
    column: keyof E & string,
    keys: readonly string[],
    byDatabase = false,
  ): Promise<Map<string, KeyHolder>> {
    this.assertColumn(column);
    const holders = new Map<string, KeyHolder>();
    if (keys.length === 0) return holders;
    const scope = this.scope('c');
    if (!byDatabase) {
      const found = await this.sql.query<{ id: number | string; stored: string }>(
        `SELECT c.id AS id, c.${quote(column)} AS stored FROM ${this.t} c
          WHERE ${scope.sql} AND c.${quote(column)} IN (${keys.map(() => '?').join(', ')})`,
        [...scope.params, ...keys],
      );
      const wanted = new Set(keys);
      if (found.every((row) => wanted.has(row.stored))) {
        for (const row of found) holders.set(row.stored, { id: Number(row.id), stored: row.stored });
        return holders;
      }
    }
    const v = valuesTable(
      this.dialect,
      ['k'],
      [...new Set(keys)].map((key) => [key]),
      'v',
    );
    const found = await this.sql.query<{ k: string; id: number | string; stored: string }>(
      `SELECT v.k AS k, c.id AS id, c.${quote(column)} AS stored
         FROM ${v.sql} JOIN ${this.t} c ON ${scope.sql} AND c.${quote(column)} = v.k`,
      [...v.params, ...scope.params],
    );
    for (const row of found) holders.set(row.k, { id: Number(row.id), stored: row.stored });
    return holders;
  }

  // ---- writes: every one inside Tables.write, recorded in its journal ----

  /** Inserts a row (stamped, defaults, timestamps and sort keys filled); answers the row as stored. */
  async insert(values: Values<E>): Promise<E> {
    const [row] = await this.insertMany([values]);
    return row;
  }

  /**
   * Inserts rows in multi-row INSERTs; answers them as stored, with their ids. `key` names a unique
   * column the new rows carry: where the database may interleave the ids of one statement with
   * another's, the ids are read back by it (rows without it are inserted one by one).
   */
  async insertMany(list: readonly Values<E>[], options: BulkOptions & { key?: keyof E & string } = {}): Promise<E[]> {
    const session = this.writes();
    if (list.length === 0) return [];
    const now = wholeSecondNow();
    const rows = list.map((values) => this.newRow(values, now));
    const perStatement = Math.max(1, Math.floor(MAX_PARAMS / this.spec.insertColumns.length));
    for (let start = 0; start < rows.length; start += perStatement) {
      await this.insertRows(rows.slice(start, start + perStatement), session, options.key);
    }
    for (const row of rows) {
      this.journal('created', row, [], options.log === false ? null : { attributes: this.loggedOf(row), old: null });
    }
    return rows as unknown as E[];
  }

  /**
   * Inserts what a SELECT yields, set-based, in one statement: the select's columns fill `columns`
   * in order, and the verb adds the scope's (the tenant) and the timestamps (a table that has them); columns not named take
   * their defaults. For rows that are parts of a record rather than records (a run's members,
   * snapshotted from a million customers): none is recorded one by one (no activity entry, no
   * event), and a table with sort keys is refused (they are computed by the gateway, row by row).
   * Answers how many rows went in.
   */
  async insertSelect(
    columns: readonly (keyof E & string)[],
    select: { sql: string; params: SqlValue[] },
  ): Promise<number> {
    this.writes();
    for (const column of columns) this.assertColumn(column);
    if (this.spec.sortKeys.size) throw new Error(`${this.spec.table}: insertSelect writes no sort keys`);
    const now = wholeSecondNow();
    const added = Object.entries(this.stamp());
    if (this.spec.has('created_at')) added.push(['created_at', now], ['updated_at', now]);
    const names = [...columns, ...added.map(([column]) => column)];
    const { affected } = await this.sql.run(
      `INSERT INTO ${this.t} (${names.map(quote).join(', ')})
       SELECT s.*${added.map(() => ', ?').join('')} FROM (${select.sql}) s`,
      [...added.map(([, value]) => value as SqlValue), ...select.params],
    );
    return affected;
  }

  /**
   * Writes the values that differ from `existing` (read through this table) and records them.
   * Answers the row as it now is, or undefined when it is gone (deleted meanwhile): a write never
   * brings a deleted row back.
   */
  async update(existing: E, given: Values<E>, options: { description?: string } = {}): Promise<E | undefined> {
    this.writes();
    const before = existing as Record<string, unknown>;
    const values = this.spec.withSortKeys(given) as Record<string, unknown>;
    const changed = this.changedColumns(before, values);
    if (changed.length === 0) return existing;
    const updatedAt = wholeSecondNow();
    const scope = this.scope();
    const { affected } = await this.sql.run(
      `UPDATE ${this.t} SET ${changed.map((c) => `${quote(c)} = ?`).join(', ')}, updated_at = ?
        WHERE ${this.t}.id = ? AND ${scope.sql}`,
      [...changed.map((c) => (values[c] ?? null) as SqlValue), updatedAt, existing.id, ...scope.params],
    );
    if (affected === 0) return undefined;
    const updated = Object.assign({}, existing, values, { updated_at: updatedAt });
    this.journalUpdate(updated, before, changed, true, options.description);
    return updated;
  }

  /**
   * Updates many rows read under lock in this transaction (findMany with `lock`), in one UPDATE
   * joined to their new values. Rows whose values change nothing are not written. Answers the rows
   * as they now are, in the order given.
   */
  async updateMany(updates: readonly RowUpdate<E>[], options: BulkOptions = {}): Promise<E[]> {
    this.writes();
    const results: E[] = [];
    const written: { after: Record<string, unknown>; before: Record<string, unknown>; changed: string[] }[] = [];
    const columns = new Set<string>();
    for (const { existing, values } of updates) {
      const before = existing as Record<string, unknown>;
      const given = this.spec.withSortKeys(values) as Record<string, unknown>;
      const changed = this.changedColumns(before, given);
      if (changed.length === 0) {
        results.push(existing);
        continue;
      }
      const after = Object.assign({}, before, given);
      for (const column of changed) columns.add(column);
      written.push({ after, before, changed });
      results.push(after as E);
    }
    if (written.length === 0) return results;
    const updatedAt = wholeSecondNow();
    const set = [...columns];
    for (let start = 0, per = Math.floor(MAX_PARAMS / (set.length + 1)); start < written.length; start += per) {
      await this.updateRows(
        written.slice(start, start + per).map((w) => w.after),
        set,
        updatedAt,
      );
    }
    for (const w of written) {
      w.after.updated_at = updatedAt;
      this.journalUpdate(w.after, w.before, w.changed, options.log !== false);
    }
    return results;
  }

  /**
   * Creates or updates many rows in a handful of statements, by `key` (a unique column of the
   * scope) or by a row's own `id`: one lookup of the keys, one locking read of the rows to update,
   * multi-row INSERTs and one joined UPDATE. A row naming an `id` updates that row; any other row
   * with a key updates its holder or creates it; a row with neither creates one. The later of two
   * rows with one key (or one id) fails, as does a row whose values change nothing (`unchanged`,
   * not written). A concurrent writer that creates one of the keys first, or moves one between the
   * lookup and the lock, makes the transaction run again (RetryTransaction), which then finds it.
   */
  async upsertMany(
    rows: readonly UpsertRow<E>[],
    options: BulkOptions & {
      key: keyof E & string;
      attempt: number;
      /**
       * Asked, once the rows to create are known, how many of them may be created (a plan's cap);
       * the later ones fail with `refusal`. Undefined: all of them.
       */
      creates?: (wanted: number) => Promise<{ max: number; refusal: FieldErrors } | undefined>;
    },
  ): Promise<UpsertOutcome[]> {
    this.writes();
    const { key } = options;
    const keys = rows
      .map((row) => row.values[key])
      .filter((value): value is string & E[keyof E & string] => typeof value === 'string');
    // A second attempt lost a race the first lookup may have misread: the database pairs the keys.
    const holders = await this.keyHolders(key, keys as string[], options.attempt > 1);
    const plan = planUpserts(rows, key, holders);
    const locked = new Map((await this.findMany(plan.targets, { lock: true })).map((row) => [row.id, row]));
    const outcomes = plan.outcomes;
    const creates: number[] = [];
    const updates: number[] = [];
    rows.forEach((row, i) => {
      if (outcomes[i]) return;
      const id = plan.target[i];
      const before = id === undefined ? undefined : locked.get(id);
      if (id !== undefined && !before && row.id !== undefined) {
        outcomes[i] = { status: 'failed', errors: { id: ['The selected id is invalid.'] } };
        return;
      }
      if (!before) return void creates.push(i);
      const heldKey = holders.get(row.values[key] as string)?.stored;
      if (row.id === undefined && (before as Record<string, unknown>)[key] !== heldKey) {
        throw new RetryTransaction(`a ${key} moved between the lookup and the lock`);
      }
      updates.push(i);
    });
    const allowed = creates.length && options.creates ? await options.creates(creates.length) : undefined;
    if (allowed && creates.length > allowed.max) {
      for (const i of creates.splice(allowed.max)) outcomes[i] = { status: 'failed', errors: allowed.refusal };
    }
    let created: E[];
    try {
      created = await this.insertMany(
        creates.map((i) => rows[i].values),
        { log: options.log, key },
      );
    } catch (error) {
      if (uniqueViolationField(error) === key) throw new RetryTransaction(`a concurrent write created a ${key}`);
      throw error;
    }
    creates.forEach((i, n) => (outcomes[i] = { status: 'created', id: created[n].id }));
    const updated = await this.updateMany(
      updates.map((i) => ({ existing: locked.get(plan.target[i]!)!, values: rows[i].values })),
      options,
    );
    updates.forEach((i, n) => {
      const before = locked.get(plan.target[i]!)!;
      outcomes[i] = { status: updated[n] === before ? 'unchanged' : 'updated', id: before.id };
    });
    return outcomes as UpsertOutcome[];
  }

  /**
   * Inserts the rows whose `key` (a unique column of the scope) no row holds yet, in multi-row
   * INSERTs, and answers for each row its id and whether it was `created` or is a `duplicate` of
   * the key's holder (a row stored before, or an earlier row of `list` with the same key): one
   * lookup of the keys, then the INSERTs. A concurrent writer that inserts one of the keys first
   * makes an INSERT break the unique index and the transaction run again (RetryTransaction), and
   * that run finds the key: a key is stored once, however writers race. `creates` is asked, as
   * upsertMany asks it, how many of the new rows may be stored (a plan's daily cap); the later ones
   * fail with its refusal.
   */
  async insertNew(
    list: readonly Values<E>[],
    options: BulkOptions & {
      key: keyof E & string;
      attempt: number;
      creates?: (wanted: number) => Promise<{ max: number; refusal: FieldErrors } | undefined>;
    },
  ): Promise<InsertOutcome[]> {
    this.writes();
    const { key } = options;
    const keys = list.map((values) => {
      const value = values[key];
      if (typeof value !== 'string') throw new Error(`insertNew: every row needs its ${key}`);
      return value;
    });
    // A second attempt lost a race the first lookup may have misread: the database pairs the keys.
    const holders = await this.keyHolders(key, [...new Set(keys)], options.attempt > 1);
    const outcomes: (InsertOutcome | undefined)[] = new Array<InsertOutcome | undefined>(list.length);
    const first = new Map<string, number>();
    const creates: number[] = [];
    keys.forEach((value, i) => {
      const holder = holders.get(value);
      if (holder) outcomes[i] = { status: 'duplicate', id: holder.id };
      else if (!first.has(value)) {
        first.set(value, i);
        creates.push(i);
      }
    });
    const allowed = creates.length && options.creates ? await options.creates(creates.length) : undefined;
    if (allowed && creates.length > allowed.max) {
      for (const i of creates.splice(allowed.max)) outcomes[i] = { status: 'failed', errors: allowed.refusal };
    }
    let created: E[];
    try {
      created = await this.insertMany(
        creates.map((i) => list[i]),
        { log: options.log, key },
      );
    } catch (error) {
      if (uniqueViolationField(error) === key) throw new RetryTransaction(`a concurrent write stored a ${key}`);
      throw error;
    }
    creates.forEach((i, n) => (outcomes[i] = { status: 'created', id: created[n].id }));
    // A later row of a key: a duplicate of the row stored for it (or refused with it).
    return keys.map((value, i) => {
      const outcome = outcomes[i] ?? outcomes[first.get(value)!]!;
      return outcome.status === 'created' && i !== first.get(value) ? { status: 'duplicate', id: outcome.id } : outcome;
    });
  }

  /**
   * One UPDATE of every row of the scope matching `conditions` (which name the table by its quoted
   * name), for tables declared Unrecorded, whose changes nobody follows (a merge moves a customer's
   * tracked events to the survivor); a recorded table's changes go through update or updateMany,
   * which record each. Answers how many rows changed.
   */
  async updateMatching(conditions: readonly Condition[], given: Values<E>): Promise<number> {
    this.writes();
    if (this.spec.recorded) throw new Error(`${this.spec.table}: updateMatching is for Unrecorded tables`);
    const values = this.spec.withSortKeys(given) as Record<string, unknown>;
    const columns = Object.keys(values).filter((column) => column !== 'updated_at' && column !== 'id');
    for (const column of columns) this.assertColumn(column);
    if (columns.length === 0) return 0;
    const where = [this.scope(), ...conditions];
    const { affected } = await this.sql.run(
      `UPDATE ${this.t} SET ${columns.map((c) => `${quote(c)} = ?`).join(', ')}, updated_at = ?
        WHERE ${where.map((c) => c.sql).join(' AND ')}`,
      [...columns.map((c) => (values[c] ?? null) as SqlValue), wholeSecondNow(), ...where.flatMap((c) => c.params)],
    );
    return affected;
  }

  /**
   * Moves counters a table keeps on its rows (a dictionary's counts, the newest instant it saw):
   * each column of `add` grows by its value, each of `atLeast` becomes at least its value. One
   * UPDATE per row, in id order, so that two tallies of the same rows never wait on each other in
   * a circle. Like claim, no change of the record: nothing is recorded.
   */
  async tally(rows: readonly Tally<E>[]): Promise<void> {
    this.writes();
    const scope = this.scope();
    for (const row of [...rows].sort((a, b) => a.id - b.id)) {
      const set: string[] = [];
      const params: SqlValue[] = [];
      for (const [column, delta] of Object.entries(row.add ?? {}) as [string, number][]) {
        this.assertColumn(column);
        set.push(`${quote(column)} = ${quote(column)} + ?`);
        params.push(delta);
      }
      for (const [column, least] of Object.entries(row.atLeast ?? {}) as [string, number][]) {
        this.assertColumn(column);
        const c = quote(column);
        set.push(`${c} = CASE WHEN ${c} IS NULL OR ${c} < ? THEN ? ELSE ${c} END`);
        params.push(least, least);
      }
      if (set.length === 0) continue;
      await this.sql.run(`UPDATE ${this.t} SET ${set.join(', ')} WHERE ${this.t}.id = ? AND ${scope.sql}`, [
        ...params,
        row.id,
        ...scope.params,
      ]);
    }
  }

  /**
   * Marks a row as changed when only its parts that live in other rows changed (an audience's
   * rules): its updated_at moves and the change is recorded with those parts' values. Answers the
   * new updated_at.
   */
  async updateParts(
    existing: E,
    attributes: Attributes,
    old: Attributes,
    options: { description?: string } = {},
  ): Promise<Date> {
    this.writes();
    const updatedAt = wholeSecondNow();
    const scope = this.scope();
    await this.sql.run(`UPDATE ${this.t} SET updated_at = ? WHERE ${this.t}.id = ? AND ${scope.sql}`, [
      updatedAt,
      existing.id,
      ...scope.params,
    ]);
    const row = Object.assign({}, existing, { updated_at: updatedAt });
    this.journal('updated', row, Object.keys(attributes), { attributes, old, description: options.description });
    return updatedAt;
  }

  /** Deletes (or soft-deletes) a row read through this table and records it; false when it was already gone. */
  async remove(existing: E, options: RemoveOptions = {}): Promise<boolean> {
    this.writes();
    const scope = this.scope();
    const { affected } = this.spec.softDeleteColumn
      ? await this.sql.run(
          `UPDATE ${this.t} SET ${quote(this.spec.softDeleteColumn)} = ? WHERE ${this.t}.id = ? AND ${scope.sql}`,
          [wholeSecondNow(), existing.id, ...scope.params],
        )
      : await this.sql.run(`DELETE FROM ${this.t} WHERE ${this.t}.id = ? AND ${scope.sql}`, [
          existing.id,
          ...scope.params,
        ]);
    if (affected === 0) return false;
    this.journalRemoval(existing, options);
    return true;
  }

  /**
   * Deletes (or soft-deletes) rows read under lock in this transaction (findMany with `lock`), in
   * one statement per few thousand, each recorded as `remove` records it.
   */
  async removeMany(rows: readonly E[], options: RemoveOptions = {}): Promise<void> {
    this.writes();
    const scope = this.scope();
    for (let start = 0; start < rows.length; start += MAX_PARAMS / 2) {
      const slice = rows.slice(start, start + MAX_PARAMS / 2);
      const ids = slice.map((row) => row.id);
      const matching = `${this.t}.id IN (${ids.map(() => '?').join(', ')}) AND ${scope.sql}`;
      const { affected } = this.spec.softDeleteColumn
        ? await this.sql.run(`UPDATE ${this.t} SET ${quote(this.spec.softDeleteColumn)} = ? WHERE ${matching}`, [
            wholeSecondNow(),
            ...ids,
            ...scope.params,
          ])
        : await this.sql.run(`DELETE FROM ${this.t} WHERE ${matching}`, [...ids, ...scope.params]);
      if (affected !== slice.length) throw new RetryTransaction(`${slice.length - affected} locked rows went missing`);
    }
    for (const row of rows) this.journalRemoval(row, options);
  }

  /** Removes every matching row, each recorded. Answers how many went. */
  async removeWhere(where: Where<E>): Promise<number> {
    let removed = 0;
    for (const row of await this.findWhere(where)) if (await this.remove(row)) removed++;
    return removed;
  }

  /**
   * Increments a counter column of a row (see ParentDefinition.serializeOn, VersionCounterColumn):
   * a write every transaction that claims the row makes, so that they conflict. Not a change of the
   * record. False when the row is not there.
   */
  async claim(id: number, column: string): Promise<boolean> {
    this.writes();
    this.assertColumn(column);
    const scope = this.scope();
    const { affected } = await this.sql.run(
      `UPDATE ${this.t} SET ${quote(column)} = ${quote(column)} + 1 WHERE ${this.t}.id = ? AND ${scope.sql}`,
      [id, ...scope.params],
    );
    return affected === 1;
  }

  // ---- internals ----

  private writes(): WriteSession {
    if (!this.session) throw new Error(`${this.spec.table}: writes go through Tables.write, in its transaction`);
    return this.session;
  }

  private lock(options: { lock?: RowLock }): string {
    if (!options.lock || this.sql.dialect !== 'mysql') return ''; // SQLite: one writer at a time anyway
    return options.lock === 'share' ? ' LOCK IN SHARE MODE' : ' FOR UPDATE';
  }

  /** A new row as an INSERT that names every column writes it. */
  private newRow(values: Values<E>, now: Date): Record<string, unknown> {
    const row: Record<string, unknown> = Object.assign(this.spec.defaults(), values, this.stamp());
    row.created_at = now;
    row.updated_at = now;
    return this.spec.fillSortKeys(row);
  }

  private async insertRows(rows: Record<string, unknown>[], session: WriteSession, key?: string): Promise<void> {
    const columns = this.spec.insertColumns;
    const valuesOf = (row: Record<string, unknown>) => columns.map((c) => (row[c] ?? null) as SqlValue);
    const one = async (row: Record<string, unknown>) => {
      row.id = (await this.sql.insertRows(this.spec.table, columns, [valuesOf(row)])).insertId;
    };
    if (rows.length === 1) return one(rows[0]);
    const step = await session.insertStep();
    const options = this.spec.loadData ? undefined : { loadData: false };
    if (step !== null) {
      const { insertId, affected } = await this.sql.insertRows(this.spec.table, columns, rows.map(valuesOf), options);
      if (affected !== rows.length) throw new Error(`A multi-row INSERT wrote ${affected} of ${rows.length} rows.`);
      const ids = insertedIds(this.sql.dialect, insertId, rows.length, step);
      rows.forEach((row, n) => (row.id = ids[n]));
      return;
    }
    const keyed = key ? rows.filter((row) => typeof row[key] === 'string') : [];
    if (keyed.length > 1) {
      await this.sql.insertRows(this.spec.table, columns, keyed.map(valuesOf), options);
      const holders = await this.keyHolders(
        key as keyof E & string,
        keyed.map((row) => row[key!] as string),
      );
      for (const row of keyed) {
        const holder = holders.get(row[key!] as string);
        if (!holder) throw new Error(`An inserted ${this.spec.table} row could not be read back by its ${key}.`);
        row.id = holder.id;
      }
    }
    const inserted = new Set(keyed.length > 1 ? keyed : []);
    for (const row of rows) if (!inserted.has(row)) await one(row);
  }

  /** Writes `columns` of each row (and updated_at) in one UPDATE joined to the new values. */
  private async updateRows(rows: Record<string, unknown>[], columns: string[], updatedAt: Date): Promise<void> {
    if (rows.length === 1) {
      const scope = this.scope();
      await this.sql.run(
        `UPDATE ${this.t} SET ${columns.map((c) => `${quote(c)} = ?`).join(', ')}, updated_at = ?
          WHERE ${this.t}.id = ? AND ${scope.sql}`,
        [...columns.map((c) => (rows[0][c] ?? null) as SqlValue), updatedAt, rows[0].id as number, ...scope.params],
      );
      return;
    }
    const names = ['id', ...columns];
    const v = valuesTable(
      this.dialect,
      names.map((_, i) => `v${i}`),
      rows.map((row) => names.map((c) => (row[c] ?? null) as SqlValue)),
      'v',
    );
    if (this.dialect === 'mysql') {
      const scope = this.scope('c');
      const set = columns.map((c, i) => `c.${quote(c)} = v.v${i + 1}`).join(', ');
      await this.sql.run(
        `UPDATE ${this.t} c JOIN ${v.sql} ON c.id = v.v0 SET ${set}, c.updated_at = ? WHERE ${scope.sql}`,
        [...v.params, updatedAt, ...scope.params],
      );
    } else {
      const scope = this.scope(this.t);
      const set = columns.map((c, i) => `${quote(c)} = v.v${i + 1}`).join(', ');
      await this.sql.run(
        `UPDATE ${this.t} SET ${set}, updated_at = ? FROM ${v.sql} WHERE ${this.t}.id = v.v0 AND ${scope.sql}`,
        [updatedAt, ...v.params, ...scope.params],
      );
    }
  }

  private changedColumns(before: Record<string, unknown>, values: Record<string, unknown>): string[] {
    const changed: string[] = [];
    for (const column of Object.keys(values)) {
      if (column === 'updated_at' || column === 'id' || sameValue(values[column], before[column])) continue;
      this.assertColumn(column);
      changed.push(column);
    }
    return changed;
  }

  private journalUpdate(
    after: Record<string, unknown>,
    before: Record<string, unknown>,
    changed: string[],
    log: boolean,
    description?: string,
  ): void {
    const logged = changed.filter((column) => this.spec.isLogged(column));
    // A change of bookkeeping columns only (sort keys follow their column) is not a change of the record.
    if (logged.length === 0) return;
    this.journal(
      'updated',
      after,
      logged,
      log ? { attributes: loggable(after, logged), old: loggable(before, logged), description } : null,
    );
  }

  private journalRemoval(row: E, options: RemoveOptions): void {
    const activity = options.forget
      ? { attributes: {}, old: null, properties: { erased: true } }
      : { attributes: {}, old: this.loggedOf(row as Record<string, unknown>), description: options.description };
    this.journal('deleted', row as E & Record<string, unknown>, [], activity, options.tombstone);
  }

  private journal(
    event: ActivityEvent,
    row: Record<string, unknown>,
    fields: readonly string[],
    activity: RecordChange['activity'],
    tombstone?: Record<string, unknown>,
  ): void {
    if (!this.spec.recorded) return;
    this.session!.journal.record({
      entityName: this.spec.entityName,
      tenantId: this.tenantOf(row as unknown as E),
      event,
      row: row as Record<string, unknown> & { id: number },
      fields,
      activity,
      tombstone,
    });
  }

  private loggedOf(row: Record<string, unknown>): Attributes {
    return loggable(row, this.spec.loggedColumns);
  }

  private async countWhere(conditions: Condition[]): Promise<number> {
    const [row] = await this.sql.query<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM ${this.t} WHERE ${conditions.map((c) => c.sql).join(' AND ')}`,
      conditions.flatMap((c) => c.params),
    );
    return Number(row?.n ?? 0);
  }

  private where(where: Where<E>, exceptId?: number): Condition {
    const scope = this.scope();
    const parts = [scope.sql];
    const params: SqlValue[] = [...scope.params];
    for (const [column, value] of Object.entries(where)) {
      this.assertColumn(column);
      if (value === null) parts.push(`${this.t}.${quote(column)} IS NULL`);
      else {
        parts.push(`${this.t}.${quote(column)} = ?`);
        params.push(value as SqlValue);
      }
    }
    if (exceptId !== undefined) {
      parts.push(`${this.t}.id <> ?`);
      params.push(exceptId);
    }
    return { sql: parts.join(' AND '), params };
  }

  private assertColumn(column: string): void {
    if (!this.spec.has(column)) throw new Error(`${this.spec.table} has no column ${column}`);
  }
}
