import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { systemAuth } from '../../../common/auth/auth-context.js';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { eventId } from '../../../common/events/change-feed.js';
import { Metrics } from '../../../common/metrics/metrics.js';
import { isDatabaseUnavailable } from '../../../common/persistence/database-errors.js';
import { Database, type Sql, type SqlValue } from '../../../common/persistence/database.js';
import { Tables } from '../../../common/persistence/tables.js';
import { valuesTable } from '../../../common/persistence/values-table.js';
import { Webhook, type DisabledReason } from '../entities/webhook.entity.js';
import { toWebhookResponse } from '../dto/webhook.response.js';
import { parseAllowedTargets } from './address-policy.js';
import { nextAttemptAt } from './retry-schedule.js';
import { signatureHeader } from './signature.js';
import { WebhookSender, type SendResult } from './webhook-sender.js';

/** A claimed delivery with what sending it needs: its endpoint and its event as the feed holds it now. */
interface Claimed {
  id: number;
  tenant_id: number;
  webhook_id: number;
  event_id: number;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | string | null;
  failing_since: number | string | null;
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

interface Outcome {
  delivery: Claimed;
  result: SendResult;
  at: number;
}

/** Due deliveries one claim reads at most (those in flight stay at the front of that order). */
const CLAIM_SCAN = 500;
/** Completed attempts are recorded together, once this many are waiting or after RECORD_DELAY_MS. */
const RECORD_BATCH = 200;
const RECORD_DELAY_MS = 2;
/** Deliveries are kept this long (their log too). */
const DELIVERY_RETENTION_MS = 30 * 24 * 3600 * 1000;

/**
 * Delivers webhooks from the `webhook_deliveries` rows, on every instance, as a pipeline: it claims
 * due deliveries under a lease (a committed UPDATE, like import jobs: no row lock held while
 * sending) whenever one of an endpoint's `perEndpoint` places in flight frees, sends them, and
 * records the attempts in small batches (each attempt in the log, each delivery delivered,
 * rescheduled or failed, in one transaction), releasing their leases. The places are counted across
 * instances (the leases of the others), so a slow or dead endpoint never holds more than its share
 * and never delays the others. A delivery whose instance dies mid-send is claimed again once its
 * lease runs out: delivery is at least once. A 2xx is a delivery; anything else is retried on the
 * schedule (a 429 or 503 when its Retry-After says), until the schedule is spent (`failed`). A 410
 * disables the endpoint at once (`gone`); an endpoint whose every attempt failed for five days is
 * disabled (`failing`); both announce a `webhook.disabled` event.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly owner = randomUUID();
  private readonly sender: WebhookSender;
  /** This instance's sends in flight, by endpoint. */
  private readonly sending = new Map<number, number>();
  private inFlight = 0;
  /** Attempts made, waiting to be recorded. */
  private completed: Outcome[] = [];
  private timer: NodeJS.Timeout | undefined;
  private nudged: NodeJS.Timeout | undefined;
  private recordTimer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  private recording: Promise<void> = Promise.resolve();
  private stopped = false;
  private lastSweep = Date.now();

  constructor(
    private readonly db: Database,
    private readonly tables: Tables,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    this.sender = new WebhookSender(parseAllowedTargets(config.webhooks.allowedHosts), config.webhooks.timeoutMs);
  }

  onApplicationBootstrap(): void {
    if (!this.config.webhooks.worker) return;
    this.timer = setInterval(() => this.nudge(), this.config.webhooks.pollMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.nudged);
    await this.idle();
    this.sender.close();
  }

  /** Deliveries may be due (new ones were made, or a place freed): a claim soon. */
  nudge(): void {
    if (this.nudged || this.stopped || !this.config.webhooks.worker) return;
    this.nudged = setTimeout(() => {
      this.nudged = undefined;
      void this.fill();
    }, 5);
    this.nudged.unref();
  }

  /** Claims and sends until nothing due fits, then waits for every attempt to be recorded (tests; shutdown). */
  async work(): Promise<void> {
    await this.fill();
    await this.idle();
  }

