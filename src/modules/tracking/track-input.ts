import type { FieldErrors } from '../../common/http/api-exception.js';
import { codePointLength, isWellFormedText, parseDateLike } from '../../common/fields/fields.js';

/** Items of one `POST /api/track`. */
export const MAX_TRACK_ITEMS = 1000;
/** The largest `POST /api/track` body (a larger one is a 413). */
export const MAX_TRACK_BODY_BYTES = 5 * 1024 * 1024;
/** An event's properties as JSON text, in UTF-8 bytes. */
export const MAX_PROPERTIES_BYTES = 32 * 1024;
/** How far ahead of the service's clock a timestamp may be. */
export const MAX_FUTURE_MS = 24 * 3600 * 1000;
export const DAY_MS = 86_400_000;

/**
 * An event name: 1 to 255 ASCII letters, digits, `_ . : -` and spaces between them (none leading
 * or trailing). Compared exactly, case included.
 */
export const EVENT_NAME_PATTERN = '^[A-Za-z0-9_.:-](?:[A-Za-z0-9_.: -]{0,253}[A-Za-z0-9_.:-])?$';
const EVENT_NAME = new RegExp(EVENT_NAME_PATTERN);
export const isEventName = (value: unknown): value is string => typeof value === 'string' && EVENT_NAME.test(value);

/** An ISO 8601 date-time with `Z` or an offset (a time without a zone is ambiguous: refused). */
const ZONED_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

export const trackMessages = {
  item: 'The item must be an object.',
  messageIdRequired: 'The message id field is required.',
  messageIdString: 'The message id field must be a string.',
  messageIdLength: 'The message id field must not be greater than 255 characters.',
  text: (field: string) => `The ${field} field must be valid Unicode text.`,
  customerRequired: 'The customer id field is required when external id is not present.',
  customerProhibited: 'The external id field is prohibited when customer id is present.',
  customerId: 'The customer id field must be an integer.',
  customerIdInvalid: 'The selected customer id is invalid.',
  externalIdString: 'The external id field must be a string.',
  externalIdLength: 'The external id field must not be greater than 255 characters.',
  eventRequired: 'The event field is required.',
  eventString: 'The event field must be a string.',
  eventFormat:
    'The event field must be 1 to 255 ASCII letters, digits, underscores, dots, colons, hyphens or inner spaces.',
  properties: 'The properties field must be an object.',
  propertiesSize: `The properties field must not be larger than ${MAX_PROPERTIES_BYTES / 1024} KB as JSON.`,
  timestampFormat: 'The timestamp field must be an ISO 8601 date-time with Z or an offset.',
  timestampFuture: 'The timestamp field must not be more than 24 hours in the future.',
  timestampOld: (days: number) => `The timestamp field must not be older than the ${days} days events are kept.`,
} as const;

/** Who an event is about: a customer's id, or an external id (a customer made for it when the tenant has none). */
export type EventSubject = { customerId: number } | { externalId: string };

/** One item of a track request, checked. */
export interface TrackItem {
  messageId: string;
  subject: EventSubject;
  event: string;
  /** The properties as JSON text (null: none). */
  properties: string | null;
  /** Epoch milliseconds. */
  occurredAt: number;
}

export type CheckedTrackItem = { ok: true; item: TrackItem } | { ok: false; errors: FieldErrors };

export interface TrackClock {
  /** When the request was received (epoch ms). */
  now: number;
  /** CUSTOMER_EVENT_RETENTION_DAYS. */
  retentionDays: number;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A positive integer as IdField takes one: a JSON number, or a string of digits. */
function customerIdOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

/**
 * Checks one item of `POST /api/track` on its own: a bad item fails alone, with its errors keyed by
 * field. Keys other than the five fields are ignored (API-CONVENTIONS §3).
 */
export function checkTrackItem(raw: unknown, clock: TrackClock): CheckedTrackItem {
  if (!isPlainObject(raw)) return { ok: false, errors: { item: [trackMessages.item] } };
  const errors: FieldErrors = {};
  const fail = (field: string, message: string) => (errors[field] = [message]);

  const messageId = raw.message_id;
  if (messageId === undefined || messageId === null || (typeof messageId === 'string' && messageId.trim() === ''))
    fail('message_id', trackMessages.messageIdRequired);
  else if (typeof messageId !== 'string') fail('message_id', trackMessages.messageIdString);
  else if (!isWellFormedText(messageId)) fail('message_id', trackMessages.text('message id'));
  else if (codePointLength(messageId) > 255) fail('message_id', trackMessages.messageIdLength);

  let subject: EventSubject | undefined;
  const hasCustomerId = raw.customer_id !== undefined;
  const hasExternalId = raw.external_id !== undefined;
  if (hasCustomerId && hasExternalId) fail('external_id', trackMessages.customerProhibited);
  else if (!hasCustomerId && !hasExternalId) fail('customer_id', trackMessages.customerRequired);
  else if (hasCustomerId) {
    const id = customerIdOf(raw.customer_id);
    if (id !== undefined) subject = { customerId: id };
    else if (typeof raw.customer_id === 'number' && Number.isInteger(raw.customer_id))
      fail('customer_id', trackMessages.customerIdInvalid);
    else fail('customer_id', trackMessages.customerId);
  } else {
    const externalId = raw.external_id;
    if (typeof externalId !== 'string') fail('external_id', trackMessages.externalIdString);
    else if (!isWellFormedText(externalId)) fail('external_id', trackMessages.text('external id'));
    else if (codePointLength(externalId) > 255) fail('external_id', trackMessages.externalIdLength);
    else subject = { externalId };
  }

  const event = raw.event;
  if (event === undefined || event === null || event === '') fail('event', trackMessages.eventRequired);
  else if (typeof event !== 'string') fail('event', trackMessages.eventString);
  else if (!isEventName(event)) fail('event', trackMessages.eventFormat);

  let properties: string | null = null;
  if (raw.properties !== undefined && raw.properties !== null) {
    if (!isPlainObject(raw.properties)) fail('properties', trackMessages.properties);
    else {
      // JSON.stringify writes a lone surrogate as its \u escape: the text is always well-formed.
      properties = JSON.stringify(raw.properties);
      if (Buffer.byteLength(properties, 'utf8') > MAX_PROPERTIES_BYTES)
        fail('properties', trackMessages.propertiesSize);
    }
  }

  let occurredAt = clock.now;
  if (raw.timestamp !== undefined) {
    const at =
      typeof raw.timestamp === 'string' && ZONED_DATE_TIME.test(raw.timestamp) ? parseDateLike(raw.timestamp) : null;
    if (!at) fail('timestamp', trackMessages.timestampFormat);
    else if (at.getTime() > clock.now + MAX_FUTURE_MS) fail('timestamp', trackMessages.timestampFuture);
    else if (at.getTime() < clock.now - clock.retentionDays * DAY_MS)
      fail('timestamp', trackMessages.timestampOld(clock.retentionDays));
    else occurredAt = at.getTime();
  }

  if (Object.keys(errors).length > 0 || !subject) return { ok: false, errors };
  return {
    ok: true,
    item: { messageId: messageId as string, subject, event: event as string, properties, occurredAt },
  };
}
