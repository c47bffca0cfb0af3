import type { DestinationConfig } from '../../config/destination-config.js';
import type { Destination } from '../../entities/destination.entity.js';
import type { BatchContext, PreparedRecord, RecordOutcome } from '../delivery-record.js';

/** Everything a sender needs of its destination. */
export interface SendTarget<C extends DestinationConfig = DestinationConfig> {
  destination: Destination;
  config: C;
  /** Removes every secret of the destination from a text (an error, a peer's answer) before it is kept. */
  scrub(text: string): string;
}

/** What one delivery of a batch came to. */
export interface SendResult {
  /** The records settled: delivered, or rejected for good. A record listed nowhere is still pending. */
  outcomes: RecordOutcome[];
  /** What left records pending (a timeout, a 5xx, a lost connection): the batch is tried again for them. */
  transient?: { error: string; statusCode?: number; retryAfter?: string };
  /** The peer reached and answering as a receiver should (a success for the destination's health). */
  reached: boolean;
  /** The receiver's status: an HTTP status, an SMTP reply code, `confirmed`, `written`; null when nothing answered. */
  status: number | string | null;
  /** The first 500 characters of the receiver's answer, or why there was none. */
  answer: string;
  durationMs: number;
}

/** How a type delivers a batch of prepared records. */
export interface DestinationSender<C extends DestinationConfig = DestinationConfig> {
  send(
    target: SendTarget<C>,
    records: readonly PreparedRecord[],
    context: BatchContext,
    stop: () => boolean,
  ): Promise<SendResult>;
}

/** At most this much of an answer is kept and shown. */
export const ANSWER_CHARS = 500;

export const clip = (text: string): string => (text.length > ANSWER_CHARS ? text.slice(0, ANSWER_CHARS) : text);

export const elapsedSince = (started: number): number => Math.round(performance.now() - started);
