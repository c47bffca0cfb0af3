import type { MappingScope } from '../mapping/attribute-mapping.js';

export type RecordAction = 'add' | 'update' | 'remove';

/** One record as every receiver gets it (a webhook body's `records[]`, an AMQP message, an NDJSON line). */
export interface DeliveryRecord {
  /** Stable per (tenant, association, customer, data): a receiver drops a repeat by it. */
  message_id: string;
  action: RecordAction;
  customer_id: number;
  external_id: string | null;
  treatment_group_id: number | null;
  /** The mapped fields. */
  data: Record<string, unknown>;
}

/** A record ready for its sender: what templates see beside the mapped fields (e-mail, routing keys). */
export interface PreparedRecord extends DeliveryRecord {
  scope: MappingScope;
}

/**
 * Why a customer gets no record of a destination, counted rather than sent (docs/destinations.md):
 * `unsubscribed` (an e-mail destination: the customer followed an unsubscribe link), `no_address`
 * (an e-mail destination: the mapped `email` is missing or no address), `mapping_failed` (a
 * template of the mapping could not render for this customer).
 */
export type SkipReason = 'unsubscribed' | 'no_address' | 'mapping_failed';

export interface SkippedRecipient {
  customer_id: number;
  reason: SkipReason;
  detail?: string;
}

/** What became of one record of a batch. A record of a batch that is listed nowhere is still pending. */
export interface RecordOutcome {
  message_id: string;
  status: 'delivered' | 'rejected';
  /** Rejected: why (the receiver's answer, the SMTP reply, `unroutable`). */
  reason?: string;
}

/** What a batch is delivered as, beside its records: the webhook body's ids, the AMQP headers, the file's name. */
export interface BatchContext {
  tenantId: number;
  destinationId: number;
  campaignDestinationId: number | null;
  campaignId: number | null;
  runId: number | null;
  /** The webhook body's `id` and `webhook-id`: the same on every attempt of the batch. */
  batchId: string;
  /** A test send (its file goes under `tests/`). */
  test?: boolean;
  /** The mapping's targets, in order (a CSV file's columns after the record's own). */
  targets?: readonly string[];
}

/** The record as receivers get it (no scope). */
export const wireRecord = (record: DeliveryRecord): DeliveryRecord => ({
  message_id: record.message_id,
  action: record.action,
  customer_id: record.customer_id,
  external_id: record.external_id,
  treatment_group_id: record.treatment_group_id,
  data: record.data,
});
