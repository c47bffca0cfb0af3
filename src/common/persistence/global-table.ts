import type { Sql } from './database.js';
import type { TableSpec } from './table-spec.js';
import type { Condition } from './keyset.js';
import { TableGateway, type WriteSession } from './table-gateway.js';

/**
 * Every row of a table above tenancy (tenants, roles, permissions) or, for a super-admin, of every
 * tenant (the activity log): the separately named path for reads and writes across tenants.
 */
export class GlobalTable<E extends { id: number }> extends TableGateway<E> {
  constructor(
    spec: TableSpec<E>,
    sql: Sql,
    session: WriteSession | undefined,
    /** The tenant a change of a row belongs to (a tenant's own changes: its id). */
    private readonly tenantOfRow: (row: E) => number | null = () => null,
  ) {
    super(spec, sql, session);
  }

  scope(alias = this.t): Condition {
    return { sql: this.live(alias) ?? '1 = 1', params: [] };
  }

  protected stamp() {
    return {};
  }

  protected tenantOf(row: E): number | null {
    return this.tenantOfRow(row);
  }

  protected indexHint(): string {
    return '';
  }
}
