import { Injectable } from '@nestjs/common';
import { systemAuth } from '../auth/auth-context.js';
import type { JobContext } from '../jobs/job.js';
import { Database, type Sql } from '../persistence/database.js';
import { Tables, type TenantTx } from '../persistence/tables.js';

/** A numbered event as a follower of the feed gets it. */
export interface FollowedEvent {
  id: number;
  sequence: number;
  type: string;
  resourceId: number;
  occurredAt: number;
}

/** What follows the feed: named (its cursors' key), handed each tenant's next numbered events in order. */
export interface FeedConsumer {
  readonly consumer: string;
  /** Inside the batch's transaction, which also moves the consumer's cursor past these events. */
  take(tx: TenantTx, sql: Sql, events: readonly FollowedEvent[]): Promise<void>;
}

/** Tenants looked at per pass, and events handed over per transaction. */
const TENANTS_PER_PASS = 100;
const EVENTS_PER_BATCH = 2_000;

/**
 * Follows the change feed for a consumer (webhook fan-out): for every tenant whose feed is ahead
 * of the consumer's cursor (`feed_cursors`), hands its next numbered events, in sequence order,
 * to the consumer in a transaction that holds and then moves the cursor, fenced on the job that
 * runs it. Each event is handed over once per consumer, also when two instances follow at once.
 * Runs as a job (the consumer's recurring queue), never inside the numbering pass, which holds
 * the cluster-wide numbering lock.
 */
@Injectable()
export class FeedFollower {
  constructor(
    private readonly db: Database,
    private readonly tables: Tables,
  ) {}

  /** Hands every event numbered so far to `consumer`; answers how many. */
  async follow(consumer: FeedConsumer, context: JobContext): Promise<number> {
    let handed = 0;
    for (;;) {
      const behind = await this.db.query<{ tenant_id: number | string }>(
        `SELECT c.tenant_id FROM event_counters c
           LEFT JOIN feed_cursors f ON f.consumer = ? AND f.tenant_id = c.tenant_id
          WHERE c.tenant_id > 0 AND c.last_sequence > COALESCE(f.through, 0)
          ORDER BY c.tenant_id LIMIT ${TENANTS_PER_PASS}`,
        [consumer.consumer],
      );
      if (behind.length === 0) return handed;
      for (const { tenant_id } of behind) {
        for (;;) {
          if (context.shouldStop()) return handed;
          const taken = await this.batch(consumer, Number(tenant_id), context);
          handed += taken;
          if (taken < EVENTS_PER_BATCH) break;
        }
      }
    }
  }

  private batch(consumer: FeedConsumer, tenantId: number, context: JobContext): Promise<number> {
    return this.tables.writeWithBookkeeping(systemAuth(tenantId, consumer.consumer), async (tx, sql) => {
      await context.fence(sql);
      const through = await this.holdCursor(sql, consumer.consumer, tenantId);
      const rows = await sql.query<{
        id: number | string;
        sequence: number | string;
        type: string;
        resource_id: number | string;
        occurred_at: number | string;
      }>(
        `SELECT id, sequence, type, resource_id, occurred_at FROM events
          WHERE tenant_id = ? AND sequence > ? ORDER BY sequence LIMIT ${EVENTS_PER_BATCH}`,
        [tenantId, through],
      );
      const last = rows.length ? Number(rows[rows.length - 1].sequence) : await this.lastSequence(sql, tenantId);
      if (rows.length) {
        await consumer.take(
          tx,
          sql,
          rows.map((row) => ({
            id: Number(row.id),
            sequence: Number(row.sequence),
            type: row.type,
            resourceId: Number(row.resource_id),
            occurredAt: Number(row.occurred_at),
          })),
        );
      }
      // Past the last event (or, when retention removed them all, the tenant's head).
      await sql.run('UPDATE feed_cursors SET through = ? WHERE consumer = ? AND tenant_id = ?', [
        Math.max(last, through),
        consumer.consumer,
        tenantId,
      ]);
      return rows.length;
    });
  }

  /** The consumer's cursor of the tenant, held until the transaction ends (made at 0 the first time). */
  private async holdCursor(sql: Sql, consumer: string, tenantId: number): Promise<number> {
    const read = () =>
      sql.query<{ through: number | string }>(
        `SELECT through FROM feed_cursors WHERE consumer = ? AND tenant_id = ?${sql.dialect === 'mysql' ? ' FOR UPDATE' : ''}`,
        [consumer, tenantId],
      );
    let [row] = await read();
    if (!row) {
      await sql.run(
        sql.dialect === 'mysql'
          ? 'INSERT INTO feed_cursors (consumer, tenant_id, through) VALUES (?, ?, 0) ON DUPLICATE KEY UPDATE through = through'
          : 'INSERT INTO feed_cursors (consumer, tenant_id, through) VALUES (?, ?, 0) ON CONFLICT DO NOTHING',
        [consumer, tenantId],
      );
      [row] = await read();
    }
    return Number(row.through);
  }

  private async lastSequence(sql: Sql, tenantId: number): Promise<number> {
    const [row] = await sql.query<{ last_sequence: number | string }>(
      'SELECT last_sequence FROM event_counters WHERE tenant_id = ?',
      [tenantId],
    );
    return Number(row?.last_sequence ?? 0);
  }
}
