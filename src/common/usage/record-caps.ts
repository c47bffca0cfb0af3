import { Inject, Injectable, type Type } from '@nestjs/common';
import type { AuthContext } from '../auth/auth-context.js';
import { EventCatalog } from '../events/event-catalog.js';
import type { NumberedEvent, NumberingListener } from '../events/event-sequencer.js';
import { ApiException, type FieldErrors } from '../http/api-exception.js';
import { wholeSecondNow } from '../persistence/columns.js';
import { Database, type Sql, type SqlValue } from '../persistence/database.js';
import type { ChangeRecorder, RecordedWrite } from '../persistence/journal.js';
import type { RecordChange } from '../persistence/record-change.js';
import type { DailyUsage } from './daily-usage.js';
import { readTenantLimits, type CountedResource, type TenantLimits } from './tenant-limits.js';
import { allowanceAt, grant, lockAll, shareMove, SHARE_MOVES_SQL, type GrantedUnder } from './count-shares.js';
import { THRESHOLDS, thresholdsCrossed, usageDay, USAGE_THRESHOLD_EVENT } from './usage-thresholds.js';

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
 * A tenant's record counts (`tenant_usage`, one row per tenant and resource), kept without a
 * scan and without making writers of one tenant wait on each other:
 *
 * - Without a limit, a write does nothing more: the change feed's numbering pass, which already
 *   reads every committed event in order, adds each `<resource>.created` and subtracts each
 *   `<resource>.deleted` in its own transaction (`numbered`).
 * - Under a limit, the write itself (this recorder, before the feed stores its events) moves the
 *   count and marks its events `counted` so that the numbering pass leaves them out. It moves it
 *   through one of the count's shares (count-shares.ts), each holding part of the room left under
 *   the limit, so that concurrent writers rarely wait on each other. When its share has no room,
 *   the write locks the row and every share, checks the limit against the whole count, and grants
 *   the shares again. The limit holds exactly; a write past it rolls back (403). On a Galera
 *   cluster every instance writes through one node (FailoverPool): the locks hold there too.
 *
 * A count is the row plus the events not numbered yet; crossing 80 % or 100 % of a limit announces
 * `tenant.usage_threshold`, once per threshold and day.
 */
@Injectable()
export class RecordCaps implements ChangeRecorder, NumberingListener {
  /** Counted resource of an entity name (as the Journal records changes). */
  private readonly byEntity = new Map<string, CountedResource>();
  /** Creates a batch took room for from a share before it wrote them (createsAllowed), by its transaction and `tenant:resource`. */
  private readonly taken = new WeakMap<Sql, Map<string, number>>();
  /** Counted resource of a feed resource name (`customer` → `customers`), once the catalog knows them. */
  private byFeedResource?: Map<string, CountedResource>;

  constructor(
    @Inject(COUNTED_TABLES) private readonly counted: readonly CountedTable[],
    private readonly catalog: EventCatalog,
    private readonly db: Database,
  ) {
    for (const { entity, resource } of counted) this.byEntity.set(entity.name, resource);
    catalog.registerType({
      type: USAGE_THRESHOLD_EVENT,
      resource: 'tenant',
      description: "A count or the day's API calls crossed 80 % or 100 % of the tenant's limit.",
    });
  }

  async record(write: RecordedWrite): Promise<void> {
    let deltas: Map<string, { tenantId: number; resource: CountedResource; changes: RecordChange[] }> | undefined;
    for (const change of write.changes) {
      if (change.event === 'updated' || change.tenantId === null) continue;
      const resource = this.byEntity.get(change.entityName);
      if (!resource) continue;
      deltas ??= new Map();
      const key = `${change.tenantId}:${resource}`;
      const entry = deltas.get(key) ?? { tenantId: change.tenantId, resource, changes: [] };
      entry.changes.push(change);
      deltas.set(key, entry);
    }
    if (!deltas) return;
    const moves: { tenantId: number; resource: CountedResource; delta: number; limit: number }[] = [];
    // In one order, so that two writes that count the same rows never wait on each other in a circle.
    for (const key of [...deltas.keys()].sort()) {
      const { tenantId, resource, changes } = deltas.get(key)!;
      const limits =
        limitsFor(write.actor as Partial<AuthContext>, tenantId) ?? (await readTenantLimits(write.sql, tenantId));
      const limit = limits?.[resource] ?? null;
      if (limit === null) continue;
      for (const change of changes) change.counted = true;
      // A batch's creates were counted when it took room for them (createsAllowed).
      const delta = netChange(changes) - (this.taken.get(write.sql)?.get(key) ?? 0);
      if (delta !== 0) moves.push({ tenantId, resource, delta, limit });
    }
    if (!moves.length) return;
    const day = usageDay();
    // A write of one record goes through a share on its first run; a bigger one, or a write whose
    // share had no room (run again), looks at the whole count of everything it moves.
    const throughShares = write.attempt === 1 && moves.every(({ delta }) => Math.abs(delta) === 1);
    for (const { tenantId, resource, delta, limit } of moves) {
      if (throughShares) write.send(shareMove(tenantId, resource, delta, { limit, day }));
      else await this.moveWithin(write, tenantId, resource, delta, { limit, day });
    }
  }

