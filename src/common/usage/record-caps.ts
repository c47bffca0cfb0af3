import { Inject, Injectable, type Type } from '@nestjs/common';
import { EventCatalog } from '../events/event-catalog.js';
import { ApiException, type FieldErrors } from '../http/api-exception.js';
import type { AuthContext } from '../auth/auth-context.js';
import { RetryTransaction, uniqueViolationField } from '../persistence/database-errors.js';
import type { Sql } from '../persistence/database.js';
import type { ChangeRecorder, RecordedWrite } from '../persistence/journal.js';
import { wholeSecondNow } from '../persistence/columns.js';
import { quote } from '../persistence/table-gateway.js';
import { TableSpec } from '../persistence/table-spec.js';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, ObjectLiteral } from 'typeorm';
import { readTenantLimits, type CountedResource, type TenantLimits } from './tenant-limits.js';
import { thresholdsCrossed, usageDay, USAGE_THRESHOLD_EVENT } from './usage-thresholds.js';

/** Which table's records count as which resource of a plan: declared where every module is known (app.module.ts). */
export interface CountedTable {
  entity: Type<unknown>;
  resource: CountedResource;
}
export const COUNTED_TABLES = Symbol('COUNTED_TABLES');

/** A create the plan does not allow: 403, since waiting does not help. */
export class CapReached extends ApiException {
  constructor(resource: CountedResource, limit: number) {
    super(403, { message: capMessage(resource, limit) });
  }
}

export const capMessage = (resource: CountedResource, limit: number) =>
  `The plan allows ${limit.toLocaleString('en-US')} ${resource}; delete some, or ask for a higher limit.`;

interface UsageRow {
  id: number | string;
  count: number | string;
  warned_80_on: string | null;
  warned_100_on: string | null;
}

/**
 * The record caps of a tenant's plan, kept exact by the write path itself: in each write's
 * transaction, after its changes, the tenant's count of every counted resource moves by the
 * records it created and deleted (one `tenant_usage` row per tenant and resource). Where a limit
 * applies, the row is read under lock first, so concurrent writers of one tenant take turns on it
 * and a create past the limit rolls its whole write back (403). On a Galera cluster every instance
 * writes through one node (FailoverPool), so the lock holds there too. Crossing 80 % or 100 % of a
 * limit announces `tenant.usage_threshold`, once per threshold and day.
 */
@Injectable()
export class RecordCaps implements ChangeRecorder {
  private readonly resources = new Map<string, CountedResource>();
  private readonly tables = new Map<CountedResource, Type<unknown>>();

  constructor(
    @Inject(COUNTED_TABLES) counted: readonly CountedTable[],
    catalog: EventCatalog,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    for (const { entity, resource } of counted) {
      this.resources.set(entity.name, resource);
      this.tables.set(resource, entity);
    }
    catalog.registerType({
      type: USAGE_THRESHOLD_EVENT,
      resource: 'tenant',
      description: "A count or the day's API calls crossed 80 % or 100 % of the tenant's limit.",
    });
  }

  resourceOf(entityName: string): CountedResource | undefined {
    return this.resources.get(entityName);
  }

  async record(write: RecordedWrite): Promise<void> {
    const deltas = new Map<string, { tenantId: number; resource: CountedResource; delta: number }>();
    for (const change of write.changes) {
      const resource = this.resources.get(change.entityName);
      if (!resource || change.tenantId === null || change.event === 'updated') continue;
      const key = `${change.tenantId}:${resource}`;
      const entry = deltas.get(key) ?? { tenantId: change.tenantId, resource, delta: 0 };
      entry.delta += change.event === 'created' ? 1 : -1;
      deltas.set(key, entry);
    }
    // In one order, so that two writes that count the same rows never wait on each other in a circle.
    for (const key of [...deltas.keys()].sort()) {
      const { tenantId, resource, delta } = deltas.get(key)!;
      if (delta === 0) continue;
      const limits =
        limitsFor(write.actor as Partial<AuthContext>, tenantId) ?? (await readTenantLimits(write.sql, tenantId));
      const limit = limits?.[resource] ?? null;
      if (limit === null) await this.move(write.sql, tenantId, resource, delta);
      else await this.moveWithin(write, tenantId, resource, delta, limit);
    }
  }

