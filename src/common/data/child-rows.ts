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
    parentColumn: keyof C & string,
    private readonly parentIds: readonly number[],
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

  /** Replaces the (single) parent's rows with these. */
  async replace(rows: Values<C>[]): Promise<void> {
    const [parentId] = this.parentIds;
    await this.sql.run(`DELETE FROM ${this.t} WHERE ${this.parent} = ?`, [parentId]);
    const now = wholeSecondNow();
    const columns = this.spec.columns.filter((c) => c !== 'id');
    // Row by row: ids are not assumed consecutive (Galera steps auto-increments by the node count).
    for (const values of rows) {
      const row: Record<string, unknown> = {
        ...this.spec.defaults(),
        ...values,
        [this.parent.slice(1, -1)]: parentId,
        created_at: now,
        updated_at: now,
      };
      await this.sql.run(
        `INSERT INTO ${this.t} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        columns.map((c) => (row[c] ?? null) as SqlValue),
      );
    }
  }
}
