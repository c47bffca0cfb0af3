import { createHash } from 'node:crypto';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { LRUCache } from 'lru-cache';
import type { AmqpConfig } from '../../config/destination-config.js';
import { wireRecord, type BatchContext, type PreparedRecord, type RecordOutcome } from '../delivery-record.js';
import { TargetAddresses, bareHost } from '../target-addresses.js';
import { clip, elapsedSince, type DestinationSender, type SendResult, type SendTarget } from './sender.js';

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * `amqp` (docs/destinations/amqp.md): one persistent JSON message a record on a confirm channel,
 * published to `exchange` with the rendered `routing_key` (default: the action), `mandatory` so
 * that a message no queue takes comes back (the record is rejected as unroutable). A record is
 * delivered only once the broker confirmed it; a nack, a closed channel or no confirm within
 * `timeout_ms` leave it pending. With `queue`, the queue is declared (durable) and bound with
 * `binding_key` first. Connections are kept per destination and URL, opened through the address
 * policy (TargetAddresses.lookup) at every connection.
 */
@Injectable()
export class AmqpSender implements DestinationSender<AmqpConfig>, OnApplicationShutdown {
  private readonly connections = new LRUCache<string, Promise<ChannelModel>>({
    max: 200,
    dispose: (connection) => void connection.then((c) => c.close()).catch(() => undefined),
  });

  constructor(private readonly addresses: TargetAddresses) {}

  async send(
    target: SendTarget<AmqpConfig>,
    records: readonly PreparedRecord[],
    context: BatchContext,
  ): Promise<SendResult> {
    const { config } = target;
    const started = performance.now();
    const fail = (error: unknown): SendResult => {
      const message = target.scrub(errorText(error));
      return {
        outcomes: [],
        transient: { error: clip(message) },
        reached: false,
        status: null,
        answer: clip(message),
        durationMs: elapsedSince(started),
      };
    };
    let channel: ConfirmChannel;
    try {
      const connection = await this.connection(target.destination.id, config.url);
      channel = await connection.createConfirmChannel();
    } catch (error) {
      return fail(error);
    }
    let channelError: unknown;
    channel.on('error', (error: unknown) => (channelError = error));
    const closed = new Promise<void>((resolve) => channel.once('close', () => resolve()));
    const returned = new Map<string, string>();
    channel.on(
      'return',
      (message: { properties: { messageId?: string }; fields: { replyText?: string; routingKey?: string } }) => {
        if (message.properties.messageId) {
          returned.set(
            message.properties.messageId,
            `unroutable: no queue takes routing key "${message.fields.routingKey ?? ''}" (${message.fields.replyText ?? 'NO_ROUTE'})`,
          );
        }
      },
    );
    try {
      if (config.queue) {
        await channel.assertQueue(config.queue, { durable: true });
        await channel.bindQueue(config.queue, config.exchange, config.bindingKey);
      }
      const outcomes: RecordOutcome[] = [];
      const confirms: Promise<void>[] = [];
      for (const record of records) {
        let routingKey: string;
        let content: Buffer;
        try {
          routingKey = config.routingKey ? config.routingKey.render(routingScope(record)) : record.action;
          content = Buffer.from(JSON.stringify(wireRecord(record)));
        } catch (error) {
          outcomes.push({ message_id: record.message_id, status: 'rejected', reason: clip(errorText(error)) });
          continue;
        }
        if (Buffer.byteLength(routingKey) > 255) {
          outcomes.push({
            message_id: record.message_id,
            status: 'rejected',
            reason: 'the routing key is longer than 255 bytes',
          });
          continue;
        }
        let written = true;
        confirms.push(
          new Promise<void>((resolve) => {
            written = channel.publish(
              config.exchange,
              routingKey,
              content,
              {
                persistent: true,
                mandatory: true,
                contentType: 'application/json',
                messageId: record.message_id,
                timestamp: Math.floor(Date.now() / 1000),
                headers: { run_id: context.runId, campaign_id: context.campaignId },
              },
              (error: unknown) => {
                if (error === null || error === undefined) {
                  const unroutable = returned.get(record.message_id);
                  outcomes.push(
                    unroutable
                      ? { message_id: record.message_id, status: 'rejected', reason: unroutable }
                      : { message_id: record.message_id, status: 'delivered' },
                  );
                }
                resolve();
              },
            );
          }),
        );
        // The socket's buffer is full: wait until it drained (or the channel failed).
        if (!written && !channelError) {
          await Promise.race([new Promise((drained) => channel.once('drain', drained)), closed]);
        }
      }
      const timedOut = await Promise.race([
        Promise.all(confirms).then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), config.timeoutMs).unref()),
      ]);
      const settled = new Set(outcomes.map((outcome) => outcome.message_id));
      const pending = records.filter((record) => !settled.has(record.message_id)).length;
      const durationMs = elapsedSince(started);
      const delivered = outcomes.some((outcome) => outcome.status === 'delivered');
      const last = outcomes[outcomes.length - 1];
      if (pending === 0) {
        return {
          outcomes,
          reached: true,
          status: delivered ? 'confirmed' : 'returned',
          answer: delivered ? 'confirmed by the broker' : clip(last?.reason ?? ''),
          durationMs,
        };
      }
      const why = channelError
        ? `the channel closed: ${errorText(channelError)}`
        : timedOut
          ? `no confirm within ${config.timeoutMs} ms`
          : 'the broker did not confirm (nack)';
      const error = clip(target.scrub(`${pending} of ${records.length} messages not confirmed: ${why}`));
      return { outcomes, transient: { error }, reached: delivered, status: null, answer: error, durationMs };
    } catch (error) {
      return fail(channelError ?? error);
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  /** The destination's connection to its broker, opened once and kept while it lasts. */
  private connection(destinationId: number, url: string): Promise<ChannelModel> {
    const key = `${destinationId}:${createHash('sha256').update(url).digest('base64url')}`;
    let connection = this.connections.get(key);
    if (!connection) {
      const host = bareHost(new URL(url).hostname);
      connection = (async () => {
        this.addresses.checkLiteral(host);
        const opened = await connect(url, {
          lookup: this.addresses.lookup(host),
          timeout: CONNECT_TIMEOUT_MS,
          clientProperties: { connection_name: `campaign-service destination ${destinationId}` },
        });
        const forget = () => {
          if (this.connections.get(key) === connection) this.connections.delete(key);
        };
        opened.on('error', forget);
        opened.on('close', forget);
        return opened;
      })();
      connection.catch(() => {
        if (this.connections.get(key) === connection) this.connections.delete(key);
      });
      this.connections.set(key, connection);
    }
    return connection;
  }

  onApplicationShutdown(): void {
    this.connections.clear();
  }
}

const routingScope = (record: PreparedRecord) => ({
  ...wireRecord(record),
  customer: record.scope.customer,
  campaign: record.scope.campaign,
  treatment_group: record.scope.treatment_group,
});

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
