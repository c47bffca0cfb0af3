import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { FeedFollower, type FeedConsumer, type FollowedEvent } from '../../../common/events/feed-follower.js';
import type { JobContext, JobHandler, JobOutcome, QueueSettings } from '../../../common/jobs/job.js';
import { Jobs } from '../../../common/jobs/jobs.js';
import { SERVICE_RETRIES } from '../../../common/jobs/retry-schedule.js';
import type { Sql, SqlValue } from '../../../common/persistence/sql.js';
import type { TenantTx } from '../../../common/persistence/tables.js';
import { Webhook } from '../entities/webhook.entity.js';
import { DELIVERY_QUEUE, deliveryKey, webhookLane } from './delivery-queue.js';

/** The queue of the fan-out (src/background-work.ts): one recurring job, made due at once after a numbering pass. */
export const FANOUT_QUEUE = 'webhook-fanout';

/** The event type that goes only to the endpoint it tests, whatever that endpoint subscribes to. */
export const TEST_EVENT = 'webhook.test';
const DELIVERIES_PER_STATEMENT = 2_000;

/** Whether an endpoint whose `events` column holds `subscribed` receives an event of `type`. */
export function subscribes(subscribed: readonly string[], type: string): boolean {
  return subscribed.includes('*') || subscribed.includes(type);
}

/** An active endpoint as the fan-out matches events to it. */
export interface Subscriber {
  id: number;
  events: readonly string[];
  /** Since when it is active (epoch ms): an event that occurred before is not for it. */
  since: number;
}

/**
 * Fans the change feed out to webhooks, following it (FeedFollower) in a recurring job rather than
 * inside the numbering pass: for each numbered event, one delivery (and its job) per active
 * endpoint of its tenant that subscribes to its type and was active when the event occurred, in the
 * transaction that moves the fan-out's cursor past the event. So every numbered event gets its
 * deliveries once, an endpoint receives only events written while it is active (a re-enabled one
 * starts from new events; a replay sends older ones), and nothing is dispatched twice.
 */
@Injectable()
export class WebhookFanout implements JobHandler, FeedConsumer {
  readonly consumer = 'webhooks';
  readonly settings: QueueSettings;
  private readonly parsed = new Map<string, string[]>();

  constructor(
    private readonly follower: FeedFollower,
    private readonly jobs: Jobs,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = {
      name: FANOUT_QUEUE,
      enabled: config.webhooks.worker,
      concurrency: 1,
      leaseMs: config.webhooks.leaseMs,
      pollMs: config.webhooks.pollMs,
      retry: SERVICE_RETRIES,
      maxWaitSeconds: 60,
      everyMs: 1_000,
    };
  }

  async run(_job: unknown, context: JobContext): Promise<JobOutcome> {
    const handed = await this.follower.follow(this, context);
    if (handed) this.jobs.nudge(DELIVERY_QUEUE);
    return context.shouldStop() ? { status: 'released' } : { status: 'done', note: `${handed} events` };
  }

  async take(tx: TenantTx, sql: Sql, events: readonly FollowedEvent[]): Promise<void> {
    const endpoints = await tx.table(Webhook).findWhere({ is_active: true, disabled_reason: null });
    if (endpoints.length === 0) return;
    const subscribers = endpoints.map((endpoint) => ({
      id: endpoint.id,
      events: this.subscriptions(endpoint.events),
      since: Number(endpoint.active_since),
    }));
    await insertDeliveries(sql, this.jobs, tx.auth.tenantId, deliveriesFor(events, subscribers));
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

/** Which endpoint receives which event: the pairs (event, endpoint id), in the events' order. */
export function deliveriesFor(
  events: readonly FollowedEvent[],
  endpoints: readonly Subscriber[],
): [FollowedEvent, number][] {
  const pairs: [FollowedEvent, number][] = [];
  for (const event of events) {
    for (const endpoint of endpoints) {
      // An event written before the endpoint was enabled is not for it, however late it is numbered.
      if (event.occurredAt < endpoint.since) continue;
      const receives =
        event.type === TEST_EVENT ? endpoint.id === event.resourceId : subscribes(endpoint.events, event.type);
      if (receives) pairs.push([event, endpoint.id]);
    }
  }
  return pairs;
}

/**
 * New pending deliveries of events to endpoints (pairs of event and endpoint id) and their jobs, in
 * the caller's transaction, in slices; each slice's ids are read back by its events and the instant
 * it was queued. A delivery has one job at most (its unique key), whatever else that read finds.
 */
export async function insertDeliveries(
  sql: Sql,
  jobs: Jobs,
  tenantId: number,
  pairs: readonly [Pick<FollowedEvent, 'id' | 'type'>, number][],
): Promise<void> {
  const now = Date.now();
  const created = new Date(Math.floor(now / 1000) * 1000);
  for (let start = 0; start < pairs.length; start += DELIVERIES_PER_STATEMENT) {
    const slice = pairs.slice(start, start + DELIVERIES_PER_STATEMENT);
    await sql.insertRows(
      'webhook_deliveries',
      [
        'tenant_id',
        'webhook_id',
        'event_id',
        'event_type',
        'status',
        'attempts',
        'next_attempt_at',
        'queued_at',
        'created_at',
        'updated_at',
      ],
      slice.map(([event, webhookId]): SqlValue[] => [
        tenantId,
        webhookId,
        event.id,
        event.type,
        'pending',
        0,
        now,
        now,
        created,
        created,
      ]),
    );
    const eventIds = [...new Set(slice.map(([event]) => event.id))];
    const made = await sql.query<{ id: number | string; webhook_id: number | string }>(
      `SELECT id, webhook_id FROM webhook_deliveries WHERE event_id IN (${eventIds.map(() => '?').join(', ')}) AND queued_at = ?`,
      [...eventIds, now],
    );
    await jobs.enqueue(
      sql,
      made.map((row) => ({
        queue: DELIVERY_QUEUE,
        lane: webhookLane(Number(row.webhook_id)),
        tenantId,
        subjectId: Number(row.id),
        uniqueKey: deliveryKey(Number(row.id)),
        runAt: now,
      })),
    );
  }
}
