import { Inject, Injectable, Optional, type Type } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, ObjectLiteral } from 'typeorm';
import type { Actor } from '../activity/activity-log.writer.js';
import type { AuthContext } from '../auth/auth-context.js';
import { ValidationFailed } from '../http/api-exception.js';
import { ChildRows } from './child-rows.js';
import { Database, type Dialect, type Sql, type SqlValue } from './database.js';
import { GlobalTable } from './global-table.js';
import { InsertIds } from './insert-ids.js';
import { Journal, type ChangeRecorder } from './journal.js';
import { ScopedTable } from './scoped-table.js';
import type { TableGateway, WriteSession } from './table-gateway.js';
import { TableSpec } from './table-spec.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';

/** Whatever else records every write's changes in its transaction (the change feed); provided once. */
export const CHANGE_RECORDERS = Symbol('CHANGE_RECORDERS');

/** A table as a read sees it: the same gateway, without its write verbs. */
export type ReadableTable<E extends { id: number }> = Pick<
  TableGateway<E>,
  | 'spec'
  | 'dialect'
  | 'scope'
  | 'findById'
  | 'findMany'
  | 'findWhere'
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
}

/** A write's tables above tenancy, for a writer without a tenant. */
export interface AcrossTenantsTx {
  acrossTenants: TenantTx['acrossTenants'];
}

const SELECT_ONLY = /^\s*(SELECT|WITH)\b/i;

/**
 * The one way to the tables: `read` for reads, `write` for a write, which is one transaction (run
 * again from its start under Database's retry policy when it loses a conflict) whose changes are
 * recorded together at its end (activity log, change feed). Each table's metadata is read once.
 */
@Injectable()
export class Tables {
  private readonly specs = new Map<Type<ObjectLiteral>, TableSpec<ObjectLiteral>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly db: Database,
    private readonly insertIds: InsertIds,
    @Optional() @Inject(CHANGE_RECORDERS) private readonly recorders: readonly ChangeRecorder[] = [],
  ) {}

  get dialect(): Dialect {
    return this.db.dialect;
  }

  spec<E extends ObjectLiteral>(entity: Type<E>): TableSpec<E> {
    let spec = this.specs.get(entity);
    if (!spec) {
      spec = TableSpec.of(this.dataSource, entity);
      this.specs.set(entity, spec);
    }
    return spec as TableSpec<E>;
  }

  /** The tenant's data, read through the pool. */
  read(auth: AuthContext): TenantReads {
    return new TenantScope(this, auth, this.db, undefined, 0);
  }

  /** Every row of a table above tenancy, read through the pool (see TenantTx.acrossTenants). */
  readAcrossTenants<E extends { id: number }>(entity: Type<E>): ReadableTable<E> {
    return new GlobalTable(this.spec(entity), this.db, undefined);
  }

  /**
   * One write of the caller's tenant: `work` runs in one transaction with the tenant's tables; the
   * changes it made are recorded at its end, in the same transaction. Answers what `work` answers.
   */
  write<T>(auth: AuthContext, work: (tx: TenantTx) => Promise<T>): Promise<T> {
    return this.writeWithBookkeeping(auth, (tx) => work(tx));
  }

  /**
   * A write that also changes rows the service keeps for itself (an import job's progress, a user's
   * tokens) in the same transaction: `work` gets the tenant's tables for the records and, for those
   * bookkeeping rows only, the transaction's SQL. Records are written through `tx` alone.
   */
  writeWithBookkeeping<T>(auth: AuthContext, work: (tx: TenantTx, bookkeeping: Sql) => Promise<T>): Promise<T> {
    return this.inWrite(auth, (sql, session, attempt) => work(new TenantScope(this, auth, sql, session, attempt), sql));
  }

  /**
   * A write without a caller's tenant (a public route: a password reset), to tables above tenancy
   * only; `bookkeeping` as in writeWithBookkeeping.
   */
  writeAcrossTenants<T>(actor: Actor, work: (tx: AcrossTenantsTx, bookkeeping: Sql) => Promise<T>): Promise<T> {
    return this.inWrite(actor, (sql, session) =>
      work(
        {
          acrossTenants: <E extends { id: number }>(entity: Type<E>, tenantOf?: (row: E) => number | null) =>
            new GlobalTable(this.spec(entity), sql, session, tenantOf),
        },
        sql,
      ),
    );
  }

  private inWrite<T>(actor: Actor, work: (sql: Sql, session: WriteSession, attempt: number) => Promise<T>): Promise<T> {
    return this.db.transaction(async (sql, attempt) => {
      const journal = new Journal(sql, actor, this.recorders);
      const session: WriteSession = { journal, insertStep: () => this.insertIds.consecutiveStep() };
      const result = await work(sql, session, attempt);
      await journal.flush();
      return result;
    });
  }
}

/** TenantReads through the pool, or TenantTx inside a write (with its session). */
class TenantScope implements TenantTx {
  constructor(
    private readonly tables: Tables,
    readonly auth: AuthContext,
    private readonly sql: Sql,
    private readonly session: WriteSession | undefined,
    readonly attempt: number,
  ) {}

  get dialect(): Dialect {
    return this.sql.dialect;
  }

  table<E extends TenantOwnedEntity>(entity: Type<E>): ScopedTable<E> {
    return new ScopedTable(this.tables.spec(entity), this.sql, this.auth, this.session);
  }

  children<C extends { id: number }>(entity: Type<C>, parentColumn: keyof C & string, parentIds: readonly number[]) {
    return new ChildRows(this.tables.spec(entity), this.sql, parentColumn, parentIds, this.session !== undefined);
  }

  async reference<E extends TenantOwnedEntity>(entity: Type<E>, id: number, field: string): Promise<E> {
    const row = await this.table(entity).findById(id);
    if (!row) throw ValidationFailed.field(field, `The selected ${field.replace(/_/g, ' ')} is invalid.`);
    return row;
  }

  select<T>(statement: string, params: readonly SqlValue[] = []): Promise<T[]> {
    if (!SELECT_ONLY.test(statement)) throw new Error('TenantReads.select runs SELECT statements only.');
    return this.sql.query<T>(statement, params);
  }

  acrossTenants<E extends { id: number }>(entity: Type<E>, tenantOf?: (row: E) => number | null): GlobalTable<E> {
    return new GlobalTable(this.tables.spec(entity), this.sql, this.session, tenantOf);
  }

  async keepAnswer(answer: unknown): Promise<void> {
    await this.auth.idempotency?.complete(this.sql, answer);
  }
}