  private async idle(): Promise<void> {
    while (this.claiming || this.inFlight > 0 || this.completed.length > 0) {
      await this.claiming?.catch(() => undefined);
      if (this.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      else await this.flush();
    }
    await this.recording;
  }

  /** Claims due deliveries into every free place, and sends them; one claim at a time per instance. */
  private fill(): Promise<void> {
    if (this.claiming) {
      this.claimAgain = true;
      return this.claiming;
    }
    this.claiming = (async () => {
      try {
        do {
          this.claimAgain = false;
          while (!this.stopped && (await this.claim(Date.now())) > 0);
        } while (this.claimAgain && !this.stopped);
        if (Date.now() - this.lastSweep > 3600_000) await this.sweep();
      } catch (error) {
        if (!isDatabaseUnavailable(error)) this.logger.warn(`claiming deliveries failed: ${(error as Error).message}`);
      } finally {
        this.claiming = undefined;
      }
    })();
    return this.claiming;
  }

  /**
   * Leases the due deliveries of active endpoints that fit in their free places, and starts sending
   * them. Answers how many it claimed.
   */
  private async claim(now: number): Promise<number> {
    const { perEndpoint, leaseMs } = this.config.webhooks;
    const due = await this.db.query<{
      id: number | string;
      webhook_id: number | string;
      lease_owner: string | null;
      lease_expires_at: number | string | null;
      queued_at: number | string;
    }>(
      `SELECT id, webhook_id, lease_owner, lease_expires_at, queued_at FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ${CLAIM_SCAN}`,
      [now],
    );
    if (due.length === 0) return 0;
    const endpointIds = [...new Set(due.map((row) => Number(row.webhook_id)))];
    const active = new Map(
      (
        await this.db.query<{ id: number | string; active_since: number | string }>(
          `SELECT id, active_since FROM webhooks
            WHERE id IN (${endpointIds.map(() => '?').join(', ')}) AND is_active = ? AND disabled_reason IS NULL`,
          [...endpointIds, true],
        )
      ).map((row) => [Number(row.id), Number(row.active_since)]),
    );
    // Places taken: this instance's sends, and the live leases of the others.
    const taken = new Map(this.sending);
    for (const row of due) {
      const leased = row.lease_expires_at !== null && Number(row.lease_expires_at) >= now;
      if (leased && row.lease_owner !== this.owner) {
        taken.set(Number(row.webhook_id), (taken.get(Number(row.webhook_id)) ?? 0) + 1);
      }
    }
    const ids: number[] = [];
    for (const row of due) {
      const endpoint = Number(row.webhook_id);
      const since = active.get(endpoint);
      if (since === undefined || Number(row.queued_at) < since) continue; // inactive, or queued before it was enabled again
      if (row.lease_expires_at !== null && Number(row.lease_expires_at) >= now) continue;
      const places = taken.get(endpoint) ?? 0;
      if (places >= perEndpoint) continue;
      taken.set(endpoint, places + 1);
      ids.push(Number(row.id));
    }
    if (ids.length === 0) return 0;
    const marks = ids.map(() => '?').join(', ');
    const expires = now + leaseMs;
    await this.db.run(
      `UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ?
        WHERE id IN (${marks}) AND status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at < ?)`,
      [this.owner, expires, ...ids, now],
    );
    const claimed = await this.db.query<Claimed>(
      `SELECT d.id, d.tenant_id, d.webhook_id, d.event_id, d.attempts, w.url, w.secret, w.previous_secret,
              w.previous_secret_expires_at, w.failing_since, e.sequence, e.type, e.resource, e.resource_id, e.data,
              e.changes, e.causer_id, e.request_id, e.occurred_at
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN events e ON e.id = d.event_id
        WHERE d.id IN (${marks}) AND d.lease_owner = ? AND d.lease_expires_at = ?`,
      [...ids, this.owner, expires],
    );
    for (const row of claimed) this.start(Object.assign(row, { id: Number(row.id), attempts: Number(row.attempts) }));
    return claimed.length;
  }

  /** Sends one delivery; when it is answered its place frees, and its attempt waits to be recorded. */
  private start(delivery: Claimed): void {
    const endpoint = Number(delivery.webhook_id);
    delivery.webhook_id = endpoint;
    delivery.tenant_id = Number(delivery.tenant_id);
    this.sending.set(endpoint, (this.sending.get(endpoint) ?? 0) + 1);
    this.inFlight++;
    const at = Date.now();
    void this.send(delivery, at).then((result) => {
      this.sending.set(endpoint, this.sending.get(endpoint)! - 1);
      this.inFlight--;
      this.completed.push({ delivery, result, at });
      if (this.completed.length >= RECORD_BATCH) void this.flush();
      else this.recordTimer ??= setTimeout(() => void this.flush(), RECORD_DELAY_MS);
      // The place is free now: its lease keeps the delivery from being claimed again until it is recorded.
      if (!this.stopped) void this.fill();
    });
  }

  /** Records the completed attempts (one transaction), then fills the freed places. */
  private flush(): Promise<void> {
    clearTimeout(this.recordTimer);
    this.recordTimer = undefined;
    const outcomes = this.completed;
    if (outcomes.length === 0) return this.recording;
    this.completed = [];
    this.recording = this.recording
      .then(() => this.record(outcomes))
      .catch((error) => {
        // Not recorded: the leases run out and the deliveries are made again (at least once).
        if (!isDatabaseUnavailable(error)) this.logger.warn(`recording deliveries failed: ${(error as Error).message}`);
      })
      .then(() => {
        // A health change (an endpoint disabled) may free places, and what failed may be due again later.
        if (!this.stopped && this.config.webhooks.worker) this.nudge();
      });
    return this.recording;
  }

  /** The event as the feed holds it now (an erased customer's: its tombstone), signed with the endpoint's secrets. */
  private send(delivery: Claimed, at: number): Promise<SendResult> {
    if (delivery.type === null)
      return Promise.resolve({ durationMs: 0, error: 'the event is no longer kept (retention)' });
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
    return this.sender.send(
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

  /** Every attempt in the log; each delivery delivered, rescheduled or failed; endpoints' health. */
  private async record(outcomes: Outcome[]): Promise<void> {
    const { retrySchedule, failingDisableMs } = this.config.webhooks;
    const now = Date.now();
    const stamp = new Date(Math.floor(now / 1000) * 1000);
    // Per delivery: id, status, next_attempt_at, last_status_code, last_error, delivered_at.
    const updates: SqlValue[][] = [];
    const health = new Map<number, { tenantId: number; ok: boolean; gone: boolean; failingSince: number | null }>();
    for (const { delivery, result, at } of outcomes) {
      const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
      const code = result.statusCode ?? null;
      if (ok) updates.push([delivery.id, 'delivered', null, code, null, stamp]);
      else {
        const error = result.error ?? `HTTP ${result.statusCode}`;
        const next =
          result.statusCode === 410 || delivery.type === null
            ? undefined
            : nextAttemptAt(retrySchedule, delivery.attempts + 1, at, {
                status: code ?? undefined,
                retryAfter: result.retryAfter,
              });
        updates.push([delivery.id, next === undefined ? 'failed' : 'pending', next ?? null, code, error, null]);
      }
      const endpoint = health.get(delivery.webhook_id) ?? {
        tenantId: delivery.tenant_id,
        ok: false,
        gone: false,
        failingSince: delivery.failing_since === null ? null : Number(delivery.failing_since),
      };
      endpoint.ok ||= ok;
      endpoint.gone ||= result.statusCode === 410;
      health.set(delivery.webhook_id, endpoint);
    }
    await this.db.transaction(async (sql) => {
      await this.insertAttempts(sql, outcomes, stamp);
      await this.updateDeliveries(sql, updates, stamp);
    });
    for (const [, status] of updates)
      this.metrics.webhookDelivery(status === 'pending' ? 'retry' : (status as 'delivered' | 'failed'));
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

  private async insertAttempts(sql: Sql, outcomes: Outcome[], stamp: Date): Promise<void> {
    const params: SqlValue[] = [];
    for (const { delivery, result, at } of outcomes) {
      params.push(
        delivery.tenant_id,
        delivery.id,
        at,
        result.statusCode ?? null,
        result.durationMs,
        result.error ?? null,
        result.responseBody ?? null,
        stamp,
        stamp,
      );
    }
    await sql.run(
      `INSERT INTO webhook_attempts (tenant_id, delivery_id, at, status_code, duration_ms, error, response_body, created_at, updated_at)
       VALUES ${outcomes.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      params,
    );
  }

  /** One attempt more on each delivery, with its new status, in one UPDATE joined to the values (still leased to this instance). */
  private async updateDeliveries(sql: Sql, rows: SqlValue[][], stamp: Date): Promise<void> {
    const v = valuesTable(sql.dialect, ['k', 'st', 'na', 'sc', 'er', 'da'], rows, 'v');
    const set = (t: string) =>
      `${t}status = v.st, ${t}attempts = ${t}attempts + 1, ${t}next_attempt_at = v.na, ${t}last_status_code = v.sc,
       ${t}last_error = v.er, ${t}delivered_at = v.da, ${t}updated_at = ?, ${t}lease_owner = NULL, ${t}lease_expires_at = NULL`;
    if (sql.dialect === 'mysql') {
      await sql.run(
        `UPDATE webhook_deliveries d JOIN ${v.sql} ON d.id = v.k SET ${set('d.')} WHERE d.lease_owner = ?`,
        [...v.params, stamp, this.owner],
      );
    } else {
      await sql.run(
        `UPDATE webhook_deliveries SET ${set('')} FROM ${v.sql}
          WHERE webhook_deliveries.id = v.k AND webhook_deliveries.lease_owner = ?`,
        [stamp, ...v.params, this.owner],
      );
    }
  }

  /**
   * When the endpoint started failing (null: it delivers again): the service's own bookkeeping, not
   * a change of the endpoint, so it moves neither its `updated_at` nor the log or the change feed.
   */
  private async setFailingSince(tenantId: number, webhookId: number, since: number | null): Promise<void> {
    await this.tables.writeWithBookkeeping(systemAuth(tenantId, this.owner), (_tx, bookkeeping) =>
      bookkeeping.run('UPDATE webhooks SET failing_since = ? WHERE id = ? AND tenant_id = ?', [
        since,
        webhookId,
        tenantId,
      ]),
    );
  }

  /** Disables an endpoint (`gone`: it answered 410; `failing`: five days without a success) and announces it. */
  async disable(tenantId: number, webhookId: number, reason: DisabledReason): Promise<void> {
    await this.tables.writeWithBookkeeping(systemAuth(tenantId, this.owner), async (tx, bookkeeping) => {
      const webhook = await tx.table(Webhook).findById(webhookId, { lock: true });
      if (!webhook || !webhook.is_active) return;
      const disabled = await tx.table(Webhook).update(webhook, { is_active: false, disabled_reason: reason });
      await failPending(bookkeeping, webhookId, `the endpoint was disabled (${reason})`);
      tx.announce({
        type: 'webhook.disabled',
        resource: 'webhook',
        resourceId: webhookId,
        data: toWebhookResponse(disabled!),
      });
    });
  }

  /** Deliveries and their attempts past the retention period, oldest first. */
  private async sweep(): Promise<void> {
    this.lastSweep = Date.now();
    const before = new Date(Date.now() - DELIVERY_RETENTION_MS);
    for (;;) {
      const old = await this.db.query<{ id: number | string }>(
        'SELECT id FROM webhook_deliveries WHERE created_at < ? ORDER BY id LIMIT 1000',
        [before],
      );
      if (old.length === 0 || this.stopped) return;
      const ids = old.map((row) => Number(row.id));
      await this.db.transaction(async (sql) => {
        await sql.run(`DELETE FROM webhook_attempts WHERE delivery_id IN (${ids.map(() => '?').join(', ')})`, ids);
        await sql.run(`DELETE FROM webhook_deliveries WHERE id IN (${ids.map(() => '?').join(', ')})`, ids);
      });
    }
  }
}

/** The pending deliveries of an endpoint that stops receiving: failed, so that a re-enabled one starts from new events. */
export async function failPending(sql: Sql, webhookId: number, reason: string): Promise<void> {
  await sql.run(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = ?, next_attempt_at = NULL, lease_owner = NULL,
       lease_expires_at = NULL WHERE webhook_id = ? AND status = 'pending'`,
    [reason, webhookId],
  );
}
