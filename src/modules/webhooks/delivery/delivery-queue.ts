import { Inject, Injectable } from '@nestjs/common';
import { systemAuth } from '../../../common/auth/auth-context.js';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { eventId } from '../../../common/events/change-feed.js';
import type { Job, JobHandler, JobOutcome, LaneLimits, QueueSettings, Settled } from '../../../common/jobs/job.js';
import { HELD, Jobs } from '../../../common/jobs/jobs.js';
import { Metrics } from '../../../common/metrics/metrics.js';
import type { Sql, SqlValue } from '../../../common/persistence/sql.js';
import { Tables } from '../../../common/persistence/tables.js';
import { valuesTable } from '../../../common/persistence/values-table.js';
import { OutboundHttp, type SendResult } from '../../../common/outbound/outbound-http.js';
import { signatureHeader } from '../../../common/outbound/signature.js';
import { Webhook, type DisabledReason } from '../entities/webhook.entity.js';
import { toWebhookResponse } from '../dto/webhook.response.js';
import { DeliveryReads, type DeliveryToSend } from './delivery-reads.js';

/** The queue of webhook deliveries (src/background-work.ts): one job per delivery, one lane per endpoint. */
export const DELIVERY_QUEUE = 'webhook-delivery';

/** The lane of an endpoint's deliveries: its concurrency is counted across instances. */
export const webhookLane = (webhookId: number): string => `webhook:${webhookId}`;

/** A delivery's job holds this key: one job per delivery, whoever queues it (the fan-out, a replay, a retry). */
export const deliveryKey = (deliveryId: number): string => `delivery:${deliveryId}`;

/** What one attempt came to, as the delivery log records it. */
interface Attempt {
  delivery: DeliveryToSend;
  result: SendResult;
  at: number;
}

/**
 * Webhook deliveries as a queue of the jobs table (docs/webhooks.md): each delivery's job is claimed
 * under a lease by any instance, at most `perEndpoint` of one endpoint in flight across instances
 * (its lane), so a slow or dead endpoint never delays the others. A run sends the event as the feed
 * holds it now, signed with the endpoint's secrets; a 2xx is a delivery, anything else is retried
 * on the webhook schedule (a 429 or 503 when its Retry-After says) until it is spent (`failed`). The
 * attempts are recorded in batches (`settle`): each in the log, each delivery delivered,
 * rescheduled or failed (and counted in GET /metrics). A 410 disables the endpoint at once (`gone`); an endpoint whose every
 * attempt failed for five days is disabled (`failing`); both announce `webhook.disabled`. An
 * instance killed mid-send loses nothing: its leases run out and another sends again (at least once).
 */
@Injectable()
export class DeliveryQueue implements JobHandler {
  readonly settings: QueueSettings;
  private readonly owner = 'webhooks';

  constructor(
    private readonly tables: Tables,
    private readonly jobs: Jobs,
    private readonly http: OutboundHttp,
    private readonly reads: DeliveryReads,
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const { worker, leaseMs, pollMs, retrySchedule } = config.webhooks;
    this.settings = {
      name: DELIVERY_QUEUE,
      enabled: worker,
      // Sends wait on the network, not on this process: many at once, bounded per endpoint by its lane.
      concurrency: 500,
      leaseMs,
      pollMs,
      retry: { name: 'webhook', delays: retrySchedule },
      maxWaitSeconds: 300,
    };
  }

  async laneLimits(lanes: readonly string[]): Promise<Map<string, LaneLimits>> {
    return new Map(lanes.map((lane) => [lane, { concurrency: this.config.webhooks.perEndpoint }]));
  }

  async run(job: Job): Promise<JobOutcome> {
    const delivery = await this.reads.load(job.tenantId!, job.subjectId!);
    if (!delivery) return { status: 'done', note: 'gone' };
    // Switched off: the lane is held (WebhooksService); a run claimed just before waits with it.
    const active = Boolean(Number(delivery.is_active));
    if (!active && delivery.disabled_reason === null) return { status: 'again', at: HELD };
    if (!active) return { status: 'failed', error: `the endpoint was disabled (${delivery.disabled_reason})` };
    if (Number(delivery.queued_at) < Number(delivery.active_since))
      return { status: 'failed', error: 'queued before the webhook was enabled again' };
    const at = Date.now();
    if (delivery.type === null) {
      const result = { durationMs: 0, error: 'the event is no longer kept (retention)' };
      return { status: 'failed', error: result.error, record: { delivery, result, at } satisfies Attempt };
    }
    const result = await this.send(delivery, at);
    const record: Attempt = { delivery, result, at };
    const code = result.statusCode;
    if (code !== undefined && code >= 200 && code < 300) return { status: 'done', note: 'delivered', record };
    const error = result.error ?? `HTTP ${code}`;
    if (code === 410) return { status: 'failed', error, record };
    return { status: 'retry', failure: { error, statusCode: code, retryAfter: result.retryAfter }, record };
  }

