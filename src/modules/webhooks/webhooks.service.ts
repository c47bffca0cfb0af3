import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { EventCatalog } from '../../common/events/event-catalog.js';
import { parseDateLike } from '../../common/fields/fields.js';
import { ApiException, RecordNotFound, ValidationFailed } from '../../common/http/api-exception.js';
import { Page } from '../../common/http/page.js';
import { FeedReads } from '../../common/events/feed-reads.js';
import { Jobs } from '../../common/jobs/jobs.js';
import { OutboundHttp } from '../../common/outbound/outbound-http.js';
import { newSecret } from '../../common/outbound/signature.js';
import { pageRequest, type Condition } from '../../common/persistence/keyset.js';
import { Tables, type TenantReads } from '../../common/persistence/tables.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { EventsService } from '../events/events.service.js';
import type { DeliveriesQueryDto, ReplayDto, WebhookDto } from './dto/webhook.dto.js';
import {
  toAttemptResponse,
  toDeliveryResponse,
  toWebhookResponse,
  type ReplayResponse,
  type WebhookDeliveryDetailResponse,
  type WebhookDeliveryResponse,
  type WebhookResponse,
  type WebhookTestResponse,
  type WebhookWithSecretResponse,
} from './dto/webhook.response.js';
import { DELIVERY_QUEUE, deliveryKey, webhookLane } from './delivery/delivery-queue.js';
import { insertDeliveries, TEST_EVENT } from './delivery/webhook-fanout.js';
import { Webhook, WebhookAttempt, WebhookDelivery } from './entities/webhook.entity.js';

/** Events a replay reads and queues per transaction. */
const REPLAY_BATCH = 2_000;

/** The old secret keeps signing beside the new one this long after a rotation. */
const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/**
 * The tenant's webhook endpoints: a resource like the others (its changes in the activity log and
 * the change feed), whose URL must point to a public address (SSRF: also checked at every delivery),
 * plus what only webhooks have: the secret, its rotation, a test event, the delivery log, a retry
 * and a replay.
 */
@Injectable()
export class WebhooksService extends ResourceService<Webhook, WebhookDto, WebhookResponse> {
  constructor(
    tables: Tables,
    private readonly catalog: EventCatalog,
    private readonly jobs: Jobs,
    private readonly events: EventsService,
    private readonly feed: FeedReads,
    http: OutboundHttp,
  ) {
    super(tables, {
      entity: Webhook,
      resource: 'webhook',
      label: 'webhook',
      sorts: {},
      filters: { exact: ['is_active'] },
      toResponse: toWebhookResponse,
      toColumns: (dto, existing) => {
        const values: Partial<Webhook> = { url: dto.url, events: JSON.stringify([...new Set(dto.events)]) };
        if (dto.description !== undefined) values.description = dto.description;
        if (dto.is_active !== undefined) values.is_active = dto.is_active;
        if (!existing)
          Object.assign(values, { secret: newSecret(), active_since: Date.now(), is_active: dto.is_active ?? true });
        // Set active again: it starts from new events, and whatever disabled it is forgotten.
        else if (dto.is_active === true && !existing.is_active) {
          Object.assign(values, { active_since: Date.now(), disabled_reason: null, failing_since: null });
        }
        return values;
      },
      // Switched off, its deliveries wait (their lane held); switched on again, it starts from new
      // events: what was queued before fails and its jobs go.
      afterWrite: async (row, _dto, { existing, bookkeeping }) => {
        if (!existing || existing.is_active === row.is_active) return;
        if (!row.is_active) return jobs.hold(bookkeeping, DELIVERY_QUEUE, webhookLane(row.id));
        await bookkeeping.run(
          `UPDATE webhook_deliveries SET status = 'failed', last_error = 'queued before the webhook was enabled again',
             next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending' AND queued_at < ?`,
          [row.id, row.active_since],
        );
        await jobs.cancelLane(bookkeeping, DELIVERY_QUEUE, webhookLane(row.id));
      },
      // The create's answer, and only it, shows the secret.
      createdAnswer: (row, answer) => Object.assign(answer, { secret: row.secret }),
      validate: async (dto) => {
        checkTypes(dto.events, 'events', catalog);
        const refused = await http.refusalOf(dto.url);
        if (refused) throw ValidationFailed.field('url', refused);
      },
    });
    catalog.registerType({
      type: 'webhook.disabled',
      resource: 'webhook',
      description:
        'The service disabled a webhook (`gone`: it answered 410; `failing`: five days without a successful delivery).',
    });
    catalog.registerType({
      type: TEST_EVENT,
      resource: 'webhook',
      description: 'A test event (POST /api/webhooks/{id}/test), sent to that webhook only.',
    });
  }

  /** A new secret; the old one keeps signing beside it for 24 hours. */
  rotateSecret(auth: AuthContext, id: number): Promise<WebhookWithSecretResponse> {
    return this.tables.write(auth, async (tx) => {
      const webhook = await this.find(tx, id, true);
      const secret = newSecret();
      const rotated = await tx.table(Webhook).update(webhook, {
        secret,
        previous_secret: webhook.secret,
        previous_secret_expires_at: Date.now() + ROTATION_OVERLAP_MS,
      });
      const answer = Object.assign(toWebhookResponse(rotated!), { secret });
      await tx.keepAnswer(answer);
      return answer;
    });
  }

