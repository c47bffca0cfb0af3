import { Injectable, type Type } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, ObjectLiteral } from 'typeorm';
import type { Actor } from '../activity/activity-log.writer.js';
import type { AuthContext } from '../auth/auth-context.js';
import { Database, type Sql } from './database.js';
import { TableSpec } from './table-spec.js';
import { ValidationFailed } from '../http/api-exception.js';
import { ChildRows } from './child-rows.js';
import { GlobalTable } from './global-table.js';
import { ScopedTable } from './scoped-table.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';

/**
 * Tenant-scoped access to every table within one write (or read): what services and their hooks
 * get instead of a raw connection.
 */
export interface TenantTx {
  readonly auth: AuthContext;
  readonly sql: Sql;
  table<E extends TenantOwnedEntity>(entity: Type<E>): ScopedTable<E>;
  children<C extends { id: number }>(
    entity: Type<C>,
    parentColumn: keyof C & string,
    parentIds: readonly number[],
  ): ChildRows<C>;
  /** A body reference (`audience_id`, ...): the live row of the caller's tenant, or a 422 on `field`. */
  reference<E extends TenantOwnedEntity>(entity: Type<E>, id: number, field: string): Promise<E>;
}

/** Builds the tenant-scoped tables; each table's metadata is read once. */
@Injectable()
export class Tables {
  private readonly specs = new Map<Type<ObjectLiteral>, TableSpec<ObjectLiteral>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    readonly db: Database,
  ) {}

  spec<E extends ObjectLiteral>(entity: Type<E>): TableSpec<E> {
    let spec = this.specs.get(entity);
    if (!spec) {
      spec = TableSpec.of(this.dataSource, entity);
      this.specs.set(entity, spec);
    }
    return spec as TableSpec<E>;
  }

  /** The tenant's rows of a table, through `sql` (a transaction) or the pool. */
  scoped<E extends TenantOwnedEntity>(entity: Type<E>, auth: AuthContext, sql: Sql = this.db): ScopedTable<E> {
    return new ScopedTable(this.spec(entity), sql, auth);
  }

  /**
   * Every row of a table above tenancy (tenants, roles), or of every tenant: the separately named
   * path for reads and writes across tenants. `activityTenant` names the tenant of a write's log entry.
   */
  acrossTenants<E extends { id: number }>(
    entity: Type<E>,
    actor: Actor,
    sql: Sql = this.db,
    activityTenant?: (row: E) => number | null,
  ): GlobalTable<E> {
    return new GlobalTable(this.spec(entity), sql, actor, activityTenant);
  }

  within(auth: AuthContext, sql: Sql = this.db): TenantTx {
    return {
      auth,
      sql,
      table: (entity) => this.scoped(entity, auth, sql),
      children: (entity, parentColumn, parentIds) => new ChildRows(this.spec(entity), sql, parentColumn, parentIds),
      reference: async (entity, id, field) => {
        const row = await this.scoped(entity, auth, sql).findById(id);
        if (!row) throw ValidationFailed.field(field, `The selected ${field.replace(/_/g, ' ')} is invalid.`);
        return row;
      },
    };
  }
}
