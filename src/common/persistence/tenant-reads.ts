import type { Type } from '@nestjs/common';
import type { AuthContext } from '../auth/auth-context.js';
import type { ChildRows } from './child-rows.js';
import type { Dialect, SqlValue } from './database.js';
import type { GlobalTable } from './global-table.js';
import type { ScopedTable } from './scoped-table.js';
import type { TableGateway } from './table-gateway.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';

/** A table as a read sees it: the same gateway, without its write verbs. */
export type ReadableTable<E extends { id: number }> = Pick<
  TableGateway<E>,
  | 'spec'
  | 'dialect'
  | 'scope'
  | 'findById'
  | 'findMany'
  | 'findWhere'
  | 'findIn'
  | 'findBatch'
  | 'count'
  | 'exists'
  | 'sum'
  | 'page'
  | 'keyHolders'
>;

/** One tenant's data as a read sees it (through the pool, or inside a write's transaction). */
export interface TenantReads {
  readonly auth: AuthContext;
  readonly dialect: Dialect;
  table<E extends TenantOwnedEntity>(entity: Type<E>): ReadableTable<E>;
  children<C extends { id: number }>(
    entity: Type<C>,
    parentColumn: keyof C & string,
    parentIds: readonly number[],
  ): ChildRows<C>;
  /** A body reference (`audience_id`, ...): the live row of the caller's tenant, or a 422 on `field`. */
  reference<E extends TenantOwnedEntity>(entity: Type<E>, id: number, field: string): Promise<E>;
  /**
   * A read the gateways do not offer (the audience scans compose their own SELECTs, scoped by the
   * tables' `scope()`): SELECT statements only, so that no write can go around the tables.
   */
  select<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
}

/**
 * One tenant's data inside one write's transaction: what services and their hooks get instead of
 * a connection. Every write goes through its tables, which stamp, fill and record each change.
 */
export interface TenantTx extends TenantReads {
  /** 1 on the first run of the write's transaction, 2 when it runs again after losing a conflict, ... */
  readonly attempt: number;
  table<E extends TenantOwnedEntity>(entity: Type<E>): ScopedTable<E>;
  /**
   * Every row of a table above tenancy (tenants, roles, users across tenants): the separately named
   * path. `tenantOf` names the tenant a change of a row is recorded in.
   */
  acrossTenants<E extends { id: number }>(entity: Type<E>, tenantOf?: (row: E) => number | null): GlobalTable<E>;
  /** Stores the request's answer with its Idempotency-Key claim, in this transaction (both or neither). */
  keepAnswer(answer: unknown): Promise<void>;
  /** Publishes an event that is not a record's change (`webhook.disabled`) in the tenant's feed, with this write. */
  announce(event: { type: string; resource: string; resourceId: number; data: unknown }): void;
}

/** A write's tables above tenancy, for a writer without a tenant. */
export interface AcrossTenantsTx {
  acrossTenants: TenantTx['acrossTenants'];
}
