import { Inject, Injectable, Optional, type Type } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, ObjectLiteral } from 'typeorm';
import type { Actor } from '../activity/activity-log.writer.js';
import { EventCatalog, type RecordKind } from '../events/event-catalog.js';
import type { AuthContext } from '../auth/auth-context.js';
import { ValidationFailed } from '../http/api-exception.js';
import { ChildRows } from './child-rows.js';
import { Database, type Dialect, type Sql, type SqlValue, type TransactionOptions } from './database.js';
import { GlobalTable } from './global-table.js';
import { InsertIds } from './insert-ids.js';
import { Journal, type ChangeRecorder } from './journal.js';
import { ScopedTable } from './scoped-table.js';
import type { WriteSession } from './table-gateway.js';
import type { AcrossTenantsTx, ReadableTable, TenantReads, TenantTx } from './tenant-reads.js';
import { TableSpec } from './table-spec.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';

export type { AcrossTenantsTx, ReadableTable, TenantReads, TenantTx } from './tenant-reads.js';

/** Whatever else records every write's changes in its transaction (the change feed); provided once. */
export const CHANGE_RECORDERS = Symbol('CHANGE_RECORDERS');

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
    @Optional() private readonly catalog?: EventCatalog,
  ) {}

  /** Publishes the changes of a table's records in the change feed, as `kind` says (its resource name and answer). */
  publish<E>(entity: Type<E>, kind: RecordKind<E>): void {
    this.catalog?.register(entity, kind);
  }

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
  writeWithBookkeeping<T>(
    auth: AuthContext,
    work: (tx: TenantTx, bookkeeping: Sql) => Promise<T>,
    options?: TransactionOptions,
  ): Promise<T> {
    return this.inWrite(
      auth,
      (sql, session, attempt) => work(new TenantScope(this, auth, sql, session, attempt), sql),
      options,
    );
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

  private async inWrite<T>(
    actor: Actor,
    work: (sql: Sql, session: WriteSession, attempt: number) => Promise<T>,
    options?: TransactionOptions,
  ): Promise<T> {
    let recorded = false;
    const result = await this.db.transaction(async (sql, attempt) => {
      const journal = new Journal(sql, actor, this.recorders, attempt);
      const session: WriteSession = { journal, insertStep: () => this.insertIds.consecutiveStep() };
      const answer = await work(sql, session, attempt);
      await journal.flush((tenantId) => new TenantScope(this, tenantActing(actor, tenantId), sql, undefined, attempt));
      recorded = !journal.isEmpty;
      return answer;
    }, options);
    if (recorded) for (const recorder of this.recorders) recorder.committed?.();
    return result;
  }
}

/** The actor of a write, acting in `tenantId` (the reads that present a change of that tenant). */
function tenantActing(actor: Actor, tenantId: number): AuthContext {
  const auth = actor as Partial<AuthContext>;
  if (auth.tenantId === tenantId && auth.user) return auth as AuthContext;
  return { user: auth.user as AuthContext['user'], tenantId, tenantChosen: false, requestId: actor.requestId };
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
    // Share-locked: a deletion of the referenced row waits for this write, then sees what it wrote.
    const row = await this.table(entity).findById(id, { lock: 'share' });
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

  announce(event: { type: string; resource: string; resourceId: number; data: unknown }): void {
    if (!this.session) throw new Error('An event is announced inside Tables.write, with its write');
    this.session.journal.announce(Object.assign({ tenantId: this.auth.tenantId }, event));
  }
}