  /** The event as the feed holds it now (an erased customer's: its tombstone), signed with the endpoint's secrets. */
  private send(delivery: DeliveryToSend, at: number): Promise<SendResult> {
    const id = eventId(Number(delivery.event_id));
    const body = JSON.stringify({
      id,
      sequence: Number(delivery.sequence),
      type: delivery.type,
      occurred_at: new Date(Number(delivery.occurred_at)).toISOString(),
      resource: delivery.resource,
      resource_id: Number(delivery.resource_id),
      data: JSON.parse(delivery.data ?? 'null') as unknown,
      changes: JSON.parse(delivery.changes ?? '[]') as unknown,
      causer: delivery.causer_id === null ? null : { type: 'user', id: Number(delivery.causer_id) },
      request_id: delivery.request_id,
    });
    const timestamp = Math.floor(at / 1000);
    const secrets = [delivery.secret];
    if (delivery.previous_secret && Number(delivery.previous_secret_expires_at) > at)
      secrets.push(delivery.previous_secret);
    return this.http.send(
      delivery.url,
      {
        'user-agent': 'campaign-service-webhooks/1',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, id, timestamp, body),
      },
      body,
    );
  }

  /** Every attempt in the log; each delivery delivered, rescheduled or failed (the runner's transaction). */
  async settle(sql: Sql, settled: readonly Settled[]): Promise<void> {
    const attempts = settled.filter((s) => s.outcome.status !== 'again' && s.outcome.status !== 'released');
    const made = attempts.map((s) => (s.outcome as { record?: Attempt }).record).filter((a) => a !== undefined);
    const now = Date.now();
    const stamp = new Date(Math.floor(now / 1000) * 1000);
    if (made.length) await insertAttempts(sql, made, stamp);
    // Per delivery: id, status, next_attempt_at, last_status_code, last_error, delivered_at, attempts made.
    const updates: SqlValue[][] = attempts.flatMap(({ job, outcome, final, nextRunAt }) => {
      const attempt = (outcome as { record?: Attempt }).record;
      const code = attempt?.result.statusCode ?? null;
      const sent = attempt ? 1 : 0;
      if (outcome.status === 'done')
        return outcome.note === 'delivered' ? [[job.subjectId!, 'delivered', null, code, null, stamp, sent]] : [];
      const error = outcome.status === 'retry' ? outcome.failure.error : (outcome as { error: string }).error;
      return [[job.subjectId!, final === 'retry' ? 'pending' : 'failed', nextRunAt ?? null, code, error, null, sent]];
    });
    if (updates.length) await updateDeliveries(sql, updates, stamp);
  }

  /** The endpoints' health after their attempts: failing since when, or disabled. */
  async afterSettle(settled: readonly Settled[]): Promise<void> {
    for (const { outcome, final } of settled) {
      if (!(outcome as { record?: Attempt }).record) continue;
      this.metrics.webhookDelivery(outcome.status === 'done' ? 'delivered' : final === 'retry' ? 'retry' : 'failed');
    }
    const { failingDisableMs } = this.config.webhooks;
    const now = Date.now();
    const health = new Map<number, { tenantId: number; ok: boolean; gone: boolean; failingSince: number | null }>();
    for (const { outcome } of settled) {
      const attempt = (outcome as { record?: Attempt }).record;
      if (!attempt || attempt.delivery.type === null) continue;
      const { delivery, result } = attempt;
      const webhookId = Number(delivery.webhook_id);
      const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
      const endpoint = health.get(webhookId) ?? {
        tenantId: Number(delivery.tenant_id),
        ok: false,
        gone: false,
        failingSince: delivery.failing_since === null ? null : Number(delivery.failing_since),
      };
      endpoint.ok ||= ok;
      endpoint.gone ||= result.statusCode === 410;
      health.set(webhookId, endpoint);
    }
    for (const [webhookId, endpoint] of health) {
      if (endpoint.gone) await this.disable(endpoint.tenantId, webhookId, 'gone');
      else if (endpoint.ok && endpoint.failingSince !== null)
        await this.setFailingSince(endpoint.tenantId, webhookId, null);
      else if (!endpoint.ok && endpoint.failingSince === null)
        await this.setFailingSince(endpoint.tenantId, webhookId, now);
      else if (!endpoint.ok && now - endpoint.failingSince! >= failingDisableMs) {
        await this.disable(endpoint.tenantId, webhookId, 'failing');
      }
    }
  }

  /**
   * When the endpoint started failing (null: it delivers again): the service's own bookkeeping, not
   * a change of the endpoint, so it moves neither its `updated_at` nor the log or the change feed.
   */
  private async setFailingSince(tenantId: number, webhookId: number, since: number | null): Promise<void> {
    await this.tables.writeWithBookkeeping(systemAuth(tenantId, this.owner), (_tx, bookkeeping) =>
      bookkeeping.run('UPDATE webhooks SET failing_since = ? WHERE id = ?', [since, webhookId]),
    );
  }

  /** Disables an endpoint (`gone`: it answered 410; `failing`: five days without a success) and announces it. */
  async disable(tenantId: number, webhookId: number, reason: DisabledReason): Promise<void> {
    await this.tables.writeWithBookkeeping(systemAuth(tenantId, this.owner), async (tx, bookkeeping) => {
      const webhook = await tx.table(Webhook).findById(webhookId, { lock: true });
      if (!webhook || !webhook.is_active) return;
      const disabled = await tx.table(Webhook).update(webhook, { is_active: false, disabled_reason: reason });
      await this.failPending(bookkeeping, webhookId, `the endpoint was disabled (${reason})`);
      tx.announce({
        type: 'webhook.disabled',
        resource: 'webhook',
        resourceId: webhookId,
        data: toWebhookResponse(disabled!),
      });
    });
  }

  /** The pending deliveries of an endpoint that stops receiving: failed, their jobs gone, so that a re-enabled one starts from new events. */
  async failPending(sql: Sql, webhookId: number, reason: string): Promise<void> {
    await sql.run(
      `UPDATE webhook_deliveries SET status = 'failed', last_error = ?, next_attempt_at = NULL
        WHERE webhook_id = ? AND status = 'pending'`,
      [reason, webhookId],
    );
    await this.jobs.cancelLane(sql, DELIVERY_QUEUE, webhookLane(webhookId));
  }
}

