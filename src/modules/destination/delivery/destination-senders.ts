import { Injectable } from '@nestjs/common';
import type { DestinationConfig } from '../config/destination-config.js';
import type { Destination } from '../entities/destination.entity.js';
import { scrub } from '../secrets/connection-secrets.js';
import type { BatchContext, PreparedRecord } from './delivery-record.js';
import { AmqpSender } from './senders/amqp-sender.js';
import { EmailSender } from './senders/email-sender.js';
import { FileSender } from './senders/file-sender.js';
import type { DestinationSender, SendResult, SendTarget } from './senders/sender.js';
import { WebhookSender } from './senders/webhook-sender.js';

/**
 * The one way a batch of prepared records reaches a destination, whatever asks (the destination's
 * lane, a test send, a run): the sender of its type, given the destination's settings with their
 * secrets and a scrubber that keeps those secrets out of every answer, error and log line.
 */
@Injectable()
export class DestinationSenders {
  private readonly senders: Record<DestinationConfig['type'], DestinationSender>;

  constructor(webhook: WebhookSender, email: EmailSender, amqp: AmqpSender, file: FileSender) {
    this.senders = { webhook, email, amqp, file } as Record<DestinationConfig['type'], DestinationSender>;
  }

  send(
    destination: Destination,
    config: DestinationConfig,
    secrets: readonly string[],
    records: readonly PreparedRecord[],
    context: BatchContext,
    stop: () => boolean = () => false,
  ): Promise<SendResult> {
    const target: SendTarget = { destination, config, scrub: (text) => scrub(text, secrets) };
    return this.senders[config.type].send(target, records, context, stop);
  }
}