  /** The numbering pass: the events their writes did not count move the counts. */
  async numbered(sql: Sql, events: readonly NumberedEvent[]): Promise<void> {
    const deltas = new Map<string, number>();
    for (const event of events) {
      if (event.counted) continue;
      const [feedResource, action] = event.type.split('.');
      const resource = this.feedResources().get(feedResource);
      if (!resource || (action !== 'created' && action !== 'deleted')) continue;
      const key = `${event.tenantId}:${resource}`;
      deltas.set(key, (deltas.get(key) ?? 0) + (action === 'created' ? 1 : -1));
    }
    for (const [key, delta] of [...deltas].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (delta === 0) continue;
      const [tenantId, resource] = key.split(':');
      await this.upsert(sql, Number(tenantId), resource as CountedResource, delta);
    }
  }

  /**
   * How many of the `wanted` records of `resource` a batch or an import is about to create it may
   * create, and what the rows beyond get (undefined without a limit). It takes the room for all of
   * them from one share when that share has it, and otherwise locks the count and its shares for the
   * rest of the transaction and answers what the whole count leaves.
   */
  async createsAllowed(
    sql: Sql,
    auth: AuthContext,
    resource: CountedResource,
    wanted: number,
  ): Promise<{ max: number; refusal: FieldErrors } | undefined> {
    const limits = limitsFor(auth, auth.tenantId) ?? (await readTenantLimits(sql, auth.tenantId));
    const limit = limits?.[resource] ?? null;
    if (limit === null) return undefined;
    const refusal = { limit: [capMessage(resource, limit)] };
    const take = shareMove(auth.tenantId, resource, wanted, { limit, day: usageDay() });
    if ((await sql.run(take.sql, take.params)).affected === 1) {
      const taken = this.taken.get(sql) ?? new Map<string, number>();
      const key = `${auth.tenantId}:${resource}`;
      taken.set(key, (taken.get(key) ?? 0) + wanted);
      this.taken.set(sql, taken);
      return { max: wanted, refusal };
    }
    const { current } = await this.lockedCount(sql, auth.tenantId, resource);
    return { max: Math.max(0, limit - current), refusal };
  }

  /** The tenant's plan, as its row holds it now (undefined: no such tenant). */
  limitsOf(tenantId: number): Promise<TenantLimits | undefined> {
    return readTenantLimits(this.db, tenantId);
  }

  /** What the tenant used of a daily allowance on `day` (GET /api/usage). */
  dailyUsed(usage: DailyUsage, tenantId: number, day: string): Promise<number> {
    return usage.used(this.db, tenantId, day);
  }

  /** The tenant's counts, as the usage answer shows them: the rows and the events not folded yet, in one read. */
  async counts(tenantId: number, sql: Pick<Sql, 'query'> = this.db): Promise<Map<CountedResource, number>> {
    const counts = new Map<CountedResource, number>();
    const { types, params } = this.countedTypes();
    const rows = await sql.query<{ resource: string; n: number | string }>(
      `SELECT resource, count AS n FROM tenant_usage WHERE tenant_id = ?
       UNION ALL
       SELECT type AS resource, COUNT(*) AS n FROM events
        WHERE sequence IS NULL AND counted = ? AND tenant_id = ? AND type IN (${types}) GROUP BY type
       UNION ALL
       ${SHARE_MOVES_SQL}`,
      [tenantId, false, tenantId, ...params, tenantId],
    );
    for (const row of rows) {
      const [feedResource, action] = row.resource.split('.');
      const resource = action ? this.feedResources().get(feedResource) : (row.resource as CountedResource);
      if (!resource) continue;
      const n = Number(row.n) * (action === 'deleted' ? -1 : 1);
      counts.set(resource, (counts.get(resource) ?? 0) + n);
    }
    return counts;
  }

