import type { AuthContext } from '../auth/auth-context.js';
import type { Sql } from './database.js';
import type { TableSpec } from './table-spec.js';
import type { Condition } from './keyset.js';
import { listIndexName } from './list-index.js';
import { quote, TableGateway, type WriteSession } from './table-gateway.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';

/**
 * One tenant's rows of one table: the single gate to tenant-owned data. Every statement filters by
 * the request's tenant, every insert is stamped with it, and every change is recorded in that tenant.
 */
export class ScopedTable<E extends TenantOwnedEntity> extends TableGateway<E> {
  constructor(
    spec: TableSpec<E>,
    sql: Sql,
    readonly auth: AuthContext,
    session?: WriteSession,
  ) {
    super(spec, sql, session);
  }

  /** `t.tenant_id = ?` (and `t.deleted_at IS NULL`). */
  scope(alias = this.t): Condition {
    const live = this.live(alias);
    return { sql: `${alias}.tenant_id = ?${live ? ` AND ${live}` : ''}`, params: [this.auth.tenantId] };
  }

  protected stamp() {
    return { tenant_id: this.auth.tenantId };
  }

  protected tenantOf(): number {
    return this.auth.tenantId;
  }

  /**
   * An unfiltered list forces the index of its sort on MySQL/MariaDB: otherwise MariaDB plans a deep
   * keyset page as a walk of every newer row of the tenant (docs/performance.md).
   */
  protected indexHint(sortField: string, filtered: boolean): string {
    if (filtered || this.dialect !== 'mysql') return '';
    return ` FORCE INDEX (${quote(listIndexName(this.spec.table, sortField))})`;
  }
}