  /**
   * How many more records of `resource` the tenant may create in this write, and what the rows
   * beyond get (undefined without a limit), its count row locked for the rest of the transaction:
   * a batch or an import creates up to it, and the rows beyond fail.
   */
  async createsAllowed(
    sql: Sql,
    auth: AuthContext,
    resource: CountedResource,
  ): Promise<{ max: number; refusal: FieldErrors } | undefined> {
    const limits = limitsFor(auth, auth.tenantId) ?? (await readTenantLimits(sql, auth.tenantId));
    const limit = limits?.[resource] ?? null;
    if (limit === null) return undefined;
    const row = await this.lockedRow(sql, auth.tenantId, resource);
    return { max: Math.max(0, limit - Number(row.count)), refusal: { limit: [capMessage(resource, limit)] } };
  }

  /** The tenant's counts, as the usage answer shows them. */
  async counts(sql: Pick<Sql, 'query'>, tenantId: number): Promise<Map<CountedResource, number>> {
    const rows = await sql.query<{ resource: CountedResource; count: number | string }>(
      'SELECT resource, count FROM tenant_usage WHERE tenant_id = ?',
      [tenantId],
    );
    return new Map(rows.map((row) => [row.resource, Number(row.count)]));
  }

  /** No limit: one UPDATE (the row is created, counted afresh, the first time). */
  private async move(sql: Sql, tenantId: number, resource: CountedResource, delta: number): Promise<void> {
    const { affected } = await sql.run(
      'UPDATE tenant_usage SET count = count + ?, updated_at = ? WHERE tenant_id = ? AND resource = ?',
      [delta, wholeSecondNow(), tenantId, resource],
    );
    if (affected === 0) await this.createRow(sql, tenantId, resource);
  }

  private async moveWithin(
    write: RecordedWrite,
    tenantId: number,
    resource: CountedResource,
    delta: number,
    limit: number,
  ): Promise<void> {
    const row = await this.lockedRow(write.sql, tenantId, resource, delta);
    const after = Number(row.count) + delta;
    if (delta > 0 && after > limit) throw new CapReached(resource, limit);
    const day = usageDay();
    const crossed = thresholdsCrossed(after - delta, after, limit).filter(
      (percentage) => row[`warned_${percentage}_on`] !== day,
    );
    await write.sql.run(
      `UPDATE tenant_usage SET count = ?, updated_at = ?${crossed.map((p) => `, warned_${p}_on = ?`).join('')}
        WHERE id = ?`,
      [after, wholeSecondNow(), ...crossed.map(() => day), Number(row.id)],
    );
    for (const percentage of crossed) {
      write.announce({
        tenantId,
        type: USAGE_THRESHOLD_EVENT,
        resource: 'tenant',
        resourceId: tenantId,
        data: { resource, count: after, limit, percentage },
      });
    }
  }

  /**
   * The tenant's row of `resource`, locked for this transaction. A row that is not there yet is
   * created with the count taken afresh; its count then already holds this write's own records,
   * which `pending` (the delta about to be added) takes back out.
   */
  private async lockedRow(sql: Sql, tenantId: number, resource: CountedResource, pending = 0): Promise<UsageRow> {
    const lock = sql.dialect === 'mysql' ? ' FOR UPDATE' : '';
    const read = () =>
      sql.query<UsageRow>(
        `SELECT id, count, warned_80_on, warned_100_on FROM tenant_usage WHERE tenant_id = ? AND resource = ?${lock}`,
        [tenantId, resource],
      );
    let [row] = await read();
    if (!row) {
      await this.createRow(sql, tenantId, resource);
      [row] = await read();
      row = { ...row, count: Number(row.count) - pending };
    }
    return row;
  }

  /** The first count of a tenant's resource, taken from its table (this transaction's own rows included). */
  private async createRow(sql: Sql, tenantId: number, resource: CountedResource): Promise<void> {
    const entity = this.tables.get(resource);
    if (!entity) throw new Error(`No table counts as ${resource}`);
    const spec = TableSpec.of(this.dataSource, entity as Type<ObjectLiteral>);
    const live = spec.softDeleteColumn ? ` AND ${quote(spec.softDeleteColumn)} IS NULL` : '';
    const now = wholeSecondNow();
    try {
      await sql.run(
        `INSERT INTO tenant_usage (tenant_id, resource, count, created_at, updated_at)
         SELECT ?, ?, COUNT(*), ?, ? FROM ${quote(spec.table)} WHERE tenant_id = ?${live}`,
        [tenantId, resource, now, now, tenantId],
      );
    } catch (error) {
      if (uniqueViolationField(error) !== undefined) throw new RetryTransaction('a usage row was created meanwhile');
      throw error;
    }
  }
}

/** The limits the request already read with its token, when the write is in the request's tenant. */
function limitsFor(auth: Partial<AuthContext>, tenantId: number): TenantLimits | undefined {
  return auth.tenantId === tenantId ? auth.limits : undefined;
}
