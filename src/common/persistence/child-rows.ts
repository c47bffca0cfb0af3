import { wholeSecondNow } from './columns.js';
import type { Sql, SqlValue } from './database.js';
import type { TableSpec } from './table-spec.js';
import { quote, type Values } from './table-gateway.js';

/**
 * The rows of a child table without a tenant column (an audience's rules), for parents the caller
 * has already read through their tenant scope: that read is what keeps these rows in the tenant.
 */
export class ChildRows<C extends { id: number }> {
  private readonly t: string;
  private readonly parent: string;

  constructor(
    private readonly spec: TableSpec<C>,
    private readonly sql: Sql,
    private readonly parentColumn: keyof C & string,
    private readonly parentIds: readonly number[],
    /** True inside Tables.write: only then may the rows be replaced. */
    private readonly writable = false,
  ) {
    if (!spec.has(parentColumn)) throw new Error(`${spec.table} has no column ${parentColumn}`);
    this.t = quote(spec.table);
    this.parent = quote(parentColumn);
  }

  /** The parents' rows, oldest first. */
  async list(): Promise<C[]> {
    if (this.parentIds.length === 0) return [];
    const rows = await this.sql.query<Record<string, unknown>>(
      `SELECT ${this.spec.selectList(this.t)} FROM ${this.t}
        WHERE ${this.t}.${this.parent} IN (${this.parentIds.map(() => '?').join(', ')}) ORDER BY ${this.t}.id`,
      [...this.parentIds],
    );
    return rows.map((row) => this.spec.normalize(row));
  }

  /** Replaces the (single) parent's rows with these (defaults, timestamps and sort keys filled), in this write. */
  async replace(rows: Values<C>[]): Promise<void> {
    if (!this.writable) throw new Error(`${this.spec.table}: writes go through Tables.write, in its transaction`);
    const [parentId] = this.parentIds;
    await this.sql.run(`DELETE FROM ${this.t} WHERE ${this.parent} = ?`, [parentId]);
    if (rows.length === 0) return;
    const now = wholeSecondNow();
    const columns = this.spec.insertColumns;
    const values = rows.map((given) => {
      const row = this.spec.fillSortKeys(Object.assign(this.spec.defaults(), given));
      Object.assign(row, { [this.parentColumn]: parentId, created_at: now, updated_at: now });
      return columns.map((column) => (row[column] ?? null) as SqlValue);
    });
    await this.sql.insertRows(this.spec.table, columns, values);
  }
}
