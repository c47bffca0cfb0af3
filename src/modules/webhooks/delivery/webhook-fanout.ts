import { Injectable } from '@nestjs/common';
import { EventSequencer, type NumberedEvent, type NumberingListener } from '../../../common/events/event-sequencer.js';
import type { Sql, SqlValue } from '../../../common/persistence/database.js';
import { DeliveryWorker } from './delivery-worker.js';

/** The event type that goes only to the endpoint it tests, whatever that endpoint subscribes to. */
export const TEST_EVENT = 'webhook.test';
const DELIVERIES_PER_STATEMENT = 2_000;

/** Whether an endpoint whose `events` column holds `subscribed` receives an event of `type`. */
export function subscribes(subscribed: readonly string[], type: string): boolean {
  return subscribed.includes('*') || subscribed.includes(type);
}

/**
 * Fans the change feed out to webhooks: in the very pass that numbers events (their transaction),
 * one delivery per event and active endpoint of its tenant that subscribes to its type. So a
 * numbered event always has its deliveries, an endpoint receives only events written while it is
 * active (a re-enabled one starts from new events; a replay sends older ones), and nothing is
 * dispatched twice.
 */
@Injectable()
export class WebhookFanout implements NumberingListener {
  private readonly parsed = new Map<string, string[]>();

  constructor(
    sequencer: EventSequencer,
    private readonly worker: DeliveryWorker,
  ) {
    sequencer.onNumbered(this);
  }

  async numbered(sql: Sql, events: readonly NumberedEvent[]): Promise<void> {
    const tenants = [...new Set(events.map((event) => event.tenantId))];
    const endpoints = await sql.query<{
      id: number | string;
      tenant_id: number | string;
      events: string;
      active_since: number | string;
    }>(
      `SELECT id, tenant_id, events, active_since FROM webhooks
        WHERE tenant_id IN (${tenants.map(() => '?').join(', ')}) AND is_active = ? AND disabled_reason IS NULL${
          // A locking read sees the endpoints as they are now, also in a REPEATABLE READ write that numbers its own events.
          sql.dialect === 'mysql' ? ' LOCK IN SHARE MODE' : ''
        }`,
      [...tenants, true],
    );
    if (endpoints.length === 0) return;
    const byTenant = new Map<number, { id: number; events: string[]; since: number }[]>();
    for (const endpoint of endpoints) {
      const list = byTenant.get(Number(endpoint.tenant_id)) ?? [];
      list.push({
        id: Number(endpoint.id),
        events: this.subscriptions(endpoint.events),
        since: Number(endpoint.active_since),
      });
      byTenant.set(Number(endpoint.tenant_id), list);
    }
    const now = Date.now();
    const created = new Date(Math.floor(now / 1000) * 1000);
    const rows: SqlValue[][] = [];
    for (const event of events) {
      for (const endpoint of byTenant.get(event.tenantId) ?? []) {
        // An event written before the endpoint was enabled is numbered a moment later: not for it.
        if (event.occurredAt < endpoint.since) continue;
        const receives =
          event.type === TEST_EVENT ? endpoint.id === event.resourceId : subscribes(endpoint.events, event.type);
        if (receives) rows.push([event.tenantId, endpoint.id, event.id, event.type, now, now, created, created]);
      }
    }
    await insertDeliveries(sql, rows);
    if (rows.length) this.worker.nudge();
  }

  private subscriptions(json: string): string[] {
    let list = this.parsed.get(json);
    if (!list) {
      list = JSON.parse(json) as string[];
      if (this.parsed.size > 10_000) this.parsed.clear();
      this.parsed.set(json, list);
    }
    return list;
  }
}

/** New pending deliveries, each row (tenant_id, webhook_id, event_id, event_type, next_attempt_at, queued_at, created_at, updated_at). */
export async function insertDeliveries(sql: Sql, rows: readonly SqlValue[][]): Promise<void> {
  for (let start = 0; start < rows.length; start += DELIVERIES_PER_STATEMENT) {
    const slice = rows.slice(start, start + DELIVERIES_PER_STATEMENT);
    await sql.run(
      `INSERT INTO webhook_deliveries
         (tenant_id, webhook_id, event_id, event_type, status, attempts, next_attempt_at, queued_at, created_at, updated_at)
       VALUES ${slice.map(() => "(?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)").join(', ')}`,
      slice.flat(),
    );
  }
}