async function insertAttempts(sql: Sql, attempts: readonly Attempt[], stamp: Date): Promise<void> {
  await sql.insertRows(
    'webhook_attempts',
    [
      'tenant_id',
      'delivery_id',
      'at',
      'status_code',
      'duration_ms',
      'error',
      'response_body',
      'created_at',
      'updated_at',
    ],
    attempts.map(({ delivery, result, at }) => [
      Number(delivery.tenant_id),
      Number(delivery.id),
      at,
      result.statusCode ?? null,
      result.durationMs,
      result.error ?? null,
      result.responseBody ?? null,
      stamp,
      stamp,
    ]),
  );
}

/** Each delivery's new state and attempts, in one UPDATE joined to the values. */
async function updateDeliveries(sql: Sql, rows: SqlValue[][], stamp: Date): Promise<void> {
  const v = valuesTable(sql.dialect, ['k', 'st', 'na', 'sc', 'er', 'da', 'n'], rows, 'v');
  const set = (t: string) =>
    `${t}status = v.st, ${t}attempts = ${t}attempts + v.n, ${t}next_attempt_at = v.na, ${t}last_status_code = v.sc,
     ${t}last_error = v.er, ${t}delivered_at = v.da, ${t}updated_at = ?`;
  if (sql.dialect === 'mysql') {
    await sql.run(`UPDATE webhook_deliveries d JOIN ${v.sql} ON d.id = v.k SET ${set('d.')}`, [...v.params, stamp]);
  } else {
    await sql.run(`UPDATE webhook_deliveries SET ${set('')} FROM ${v.sql} WHERE webhook_deliveries.id = v.k`, [
      stamp,
      ...v.params,
    ]);
  }
}
