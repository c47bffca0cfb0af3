import { Injectable } from '@nestjs/common';
import { systemAuth } from '../../../common/auth/auth-context.js';
import { Tables } from '../../../common/persistence/tables.js';
import { WebhookDelivery } from '../entities/webhook.entity.js';

/** A delivery with what sending it needs: its endpoint, and its event as the feed holds it now (null once retention dropped it). */
export interface DeliveryToSend {
  id: number | string;
  tenant_id: number | string;
  webhook_id: number | string;
  event_id: number | string;
  queued_at: number | string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | string | null;
  failing_since: number | string | null;
  is_active: boolean | number;
  disabled_reason: string | null;
  active_since: number | string;
  sequence: number | string | null;
  type: string | null;
  resource: string | null;
  resource_id: number | string | null;
  data: string | null;
  changes: string | null;
  causer_id: number | string | null;
  request_id: string | null;
  occurred_at: number | string | null;
}

interface Waiting {
  tenantId: number;
  id: number;
  resolve: (row: DeliveryToSend | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Reads the deliveries a claim round starts, together: every run asks for its own in the same turn
 * of the event loop, and one SELECT per tenant answers them all (joined to the endpoint and the
 * event), scoped to the tenant by the deliveries' table.
 */
@Injectable()
export class DeliveryReads {
  private waiting: Waiting[] = [];

  constructor(private readonly tables: Tables) {}

  load(tenantId: number, id: number): Promise<DeliveryToSend | undefined> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) queueMicrotask(() => void this.flush());
      this.waiting.push({ tenantId, id, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const waiting = this.waiting;
    this.waiting = [];
    const byTenant = new Map<number, Waiting[]>();
    for (const entry of waiting) byTenant.set(entry.tenantId, [...(byTenant.get(entry.tenantId) ?? []), entry]);
    for (const [tenantId, entries] of byTenant) {
      try {
        const reads = this.tables.read(systemAuth(tenantId, 'webhooks'));
        const scope = reads.table(WebhookDelivery).scope('d');
        const rows = await reads.select<DeliveryToSend>(
          `SELECT d.id, d.tenant_id, d.webhook_id, d.event_id, d.queued_at, w.url, w.secret, w.previous_secret,
                  w.previous_secret_expires_at, w.failing_since, w.is_active, w.disabled_reason, w.active_since,
                  e.sequence, e.type, e.resource, e.resource_id, e.data, e.changes, e.causer_id, e.request_id, e.occurred_at
             FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN events e ON e.id = d.event_id
            WHERE d.id IN (${entries.map(() => '?').join(', ')}) AND ${scope.sql}`,
          [...entries.map((entry) => entry.id), ...scope.params],
        );
        const byId = new Map(rows.map((row) => [Number(row.id), row]));
        for (const entry of entries) entry.resolve(byId.get(entry.id));
      } catch (error) {
        for (const entry of entries) entry.reject(error);
      }
    }
  }
}
