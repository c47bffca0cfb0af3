import { Injectable } from '@nestjs/common';
import { OutboundHttp } from '../../../../common/outbound/outbound-http.js';
import { signatureHeader } from '../../../../common/outbound/signature.js';
import type { WebhookConfig } from '../../config/destination-config.js';
import { DestinationSecrets } from '../../secrets/destination-secrets.js';
import { wireRecord, type BatchContext, type PreparedRecord, type RecordOutcome } from '../delivery-record.js';
import { clip, elapsedSince, type DestinationSender, type SendResult, type SendTarget } from './sender.js';

/** An answer's `rejected` list is read from at most this much of its body (a thousand rejections fit in a fifth of it). */
const KEPT_ANSWER_BYTES = 256 * 1024;

/**
 * `webhook` (docs/destinations/webhook.md): one signed request a batch, through OutboundHttp (the
 * address policy on the resolution and on the socket, no redirects, the timeout). A 2xx accepts
 * the batch but the records its body lists as `rejected`; 408, 429, 5xx, a timeout or no answer
 * leave the batch pending (retried, a 429's or 503's Retry-After honoured); any other status
 * rejects every record of the batch with the status and the start of the answer.
 */
@Injectable()
export class WebhookSender implements DestinationSender<WebhookConfig> {
  constructor(
    private readonly http: OutboundHttp,
    private readonly secrets: DestinationSecrets,
  ) {}

  async send(
    target: SendTarget<WebhookConfig>,
    records: readonly PreparedRecord[],
    context: BatchContext,
  ): Promise<SendResult> {
    const { config, destination } = target;
    const started = performance.now();
    let body: string;
    try {
      body = JSON.stringify({
        type: 'campaign.delivery',
        id: context.batchId,
        run_id: context.runId,
        campaign_id: context.campaignId,
        destination_id: context.destinationId,
        campaign_destination_id: context.campaignDestinationId,
        records: records.map(wireRecord),
      });
    } catch (error) {
      const reason = `the mapped data cannot be sent as JSON: ${(error as Error).message}`;
      return rejectAll(records, reason, started);
    }
    const at = Date.now();
    const timestamp = Math.floor(at / 1000);
    const signing = config.secret ? [config.secret] : this.secrets.signingSecrets(destination, at);
    const result = await this.http.send(
      config.url,
      {
        'user-agent': 'campaign-service-destinations/1',
        ...config.headers,
        'webhook-id': context.batchId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(signing, context.batchId, timestamp, body),
      },
      body,
      { method: config.method, timeoutMs: config.timeoutMs, keepBytes: KEPT_ANSWER_BYTES },
    );
    const durationMs = elapsedSince(started);
    const code = result.statusCode;
    const text = target.scrub(result.responseBody ?? '');
    const answer = clip(code === undefined ? target.scrub(result.error ?? 'no answer') : text);
    if (code !== undefined && code >= 200 && code < 300) {
      const rejected = rejectedOf(text, records);
      const outcomes: RecordOutcome[] = records.map(
        (record) => rejected.get(record.message_id) ?? { message_id: record.message_id, status: 'delivered' as const },
      );
      return { outcomes, reached: true, status: code, answer, durationMs };
    }
    if (code === undefined || code === 408 || code === 429 || code >= 500 || (code >= 300 && code < 400)) {
      const error = target.scrub(result.error ?? `HTTP ${code}`);
      return {
        outcomes: [],
        transient: {
          error: code === undefined ? error : `HTTP ${code}: ${clip(text) || error}`,
          statusCode: code,
          retryAfter: result.retryAfter,
        },
        reached: false,
        status: code ?? null,
        answer,
        durationMs,
      };
    }
    const reason = clip(`HTTP ${code}: ${text}`);
    return {
      outcomes: records.map((record) => ({ message_id: record.message_id, status: 'rejected', reason })),
      reached: false,
      status: code,
      answer,
      durationMs,
    };
  }
}

/** The records a 2xx answer lists as `{"rejected": [{"message_id", "reason"}]}` (others in the list are ignored). */
function rejectedOf(text: string, records: readonly PreparedRecord[]): Map<string, RecordOutcome> {
  const rejected = new Map<string, RecordOutcome>();
  if (!text.includes('rejected')) return rejected;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return rejected;
  }
  const list = (parsed as { rejected?: unknown })?.rejected;
  if (!Array.isArray(list)) return rejected;
  const ids = new Set(records.map((record) => record.message_id));
  for (const item of list) {
    const id = (item as { message_id?: unknown })?.message_id;
    if (typeof id !== 'string' || !ids.has(id)) continue;
    const reason = (item as { reason?: unknown }).reason;
    rejected.set(id, {
      message_id: id,
      status: 'rejected',
      reason: clip(typeof reason === 'string' ? reason : 'rejected by the receiver'),
    });
  }
  return rejected;
}

function rejectAll(records: readonly PreparedRecord[], reason: string, started: number): SendResult {
  return {
    outcomes: records.map((record) => ({ message_id: record.message_id, status: 'rejected', reason })),
    reached: false,
    status: null,
    answer: reason,
    durationMs: elapsedSince(started),
  };
}
