import { loggable, recordActivity, type Actor, type Attributes } from '../activity/activity-log.writer.js';
import { wholeSecondNow } from './columns.js';
import type { Sql, SqlValue } from './database.js';
import type { TableSpec } from './table-spec.js';
import type { PageMeta } from '../http/page.js';
import { keysetCondition, keysetOrder, pageOf, type Condition, type PageRequest } from './keyset.js';

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

/**
 * The rows of one table that a scope allows, read and written through one SQL connection (a
 * transaction or the pool). Every statement it builds carries the scope's condition (and hides
 * soft-deleted rows); every insert, update and delete writes its activity-log entry in the same
 * transaction. Column names come from the entity's metadata and the service's code, never from a
 * request. ScopedTable (one tenant) is the gate to tenant-owned data; GlobalTable is the separately
 * named way to tables above tenancy.
 */
export abstract class TableGateway<E extends { id: number }> {
  protected readonly t: string;

  constructor(
    readonly spec: TableSpec<E>,
    protected readonly sql: Sql,
    protected readonly actor: Actor,
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
  /** The tenant an activity entry about `row` belongs to. */
  protected abstract tenantOf(row: E): number | null;
  /** `FORCE INDEX (...)` for an unfiltered list, where the table has one per sort. */
  protected abstract indexHint(sortField: string, filtered: boolean): string;

  /** `t.deleted_at IS NULL` for soft-deleted tables. */
  protected live(alias: string): string | undefined {
    return this.spec.softDeleteColumn ? `${alias}.${quote(this.spec.softDeleteColumn)} IS NULL` : undefined;
  }

  async findById(id: number, options: { lock?: boolean } = {}): Promise<E | undefined> {
    const scope = this.scope();
    const lock = options.lock && this.sql.dialect === 'mysql' ? ' FOR UPDATE' : '';
    const [row] = await this.sql.query<Record<string, unknown>>(
      `SELECT ${this.spec.selectList(this.t)} FROM ${this.t} WHERE ${this.t}.id = ? AND ${scope.sql}${lock}`,
      [id, ...scope.params],
    );
    return row && this.spec.normalize(row);
  }

  /** The rows of these ids that the tenant has, in no particular order. */
  async findMany(ids: readonly number[]): Promise<E[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const scope = this.scope();
    const rows = await this.sql.query<Record<string, unknown>>(
      `SELECT ${this.spec.selectList(this.t)} FROM ${this.t}
        WHERE ${this.t}.id IN (${unique.map(() => '?').join(', ')}) AND ${scope.sql}`,
      [...unique, ...scope.params],
    );
    return rows.map((row) => this.spec.normalize(row));
  }

  /**
   * Increments a counter column of a row (see ParentDefinition.serializeOn): a write every
   * transaction that claims the row makes, so that they conflict. False when the row is not there.
   */
  async claim(id: number, column: string): Promise<boolean> {
    this.assertColumn(column);
    const scope = this.scope();
    const { affected } = await this.sql.run(
      `UPDATE ${this.t} SET ${quote(column)} = ${quote(column)} + 1 WHERE ${this.t}.id = ? AND ${scope.sql}`,
      [id, ...scope.params],
    );
    return affected === 1;
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
   * One keyset page: the tenant's rows matching `conditions`, after the request's cursor. An
   * unfiltered list forces the index of its sort on MySQL/MariaDB: otherwise MariaDB plans a
   * deep page as a walk of every newer row of the tenant (README, Performance).
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
    const rows = await this.sql.query<Record<string, unknown>>(
      `SELECT ${this.spec.selectList(this.t)} FROM ${this.t}${hint}
        WHERE ${where.map((c) => c.sql).join(' AND ')}
        ORDER BY ${keysetOrder(column, id, sort)} LIMIT ${request.limit + 1}`,
      where.flatMap((c) => c.params),
    );
    return pageOf(
      rows.map((row) => this.spec.normalize(row)),
      request,
      total,
      (row) => ({ value: (row as Record<string, unknown>)[sortColumn], id: Number(row.id) }),
    );
  }

  /** Inserts a row into the tenant (timestamps set, defaults filled) and logs it; answers the row as stored. */
  async insert(values: Values<E>): Promise<E> {
    const now = wholeSecondNow();
    const row: Record<string, unknown> = this.spec.withSortKeys(
      Object.assign(this.spec.defaults(), values, this.stamp(), { created_at: now, updated_at: now }),
    );
    const columns = this.spec.columns.filter((c) => c !== 'id');
    const { insertId } = await this.sql.run(
      `INSERT INTO ${this.t} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      columns.map((c) => (row[c] ?? null) as SqlValue),
    );
    row.id = insertId;
    const inserted = row as E;
    await this.log('created', inserted, loggable(row, this.spec.loggedColumns), null);
    return inserted;
  }

  /**
   * Writes the values that differ from `existing` (read through this table) and logs them.
   * Answers the row as it now is, or undefined when it is gone (deleted meanwhile): a write never
   * brings a deleted row back.
   */
  async update(existing: E, given: Values<E>): Promise<E | undefined> {
    const before = existing as Record<string, unknown>;
    const values = this.spec.withSortKeys(given);
    const changed = Object.keys(values).filter(
      (column) => column !== 'updated_at' && !sameValue(values[column as keyof E & string], before[column]),
    );
    if (changed.length === 0) return existing;
    changed.forEach((column) => this.assertColumn(column));
    const updatedAt = wholeSecondNow();
    const scope = this.scope();
    const { affected } = await this.sql.run(
      `UPDATE ${this.t} SET ${[...changed, 'updated_at'].map((c) => `${quote(c)} = ?`).join(', ')}
        WHERE ${this.t}.id = ? AND ${scope.sql}`,
      [
        ...changed.map((c) => (values[c as keyof E & string] ?? null) as SqlValue),
        updatedAt,
        existing.id,
        ...scope.params,
      ],
    );
    if (affected === 0) return undefined;
    const updated = Object.assign({}, existing, values, { updated_at: updatedAt });
    const after = updated as Record<string, unknown>;
    const logged = changed.filter((column) => this.spec.loggedColumns.includes(column));
    const attributes = loggable(after, logged);
    if (Object.keys(attributes).length) await this.log('updated', updated, attributes, loggable(before, logged));
    return updated;
  }

  /**
   * Marks a row as changed when only rows that belong to it changed (an audience's rules): its
   * updated_at moves, and the write claims the row like any update. Answers the new updated_at.
   */
  async touch(existing: E): Promise<Date> {
    const updatedAt = wholeSecondNow();
    const scope = this.scope();
    await this.sql.run(`UPDATE ${this.t} SET updated_at = ? WHERE ${this.t}.id = ? AND ${scope.sql}`, [
      updatedAt,
      existing.id,
      ...scope.params,
    ]);
    return updatedAt;
  }

  /** Deletes (or soft-deletes) a row read through this table and logs it; false when it was already gone. */
  async remove(existing: E): Promise<boolean> {
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
    await this.log('deleted', existing, {}, loggable(existing as Record<string, unknown>, this.spec.loggedColumns));
    return true;
  }

  /** Removes every matching row, each logged. Answers how many went. */
  async removeWhere(where: Where<E>): Promise<number> {
    let removed = 0;
    for (const row of await this.findWhere(where)) if (await this.remove(row)) removed++;
    return removed;
  }

  /** Logs a change to a row's parts that live in another table (an audience's rules) as an update of the row. */
  logChange(row: E, attributes: Attributes, old: Attributes): Promise<void> {
    return this.log('updated', row, attributes, old);
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

  protected log(event: 'created' | 'updated' | 'deleted', row: E, attributes: Attributes, old: Attributes | null) {
    return recordActivity(this.sql, this.actor, {
      subjectType: this.spec.entityName,
      subjectId: Number(row.id),
      tenantId: this.tenantOf(row),
      event,
      attributes,
      old,
    });
  }
}
