import { Inject, Injectable } from '@nestjs/common';
import { systemAuth, type AuthContext } from '../../common/auth/auth-context.js';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { BULK_WRITE } from '../../common/events/change-feed.js';
import type { FieldErrors } from '../../common/http/api-exception.js';
import { Page } from '../../common/http/page.js';
import type { Sql } from '../../common/persistence/sql.js';
import { RetryTransaction } from '../../common/persistence/database-errors.js';
import { quote, type InsertOutcome } from '../../common/persistence/table-gateway.js';
import { Tables, type TenantTx } from '../../common/persistence/tables.js';
import { TRACKED_EVENTS } from '../../common/usage/daily-usage.js';
import { readTenantLimits } from '../../common/usage/tenant-limits.js';
import { usageDay } from '../../common/usage/usage-thresholds.js';
import { CustomerRules } from '../customer/customer-rules.js';
import { Customer } from '../customer/entities/customer.entity.js';
import type { TrackCounts, TrackDto, TrackResult } from './dto/track.dto.js';
import { CustomerEvent, CustomerEventName } from './entities/customer-event.entity.js';
import { countDeleted, countStored, nameIds } from './event-names.js';
import { checkTrackItem, DAY_MS, trackMessages, type EventSubject, type TrackItem } from './track-input.js';

/** What became of one checked item. */
type Stored = InsertOutcome;

/** Days of `tenant_daily_usage` kept behind today (the usage answer shows today only). */
const DAILY_USAGE_KEPT_DAYS = 7;
/** Names read per step of the retention purge. */
const PURGE_NAMES_PER_READ = 500;

const uniq = <T>(values: readonly T[]) => [...new Set(values)];

/**
 * `POST /api/track`, and the retention purge of tracked events. A request's items are checked one
 * by one (a bad item fails alone); the good ones are written in one transaction: their message ids
 * looked up (stored before: `duplicate`), their customers found (by id, share-locked so that a
 * deletion waits for this write) or made by external id (CustomerRules: suppression, the plan's
 * customer cap), their names found or added to the tenant's dictionary, then the events inserted
 * (insertNew: a message id is stored once, however requests race), under the plan's daily cap, and
 * the names' counts moved.
 */