  /**
   * The write whose share had no room: looks at the whole count (its row and every share locked),
   * checks the limit, takes the shares' moves and this write's into the row, announces the
   * thresholds crossed, and grants the shares what they may hand out from here.
   */
  private async moveWithin(
    write: RecordedWrite,
    tenantId: number,
    resource: CountedResource,
    delta: number,
    grantedUnder: GrantedUnder,
  ): Promise<void> {
    const { limit, day } = grantedUnder;
    const { row, current, shareMoves } = await this.lockedCount(write.sql, tenantId, resource);
    const after = current + delta;
    if (delta > 0 && after > limit) throw new CapReached(resource, limit);
    const announced = new Set(THRESHOLDS.filter((percentage) => row[`warned_${percentage}_on`] === day));
    const crossed = thresholdsCrossed(current, after, limit).filter((percentage) => !announced.has(percentage));
    await write.sql.run(
      `UPDATE tenant_usage SET count = count + ?, updated_at = ?${crossed.map((p) => `, warned_${p}_on = ?`).join('')}
        WHERE id = ?`,
      [shareMoves + delta, wholeSecondNow(), ...crossed.map(() => day), Number(row.id)],
    );
    for (const percentage of crossed) announced.add(percentage);
    await grant(write.sql, tenantId, resource, allowanceAt(after, limit, announced), grantedUnder);
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
   * The tenant's row of `resource` and its shares, locked for this transaction, and its count: the
   * row, what the shares moved it by, and the events not folded into it yet (written by writers
   * that saw no limit; none once a limit is in place).
   */
  private async lockedCount(
    sql: Sql,
    tenantId: number,
    resource: CountedResource,
  ): Promise<{ row: UsageRow; current: number; shareMoves: number }> {
    await this.upsert(sql, tenantId, resource, 0);
    const lock = sql.dialect === 'mysql' ? ' FOR UPDATE' : '';
    const [row] = await sql.query<UsageRow>(
      `SELECT id, count, warned_80_on, warned_100_on FROM tenant_usage WHERE tenant_id = ? AND resource = ?${lock}`,
      [tenantId, resource],
    );
    const shareMoves = await lockAll(sql, tenantId, resource);
    const feedResource = this.feedResourceOf(resource);
    const [pending] = await sql.query<{ n: number | string | null }>(
      `SELECT SUM(CASE WHEN type = ? THEN 1 ELSE -1 END) AS n FROM events
        WHERE sequence IS NULL AND counted = ? AND tenant_id = ? AND type IN (?, ?)`,
      [`${feedResource}.created`, false, tenantId, `${feedResource}.created`, `${feedResource}.deleted`],
    );
    return { row, current: Number(row.count) + shareMoves + Number(pending?.n ?? 0), shareMoves };
  }

  /** Adds `delta` to the tenant's count of `resource`, creating its row (at 0) the first time. */
  private async upsert(sql: Sql, tenantId: number, resource: CountedResource, delta: number): Promise<void> {
    const now = wholeSecondNow();
    const params: SqlValue[] = [tenantId, resource, delta, now, now];
    if (sql.dialect === 'mysql') {
      await sql.run(
        `INSERT INTO tenant_usage (tenant_id, resource, count, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE count = count + VALUES(count), updated_at = VALUES(updated_at)`,
        params,
      );
    } else {
      await sql.run(
        `INSERT INTO tenant_usage (tenant_id, resource, count, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (tenant_id, resource) DO UPDATE SET count = count + excluded.count, updated_at = excluded.updated_at`,
        params,
      );
    }
  }

  private feedResources(): Map<string, CountedResource> {
    if (!this.byFeedResource) {
      this.byFeedResource = new Map(
        this.counted.map(({ entity, resource }) => [this.catalog.kindOf(entity.name)?.resource ?? '', resource]),
      );
    }
    return this.byFeedResource;
  }

  private feedResourceOf(resource: CountedResource): string {
    for (const [feedResource, counted] of this.feedResources()) if (counted === resource) return feedResource;
    throw new Error(`${resource} is not published in the change feed`);
  }

  /** The created and deleted event types of every counted resource, as placeholders and their values. */
  private countedTypes(): { types: string; params: string[] } {
    const params = [...this.feedResources().keys()].flatMap((r) => [`${r}.created`, `${r}.deleted`]);
    return { types: params.map(() => '?').join(', '), params };
  }
}

/** Records created minus records deleted by one write's changes of one resource. */
function netChange(changes: readonly RecordChange[]): number {
  return changes.reduce((sum, change) => sum + (change.event === 'created' ? 1 : -1), 0);
}

/** The limits the request already read with its token, when the write is in the request's tenant. */
function limitsFor(auth: Partial<AuthContext>, tenantId: number): TenantLimits | undefined {
  return auth.tenantId === tenantId ? auth.tenant?.limits : undefined;
}
