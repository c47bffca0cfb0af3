import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { JobContext } from '../jobs/job.js';
import { Jobs } from '../jobs/jobs.js';
import { isDatabaseUnavailable } from '../persistence/database-errors.js';
import { Database, type Sql, type SqlValue } from '../persistence/database.js';
import { runTogether, type Statement } from '../persistence/statement-batch.js';
import { valuesTable } from '../persistence/values-table.js';
import { numberingRuns, type NumberingRun } from './numbering-runs.js';

/** Events numbered by one pass (one transaction). */
const PASS_SIZE = 2_000;
/** Events of one tenant with evenly spaced ids numbered by one range UPDATE when there are at least this many. */
const MIN_RANGE_RUN = 8;
/** A pass after a nudge waits this long, so that the commits of a burst are numbered together. */
const NUDGE_DELAY_MS = 25;
/** Without nudges (writes through other instances, a crash between commit and nudge), a pass this often. */
const IDLE_PASS_MS = 1_000;
/** The feed's followers are made due at most this often (their own recurring run is every second). */
const FOLLOWER_WAKE_MS = 100;
/** Retention: the events it deletes per transaction (short, so writers never wait long). */
const RETENTION_BATCH = 2_000;

interface Pending {
  id: number | string;
  tenant_id: number | string;
  type: string;
  resource_id: number | string;
  occurred_at: number | string;
  counted: number | boolean;
}

/** An event as the pass that numbered it hands it on. */
export interface NumberedEvent {
  id: number;
  tenantId: number;
  sequence: number;
  type: string;
  resourceId: number;
  /** When its write stamped it (ms); it may be numbered a moment after a later write committed. */
  occurredAt: number;
  /** Its write counted it against the tenant's limit already (RecordCaps folds the others). */
  counted: boolean;
}

/** An event of a write that numbers its own (numberInWrite), before it is stored. */
export type OwnEvent = Pick<NumberedEvent, 'tenantId' | 'type' | 'resourceId'> & { counted?: boolean };

/** Bookkeeping that must happen with the numbering, in its transaction (the plan's counts). */
export interface NumberingListener {
  numbered(sql: Sql, events: readonly NumberedEvent[]): Promise<void>;
}

/** What the numbering pass does with its events (src/side-effects.ts): listeners in its transaction, followers woken after. */
export interface NumberingEffects {
  /** In the pass's transaction, under the numbering lock: bookkeeping only. */
  listeners: readonly NumberingListener[];
  /** Recurring queues that follow the feed (FeedFollower), made due once a pass has numbered events. */
  followers: readonly string[];
}
export const NUMBERING_EFFECTS = Symbol('NUMBERING_EFFECTS');

/**
 * Numbers the change feed's events per tenant after they commit, in the order of their ids, which
 * is the order of their writes for any one record (a later write of a record waits for the
 * earlier one's commit before it inserts its event). A reader following `sequence` therefore
 * never skips an event that commits late: it has no number until it has committed, and it then
 * gets the next one. One pass is one transaction that first holds the sequencer's own row of
 * `event_counters` (so one pass runs at a time across instances; on a Galera cluster every write
 * goes to one node, so that lock holds cluster-wide), reads the events without a number, skipping
 * rows of transactions still open (`SKIP LOCKED`), and numbers them from each tenant's counter.
 * Every instance runs passes: after its own writes (nudge), before a feed read (catchUp) and once
 * a second. Its retention (`purge`) runs as a job (EventRetention).
 *
 * The numbering is not a job of the jobs table (src/common/jobs), on purpose: a pass follows every
 * write by 25 ms and must stay that cheap (a job row claimed and settled per pass would double the
 * writes it exists to number), and its exclusivity is the row lock its own transaction holds on
 * `event_counters`, which is stronger than a lease: a pass cannot outlive it, so there is nothing
 * to fence or to give back.
 */