  /** A `webhook.test` event, for this endpoint only. */
  async sendTest(auth: AuthContext, id: number): Promise<WebhookTestResponse> {
    return this.tables.write(auth, async (tx) => {
      const webhook = await this.find(tx, id);
      if (!webhook.is_active)
        throw new ApiException(409, { message: 'The webhook is not active: set is_active to true first.' });
      tx.announce({
        type: TEST_EVENT,
        resource: 'webhook',
        resourceId: id,
        data: { webhook_id: id, message: 'A test event.' },
      });
      const answer = { webhook_id: id, event_type: TEST_EVENT };
      await tx.keepAnswer(answer);
      return answer;
    });
  }

  async deliveries(
    auth: AuthContext,
    webhookId: number,
    query: DeliveriesQueryDto,
  ): Promise<Page<WebhookDeliveryResponse>> {
    const reads = this.tables.read(auth);
    await this.find(reads, webhookId);
    const conditions: Condition[] = [{ sql: '`webhook_deliveries`.`webhook_id` = ?', params: [webhookId] }];
    if (query.status) conditions.push({ sql: '`webhook_deliveries`.`status` = ?', params: [query.status] });
    if (query.event_type) conditions.push({ sql: '`webhook_deliveries`.`event_type` = ?', params: [query.event_type] });
    const { rows, meta } = await reads.table(WebhookDelivery).page(pageRequest(query, {}), conditions, true);
    return new Page(rows.map(toDeliveryResponse), meta);
  }

  async delivery(auth: AuthContext, webhookId: number, deliveryId: number): Promise<WebhookDeliveryDetailResponse> {
    const reads = this.tables.read(auth);
    const delivery = await this.findDelivery(reads, webhookId, deliveryId);
    const attempts = await reads.table(WebhookAttempt).findWhere({ delivery_id: delivery.id });
    return Object.assign(toDeliveryResponse(delivery), { attempt_log: attempts.map(toAttemptResponse) });
  }

  /** Sends one delivery again now, whatever its status: one more attempt, its schedule going on from where it was. */
  async retry(auth: AuthContext, webhookId: number, deliveryId: number): Promise<WebhookDeliveryResponse> {
    const webhook = await this.find(this.tables.read(auth), webhookId);
    if (!webhook.is_active)
      throw new ApiException(409, { message: 'The webhook is not active: set is_active to true first.' });
    await this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      const delivery = await this.findDelivery(tx, webhookId, deliveryId);
      const now = Date.now();
      await bookkeeping.run(
        "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, queued_at = ? WHERE id = ?",
        [now, now, delivery.id],
      );
      await this.jobs.enqueue(
        bookkeeping,
        [
          {
            queue: DELIVERY_QUEUE,
            lane: webhookLane(webhookId),
            tenantId: auth.tenantId,
            subjectId: delivery.id,
            uniqueKey: deliveryKey(delivery.id),
            attempts: delivery.attempts,
            runAt: now,
          },
        ],
        { replace: true },
      );
    });
    this.jobs.nudge(DELIVERY_QUEUE);
    return toDeliveryResponse(await this.findDelivery(this.tables.read(auth), webhookId, deliveryId));
  }

  /** Sends again every event of the span (of the given types, or the endpoint's): one new delivery each. */
  async replay(auth: AuthContext, webhookId: number, dto: ReplayDto): Promise<ReplayResponse> {
    const webhook = await this.find(this.tables.read(auth), webhookId);
    if (!webhook.is_active)
      throw new ApiException(409, { message: 'The webhook is not active: set is_active to true first.' });
    if (dto.types) checkTypes(dto.types, 'types', this.catalog);
    const types = dto.types ?? (JSON.parse(webhook.events) as string[]);
    const since = parseDateLike(dto.since)!.getTime();
    const until = dto.until ? parseDateLike(dto.until)!.getTime() : Date.now();
    const [from, to] = await this.events.sequenceSpan(auth.tenantId, since, until);
    let scheduled = 0;
    for (let after = from - 1; after < to;) {
      const events = await this.feed.ofSpan(
        auth.tenantId,
        { after, through: to, types: types.includes('*') ? undefined : types },
        REPLAY_BATCH,
      );
      if (events.length === 0) break;
      after = events[events.length - 1].sequence;
      // A test event went to its own endpoint only; it is replayed to that one alone.
      const mine = events.filter((event) => event.type !== TEST_EVENT || event.resourceId === webhookId);
      await this.tables.writeWithBookkeeping(auth, (_tx, bookkeeping) =>
        insertDeliveries(
          bookkeeping,
          this.jobs,
          auth.tenantId,
          mine.map((event) => [event, webhookId]),
        ),
      );
      scheduled += mine.length;
    }
    if (scheduled) this.jobs.nudge(DELIVERY_QUEUE);
    return { scheduled };
  }

  private async findDelivery(reads: TenantReads, webhookId: number, deliveryId: number): Promise<WebhookDelivery> {
    const [delivery] = await reads.table(WebhookDelivery).findWhere({ id: deliveryId, webhook_id: webhookId });
    if (!delivery) throw new RecordNotFound('delivery');
    return delivery;
  }
}

/** Every type exists in the catalog, or the list is `["*"]` alone (422 on `field` otherwise). */
function checkTypes(types: string[], field: string, catalog: EventCatalog): void {
  if (types.includes('*')) {
    if (types.length > 1) throw ValidationFailed.field(field, `The ${field} field takes "*" alone, or event types.`);
    return;
  }
  const known = new Set(catalog.types().map((type) => type.type));
  const unknown = types.filter((type) => !known.has(type));
  if (unknown.length || types.length === 0) {
    throw ValidationFailed.field(field, `Unknown event type: ${unknown.join(', ')}. See GET /api/events/types.`);
  }
}