@Injectable()
export class TrackingService {
  constructor(
    private readonly tables: Tables,
    private readonly rules: CustomerRules,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async track(auth: AuthContext, dto: TrackDto): Promise<Page<TrackResult, TrackCounts>> {
    const now = Date.now();
    const clock = { now, retentionDays: this.config.tracking.retentionDays };
    const checked = dto.events.map((raw) => checkTrackItem(raw, clock));
    const items: TrackItem[] = [];
    const positions: number[] = [];
    checked.forEach((check, index) => {
      if (check.ok) {
        items.push(check.item);
        positions.push(index);
      }
    });
    const stored = items.length
      ? await this.tables.writeWithBookkeeping(auth, (tx, sql) => this.store(tx, sql, items, now), BULK_WRITE)
      : [];
    const outcomes: Stored[] = checked.map((check) =>
      check.ok ? (undefined as unknown as Stored) : { status: 'failed', errors: check.errors },
    );
    positions.forEach((index, n) => (outcomes[index] = stored[n]));

    const counts: TrackCounts = { accepted: 0, duplicate: 0, failed: 0 };
    const results = outcomes.map((outcome, index): TrackResult => {
      if (outcome.status === 'failed') {
        counts.failed++;
        return { index, status: 'failed', id: null, errors: outcome.errors };
      }
      const status = outcome.status === 'created' ? 'accepted' : 'duplicate';
      counts[status]++;
      return { index, status, id: outcome.id };
    });
    return new Page(results, counts);
  }

  /** The checked items of one request, in its transaction. */
  private async store(tx: TenantTx, bookkeeping: Sql, items: readonly TrackItem[], now: number): Promise<Stored[]> {
    const events = tx.table(CustomerEvent);
    const outcomes: (Stored | undefined)[] = new Array<Stored | undefined>(items.length);
    // Stored before: a duplicate, and nothing more to check.
    const held = await events.keyHolders('message_id', uniq(items.map((item) => item.messageId)), tx.attempt > 1);
    const fresh: number[] = [];
    items.forEach((item, i) => {
      const holder = held.get(item.messageId);
      if (holder) outcomes[i] = { status: 'duplicate', id: holder.id };
      else fresh.push(i);
    });
    const customers = await this.customersOf(
      tx,
      bookkeeping,
      fresh.map((i) => items[i].subject),
    );
    const rows: number[] = [];
    const customerOf: number[] = [];
    fresh.forEach((i, n) => {
      const customer = customers[n];
      if (typeof customer !== 'number') outcomes[i] = { status: 'failed', errors: customer };
      else {
        rows.push(i);
        customerOf.push(customer);
      }
    });
    const names = await nameIds(
      tx,
      rows.map((i) => items[i].event),
    );
    const values = rows.map((i, n) => ({
      customer_id: customerOf[n],
      name_id: names.get(items[i].event)!,
      message_id: items[i].messageId,
      occurred_at: items[i].occurredAt,
      properties: items[i].properties,
    }));
    const day = usageDay(new Date(now));
    const limit = await this.dailyLimit(tx, bookkeeping);
    const inserted = await events.insertNew(values, {
      key: 'message_id',
      attempt: tx.attempt,
      creates:
        limit === null ? undefined : (wanted) => TRACKED_EVENTS.take(bookkeeping, tx.auth.tenantId, wanted, limit, day),
    });
    const created = values.filter((_, n) => inserted[n].status === 'created');
    await countStored(tx, created);
    if (limit === null) await TRACKED_EVENTS.add(bookkeeping, tx.auth.tenantId, created.length, day);
    rows.forEach((i, n) => (outcomes[i] = inserted[n]));
    return outcomes as Stored[];
  }

  /**
   * The customer of each subject, or the errors of the item: a customer id the tenant has (share-
   * locked: its deletion or erasure waits for this write, or this write sees it gone), an external
   * id's customer, or a customer made for an external id the tenant does not know, as the batch makes
   * one (refused for a suppressed id, or beyond the plan's customer cap).
   */
  private async customersOf(
    tx: TenantTx,
    bookkeeping: Sql,
    subjects: readonly EventSubject[],
  ): Promise<(number | FieldErrors)[]> {
    const table = tx.table(Customer);
    const externalIds = uniq(subjects.flatMap((s) => ('externalId' in s ? [s.externalId] : [])));
    const holders = await table.keyHolders('external_id', externalIds, tx.attempt > 1);
    const missing = externalIds.filter((key) => !holders.has(key));
    const made = new Map<string, number | FieldErrors>();
    if (missing.length) {
      const outcomes = await this.rules.upsert(
        tx,
        bookkeeping,
        missing.map((external_id) => ({ values: { external_id } })),
      );
      missing.forEach((key, i) => {
        const outcome = outcomes[i];
        made.set(key, outcome.status === 'failed' ? outcome.errors : outcome.id);
      });
    }
    const named = uniq([
      ...subjects.flatMap((s) => ('customerId' in s ? [s.customerId] : [])),
      ...[...holders.values()].map((holder) => holder.id),
    ]);
    const live = new Set((await table.findMany(named, { lock: 'share' })).map((customer) => customer.id));
    return subjects.map((subject) => {
      if ('customerId' in subject) {
        return live.has(subject.customerId) ? subject.customerId : { customer_id: [trackMessages.customerIdInvalid] };
      }
      const own = made.get(subject.externalId);
      if (own !== undefined) return own;
      const holder = holders.get(subject.externalId)!;
      // Deleted between the lookup and the lock: run again, and make it anew (or find it gone for good).
      if (!live.has(holder.id)) throw new RetryTransaction('a customer named by its external id went away');
      return holder.id;
    });
  }

  /** The plan's `tracked_events_per_day` (null: unlimited), as the request read it with its token. */
  private async dailyLimit(tx: TenantTx, bookkeeping: Sql): Promise<number | null> {
    const limits = tx.auth.tenant?.limits ?? (await readTenantLimits(bookkeeping, tx.auth.tenantId));
    return limits?.tracked_events_per_day ?? null;
  }

  /**
   * Drops the tracked events older than CUSTOMER_EVENT_RETENTION_DAYS before `now`, every tenant's:
   * name by name, oldest day first, each day in transactions of at most `purgeBatchRows` events
   * (on MariaDB one range of the table's (tenant, name, timestamp) order each), so that writers of
   * the same name wait for none of them long. Also drops the daily counts older than a week.
   * Answers how many events it dropped. No timer runs it here: the jobs primitive schedules it.
   */
  async purgeExpired(now = Date.now()): Promise<number> {
    const cutoff = now - this.config.tracking.retentionDays * DAY_MS;
    const names = this.tables.readAcrossTenants(CustomerEventName);
    const n = quote(names.spec.table);
    let purged = 0;
    for (let after = 0; ;) {
      const batch = await names.findBatch([{ sql: `${n}.id > ? AND ${n}.count > 0`, params: [after] }], {
        limit: PURGE_NAMES_PER_READ,
      });
      for (const name of batch) purged += await this.purgeName(name, cutoff);
      if (batch.length < PURGE_NAMES_PER_READ) break;
      after = batch[batch.length - 1].id;
    }
    const before = usageDay(new Date(now - DAILY_USAGE_KEPT_DAYS * DAY_MS));
    await this.tables.writeAcrossTenants({ requestId: 'customer-event-retention', job: true }, (_tx, sql) =>
      TRACKED_EVENTS.forgetBefore(sql, before),
    );
    return purged;
  }

  /** One name's events before `cutoff`: day by day from its oldest, a batch per transaction. */
  private async purgeName(name: CustomerEventName, cutoff: number): Promise<number> {
    const auth = systemAuth(name.tenant_id, `retention-${usageDay()}`);
    const limit = this.config.tracking.purgeBatchRows;
    let purged = 0;
    for (;;) {
      const oldest = await this.oldestOf(auth, name.id);
      if (oldest === null || oldest >= cutoff) return purged;
      // The oldest kept day, up to the cutoff.
      const until = Math.min(cutoff, Math.floor(oldest / DAY_MS) * DAY_MS + DAY_MS);
      for (;;) {
        const deleted = await this.tables.writeWithBookkeeping(
          auth,
          async (tx) => {
            const events = tx.table(CustomerEvent);
            const e = quote(events.spec.table);
            const rows = await events.findBatch(
              [{ sql: `${e}.name_id = ? AND ${e}.occurred_at < ?`, params: [name.id, until] }],
              { limit, orderBy: ['name_id', 'occurred_at', 'id'], lock: true },
            );
            if (rows.length === 0) return 0;
            await events.removeMany(rows);
            await countDeleted(tx, rows);
            return rows.length;
          },
          BULK_WRITE,
        );
        purged += deleted;
        if (deleted < limit) break;
      }
    }
  }

  /** The oldest kept timestamp of a name (null: none): one probe of the name's index. */
  private async oldestOf(auth: AuthContext, nameId: number): Promise<number | null> {
    const reads = this.tables.read(auth);
    const events = reads.table(CustomerEvent);
    const e = quote(events.spec.table);
    const scope = events.scope(e);
    const [row] = await reads.select<{ oldest: number | string | null }>(
      `SELECT MIN(${e}.occurred_at) AS oldest FROM ${e} WHERE ${scope.sql} AND ${e}.name_id = ?`,
      [...scope.params, nameId],
    );
    return row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
  }
}
