import type { TenantReads } from '../../../common/persistence/tables.js';

/**
 * The kinds of a customer's timeline that exist, in their order among items of one instant. A
 * later module adds its kind here and its TimelineSource to TIMELINE_SOURCES in src/app.module.ts
 * (campaign results: `conversion`); the `kinds` filter takes exactly these (a 422 names
 * the others), and TimelineService refuses to start when the sources and this list differ.
 */
export const TIMELINE_KINDS = ['change', 'event', 'conversion'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/** One item of a timeline, as a source reads it. */
export interface TimelineEntry {
  /** When it happened (epoch ms): the timeline's order, newest first. */
  at: number;
  kind: TimelineKind;
  /** What happened: a change's event type (`customer.updated`), an event's name. */
  type: string;
  /** Its id where its own API answers it (`evt_12` for a change, a number for an event). */
  id: number | string;
  /** The number the timeline orders items of one instant and kind by (newest first), and its cursor holds. */
  position: number;
  data: Record<string, unknown>;
}

/** The customer a timeline is read for: its id, and the ids its history is recorded under (merged customers). */
export interface TimelineSubject {
  id: number;
  historyIds: readonly number[];
}

/**
 * Where items of one kind come from. `read` answers the customer's items of this kind that come
 * after `before` in the timeline's order (`at` then `position`, both descending; none: from the
 * newest), newest first, at most `limit`.
 */
export interface TimelineSource {
  readonly kind: TimelineKind;
  read(
    reads: TenantReads,
    subject: TimelineSubject,
    before: { at: number; position: number } | null,
    limit: number,
  ): Promise<TimelineEntry[]>;
}

/**
 * The sources of kinds that modules above this one keep (deliveries, conversions), provided as one
 * list by the composition root; this module reads its own two kinds (changes, events) itself.
 */
export const TIMELINE_SOURCES = Symbol('TIMELINE_SOURCES');