@Injectable()
export class EventSequencer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ChangeFeed');
  /** The pass running (or the last one), and the one queued behind it that has not started yet. */
  private current: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private nudged: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The followers being made due (wakeFollowers), and when they last were. */
  private waking: Promise<void> | undefined;
  private lastWake = 0;
  /** A bulk write numbered its own events: the next pass wakes the followers even if it numbers none. */
  private numberedInWrite = false;

  constructor(
    private readonly db: Database,
    private readonly jobs: Jobs,
    @Inject(NUMBERING_EFFECTS) private readonly effects: NumberingEffects,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.events.background) return;
    this.idleTimer = setInterval(() => this.nudge(), IDLE_PASS_MS);
    this.idleTimer.unref();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearInterval(this.idleTimer);
    if (this.nudged) clearTimeout(this.nudged);
  }

  /** A write committed events: number them soon (the passes of a burst coalesce). */
  nudge(): void {
    if (this.nudged || this.stopped || !this.config.events.background) return;
    this.nudged = setTimeout(() => {
      this.nudged = undefined;
      this.catchUp().catch((error) => this.warn('sequencing', error));
    }, NUDGE_DELAY_MS);
    this.nudged.unref();
  }

  /** Numbers every event committed before the call (a feed read runs it first, so it sees every committed write). */
  catchUp(): Promise<void> {
    // Passes run one after the other. A pass that has not started yet will see every commit made
    // before it starts, so a caller joins it; once it has started, a caller queues the next one.
    if (!this.queued) {
      const queued: Promise<void> = this.current
        .catch(() => undefined)
        .then(() => {
          if (this.queued === queued) this.queued = undefined;
          return this.drain();
        });
      this.queued = queued;
      this.current = queued;
    }
    return this.queued;
  }

  private async drain(): Promise<void> {
    const pass = async (sql: Sql) => {
      await holdSequencer(sql);
      return this.numberCommitted(sql);
    };
    let numbered = 0;
    for (let last = PASS_SIZE; last === PASS_SIZE; numbered += last) {
      last = await this.db.transaction(pass, { isolation: 'read committed' });
    }
    if (numbered || this.numberedInWrite) {
      this.numberedInWrite = false;
      this.wakeFollowers();
    }
  }

  /**
   * The feed moved on: its followers catch up now rather than at their next run (within a second).
   * Best effort, beside the passes: a pass never waits for it (its UPDATE may wait on a follower's
   * transaction), and one wake at a time is enough.
   */
  private wakeFollowers(): void {
    if (this.waking || this.stopped) return;
    const wait = this.lastWake + FOLLOWER_WAKE_MS - Date.now();
    this.waking = (async () => {
      // At most one wake per FOLLOWER_WAKE_MS: under a stream of writes the followers run in step with it.
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
      this.lastWake = Date.now();
      for (const queue of this.effects.followers) await this.jobs.runNow(queue);
    })()
      .catch((error) => this.warn('waking the feed followers', error))
      .finally(() => (this.waking = undefined));
  }

  /**
   * Numbers the events of a bulk write (a batch, an import chunk) in the write's own transaction,
   * instead of by a pass after its commit, which would rewrite each of its rows once more. It holds
   * the sequencer's row until the write commits, numbers every event committed before (so that a
   * record's earlier write keeps its place before this one), and gives the write's events the next
   * numbers of their tenants; `insert` stores them with those numbers and answers their ids in
   * order. Nothing else is numbered while the write is open, so no reader can move past its events
   * before they commit. Run it last in the write, in READ COMMITTED where the write can (the read of
   * events without a number then takes no gap lock that would hold back other writers' events).
   */
  async numberInWrite(
    sql: Sql,
    events: readonly OwnEvent[],
    occurredAt: number,
    insert: (sequences: readonly number[]) => Promise<number[]>,
  ): Promise<void> {
    await holdSequencer(sql);
    while ((await this.numberCommitted(sql)) === PASS_SIZE);
    const tenantIds = events.map((event) => event.tenantId);
    const last = await lastSequences(sql, [...new Set(tenantIds)]);
    const sequences = nextSequences(last, tenantIds);
    await runTogether(sql, [counterUpdate(sql, last)]);
    const ids = await insert(sequences);
    const numbered = events.map((event, i): NumberedEvent => ({
      id: ids[i],
      tenantId: event.tenantId,
      sequence: sequences[i],
      type: event.type,
      resourceId: event.resourceId,
      occurredAt,
      counted: event.counted === true,
    }));
    for (const listener of this.effects.listeners) await listener.numbered(sql, numbered);
    this.numberedInWrite = true;
  }

  /** One pass, with the sequencer's row held: numbers up to PASS_SIZE committed events, answers how many. */
  private async numberCommitted(sql: Sql): Promise<number> {
    const mysql = sql.dialect === 'mysql';
    const pending = await sql.query<Pending>(
      `SELECT id, tenant_id, type, resource_id, occurred_at, counted FROM events WHERE sequence IS NULL ORDER BY id LIMIT ${PASS_SIZE}${mysql ? ' FOR UPDATE SKIP LOCKED' : ''}`,
    );
    if (pending.length === 0) return 0;
    const tenantIds = pending.map((row) => Number(row.tenant_id));
    const last = await lastSequences(sql, [...new Set(tenantIds)]);
    const sequences = nextSequences(last, tenantIds);
    const numbered = pending.map((row, i): NumberedEvent => ({
      id: Number(row.id),
      tenantId: tenantIds[i],
      sequence: sequences[i],
      type: row.type,
      resourceId: Number(row.resource_id),
      occurredAt: Number(row.occurred_at),
      counted: Boolean(Number(row.counted)),
    }));
    const { runs, rest } = numberingRuns(numbered, MIN_RANGE_RUN);
    const numbering = runs.map((run) => numberRange(sql, run));
    const restNumbers = rest.map((event) => [event.id, event.sequence]);
    if (restNumbers.length) numbering.push(joinedUpdate(sql, 'events', 'id', 'sequence', restNumbers));
    numbering.push(counterUpdate(sql, last));
    await runTogether(sql, numbering);
    for (const listener of this.effects.listeners) await listener.numbered(sql, numbered);
    return pending.length;
  }

  /**
   * Deletes the events that occurred before the retention period, oldest first, a short
   * transaction per batch; each tenant's counter keeps the last sequence and the instant removed,
   * so that a reader behind them is told (410) rather than left with a gap. Answers how many went.
   */
  async purge(now = Date.now(), context?: JobContext): Promise<number> {
    const before = now - this.config.events.retentionDays * 24 * 60 * 60 * 1000;
    await this.catchUp(); // only numbered events are removed: a reader's position is a number
    let removed = 0;
    for (;;) {
      const batch = await this.db.transaction(
        async (sql) => {
          await context?.fence(sql);
          const rows = await sql.query<{
            id: number | string;
            tenant_id: number | string;
            sequence: number | string | null;
            occurred_at: number | string;
          }>(`SELECT id, tenant_id, sequence, occurred_at FROM events ORDER BY id LIMIT ${RETENTION_BATCH}`);
          const old = [];
          for (const row of rows) {
            if (Number(row.occurred_at) >= before) break;
            if (row.sequence !== null) old.push(row);
          }
          if (old.length === 0) return 0;
          const through = new Map<number, number>();
          for (const row of old) {
            const tenant = Number(row.tenant_id);
            through.set(tenant, Math.max(through.get(tenant) ?? 0, Number(row.sequence)));
          }
          await sql.run(
            `DELETE FROM events WHERE id IN (${old.map(() => '?').join(', ')})`,
            old.map((row) => Number(row.id)),
          );
          for (const [tenant, sequence] of through) {
            await sql.run(
              `UPDATE event_counters SET purged_through = CASE WHEN purged_through > ? THEN purged_through ELSE ? END,
                 purged_until = CASE WHEN purged_until > ? THEN purged_until ELSE ? END WHERE tenant_id = ?`,
              [sequence, sequence, before, before, tenant],
            );
          }
          return old.length;
        },
        { isolation: 'read committed' },
      );
      removed += batch;
      if (batch < RETENTION_BATCH || this.stopped || context?.shouldStop()) return removed;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private warn(what: string, error: unknown): void {
    if (isDatabaseUnavailable(error)) return; // the next pass, once the database is back
    this.logger.warn(`${what} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Holds the sequencer's own row of `event_counters` until the transaction ends: one numbering at a time, across instances. */
async function holdSequencer(sql: Sql): Promise<void> {
  await sql.query(
    `SELECT last_sequence FROM event_counters WHERE tenant_id = 0${sql.dialect === 'mysql' ? ' FOR UPDATE' : ''}`,
  );
}

/**
 * Each tenant's last sequence, a counter row made for a tenant without one. A locking read on
 * MySQL/MariaDB: a bulk write's transaction may be REPEATABLE READ, whose plain reads could answer
 * a counter from before the last pass.
 */
async function lastSequences(sql: Sql, tenants: readonly number[]): Promise<Map<number, number>> {
  const counters = await sql.query<{ tenant_id: number | string; last_sequence: number | string }>(
    `SELECT tenant_id, last_sequence FROM event_counters WHERE tenant_id IN (${tenants.map(() => '?').join(', ')})${sql.dialect === 'mysql' ? ' FOR UPDATE' : ''}`,
    tenants,
  );
  const last = new Map(counters.map((row) => [Number(row.tenant_id), Number(row.last_sequence)]));
  const fresh = tenants.filter((tenant) => !last.has(tenant));
  if (fresh.length) {
    await sql.run(
      `INSERT INTO event_counters (tenant_id, last_sequence, purged_through, purged_until)
       VALUES ${fresh.map(() => '(?, 0, 0, 0)').join(', ')}`,
      fresh,
    );
    for (const tenant of fresh) last.set(tenant, 0);
  }
  return last;
}

/**
 * The next sequence of its tenant for each event (given by its tenant's id), in order; `last` moves
 * on to the last one given.
 */
function nextSequences(last: Map<number, number>, tenantIds: readonly number[]): number[] {
  return tenantIds.map((tenantId) => {
    const sequence = last.get(tenantId)! + 1;
    last.set(tenantId, sequence);
    return sequence;
  });
}

/** Stores each tenant's last sequence of `last` in its counter. */
function counterUpdate(sql: Sql, last: Map<number, number>): Statement {
  return joinedUpdate(sql, 'event_counters', 'tenant_id', 'last_sequence', [...last]);
}

/** `UPDATE table SET column = v.value WHERE key = v.key` for many (key, value) pairs at once. */
function joinedUpdate(sql: Sql, table: string, key: string, column: string, pairs: SqlValue[][]): Statement {
  const v = valuesTable(sql.dialect, ['k', 'n'], pairs, 'v');
  return sql.dialect === 'mysql'
    ? { sql: `UPDATE ${table} t JOIN ${v.sql} ON t.${key} = v.k SET t.${column} = v.n`, params: v.params }
    : { sql: `UPDATE ${table} SET ${column} = v.n FROM ${v.sql} WHERE ${table}.${key} = v.k`, params: v.params };
}

/**
 * Numbers a run of events by their ids. Every id of the run's step between its first and last is one
 * of the pass's events (numberingRuns makes runs so), so the range touches no other transaction's row.
 */
function numberRange(sql: Sql, run: NumberingRun): Statement {
  const mysql = sql.dialect === 'mysql';
  const offset = mysql ? '(id - ?) DIV ?' : '(id - ?) / ?';
  const onStep = run.step === 1 ? '' : mysql ? ' AND MOD(id - ?, ?) = 0' : ' AND (id - ?) % ? = 0';
  return {
    sql: `UPDATE events SET sequence = ? + ${offset} WHERE id BETWEEN ? AND ? AND sequence IS NULL${onStep}`,
    params: [run.sequence, run.first, run.step, run.first, run.last, ...(run.step === 1 ? [] : [run.first, run.step])],
  };
}
