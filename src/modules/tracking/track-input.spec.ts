import fc from 'fast-check';
import { codePointLength, isWellFormedText } from '../../common/fields/fields.js';
import {
  checkTrackItem,
  DAY_MS,
  isEventName,
  MAX_FUTURE_MS,
  MAX_PROPERTIES_BYTES,
  trackMessages,
  type TrackClock,
} from './track-input.js';

const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const clock: TrackClock = { now: NOW, retentionDays: 395 };
const valid = { message_id: 'm-1', external_id: 'crm-1', event: 'purchase' };
const errorsOf = (item: unknown) => {
  const checked = checkTrackItem(item, clock);
  return checked.ok ? {} : checked.errors;
};

describe('checkTrackItem', () => {
  it('reads a full item, and a minimal one (timestamp: when received; no properties)', () => {
    expect(
      checkTrackItem(
        {
          message_id: ' m 1 ',
          customer_id: '42',
          event: 'Order Completed:v2',
          properties: { amount: 120, nested: { é: [1, null] } },
          timestamp: '2026-11-28T13:30:00.123+02:00',
          unknown: 'ignored',
        },
        clock,
      ),
    ).toEqual({
      ok: true,
      item: {
        messageId: ' m 1 ',
        subject: { customerId: 42 },
        event: 'Order Completed:v2',
        properties: '{"amount":120,"nested":{"é":[1,null]}}',
        occurredAt: Date.parse('2026-11-28T11:30:00.123Z'),
      },
    });
    expect(checkTrackItem({ ...valid, properties: null }, clock)).toEqual({
      ok: true,
      item: {
        messageId: 'm-1',
        subject: { externalId: 'crm-1' },
        event: 'purchase',
        properties: null,
        occurredAt: NOW,
      },
    });
  });

  it.each<[string, unknown, Record<string, string[]>]>([
    ['not an object', 'x', { item: [trackMessages.item] }],
    ['an array', [valid], { item: [trackMessages.item] }],
    ['no message id', { ...valid, message_id: undefined }, { message_id: [trackMessages.messageIdRequired] }],
    ['a blank message id', { ...valid, message_id: '  ' }, { message_id: [trackMessages.messageIdRequired] }],
    ['a null message id', { ...valid, message_id: null }, { message_id: [trackMessages.messageIdRequired] }],
    ['a numeric message id', { ...valid, message_id: 7 }, { message_id: [trackMessages.messageIdString] }],
    ['a message id of 256', { ...valid, message_id: 'x'.repeat(256) }, { message_id: [trackMessages.messageIdLength] }],
    ['a lone surrogate', { ...valid, message_id: 'a\ud800' }, { message_id: [trackMessages.text('message id')] }],
    ['both customer keys', { ...valid, customer_id: 1 }, { external_id: [trackMessages.customerProhibited] }],
    ['no customer key', { message_id: 'm', event: 'e' }, { customer_id: [trackMessages.customerRequired] }],
    [
      'customer id 0',
      { message_id: 'm', event: 'e', customer_id: 0 },
      { customer_id: [trackMessages.customerIdInvalid] },
    ],
    ['customer id 1.5', { message_id: 'm', event: 'e', customer_id: 1.5 }, { customer_id: [trackMessages.customerId] }],
    [
      'customer id 1e3',
      { message_id: 'm', event: 'e', customer_id: '1e3' },
      { customer_id: [trackMessages.customerId] },
    ],
    [
      'a customer id past 2^53',
      { message_id: 'm', event: 'e', customer_id: 2 ** 53 + 2 },
      { customer_id: [trackMessages.customerIdInvalid] },
    ],
    [
      'a null customer id',
      { message_id: 'm', event: 'e', customer_id: null },
      { customer_id: [trackMessages.customerId] },
    ],
    ['a numeric external id', { ...valid, external_id: 5 }, { external_id: [trackMessages.externalIdString] }],
    [
      'an external id of 256',
      { ...valid, external_id: 'é'.repeat(256) },
      { external_id: [trackMessages.externalIdLength] },
    ],
    ['no event', { ...valid, event: undefined }, { event: [trackMessages.eventRequired] }],
    ['an event with a leading space', { ...valid, event: ' buy' }, { event: [trackMessages.eventFormat] }],
    ['an event with a trailing space', { ...valid, event: 'buy ' }, { event: [trackMessages.eventFormat] }],
    ['an event beyond ASCII', { ...valid, event: 'kaufé' }, { event: [trackMessages.eventFormat] }],
    ['an event with a tab', { ...valid, event: 'a\tb' }, { event: [trackMessages.eventFormat] }],
    ['an event of 256', { ...valid, event: 'e'.repeat(256) }, { event: [trackMessages.eventFormat] }],
    ['array properties', { ...valid, properties: [1] }, { properties: [trackMessages.properties] }],
    ['text properties', { ...valid, properties: '{"a":1}' }, { properties: [trackMessages.properties] }],
    [
      'a timestamp without a zone',
      { ...valid, timestamp: '2026-11-28T10:00:00' },
      { timestamp: [trackMessages.timestampFormat] },
    ],
    ['a date as timestamp', { ...valid, timestamp: '2026-11-28' }, { timestamp: [trackMessages.timestampFormat] }],
    [
      'a day not on the calendar',
      { ...valid, timestamp: '2026-02-30T10:00:00Z' },
      { timestamp: [trackMessages.timestampFormat] },
    ],
    ['a numeric timestamp', { ...valid, timestamp: NOW }, { timestamp: [trackMessages.timestampFormat] }],
    ['a null timestamp', { ...valid, timestamp: null }, { timestamp: [trackMessages.timestampFormat] }],
    [
      'a timestamp a day and a millisecond ahead',
      { ...valid, timestamp: new Date(NOW + MAX_FUTURE_MS + 1).toISOString() },
      { timestamp: [trackMessages.timestampFuture] },
    ],
    [
      'a timestamp older than retention',
      { ...valid, timestamp: new Date(NOW - 395 * DAY_MS - 1).toISOString() },
      { timestamp: [trackMessages.timestampOld(395)] },
    ],
  ])('fails %s, naming its field', (_name, item, errors) => {
    expect(errorsOf(item)).toEqual(errors);
  });

  it('takes the edges: 255 characters (astral ones count one), 24 hours ahead, the oldest kept instant', () => {
    expect(errorsOf({ ...valid, message_id: '😀'.repeat(255), external_id: '😀'.repeat(255) })).toEqual({});
    expect(errorsOf({ ...valid, event: `${'e'.repeat(127)} ${'f'.repeat(127)}` })).toEqual({});
    expect(errorsOf({ ...valid, event: '.' })).toEqual({});
    expect(errorsOf({ ...valid, timestamp: new Date(NOW + MAX_FUTURE_MS).toISOString() })).toEqual({});
    expect(errorsOf({ ...valid, timestamp: new Date(NOW - 395 * DAY_MS).toISOString() })).toEqual({});
    expect(errorsOf({ ...valid, timestamp: '2026-11-28T12:00:00+0100' })).toEqual({});
  });

  it('measures properties in UTF-8 bytes of their JSON', () => {
    // {"a":"..."} is 8 bytes around the text; é is two bytes.
    const fits = { a: 'é'.repeat((MAX_PROPERTIES_BYTES - 8) / 2) };
    expect(Buffer.byteLength(JSON.stringify(fits))).toBe(MAX_PROPERTIES_BYTES);
    expect(errorsOf({ ...valid, properties: fits })).toEqual({});
    expect(errorsOf({ ...valid, properties: { a: `${fits.a}x` } })).toEqual({
      properties: [trackMessages.propertiesSize],
    });
  });
});

/** What an event name is, written out character by character (the reference the pattern is held to). */
function referenceEventName(text: string): boolean {
  const allowed = (c: string) => /[A-Za-z0-9_.:-]/.test(c) && c.length === 1;
  const chars = [...text];
  return (
    chars.length >= 1 &&
    chars.length <= 255 &&
    chars.every((c) => allowed(c) || c === ' ') &&
    chars[0] !== ' ' &&
    chars[chars.length - 1] !== ' '
  );
}

describe('checkTrackItem, over generated items', () => {
  const alphabet = fc.constantFrom(...'aZ09_.:- \t\né😀\u0000%'.split(''), 'é', '😀');
  const names = fc.oneof(
    fc.string({ unit: alphabet, minLength: 0, maxLength: 6 }),
    fc.string({ unit: fc.constantFrom('a', ' ', '.'), minLength: 250, maxLength: 260 }),
    fc.string(),
  );

  it('holds event names to the reference, on any text', () => {
    fc.assert(
      fc.property(names, (name) => {
        expect(isEventName(name)).toBe(referenceEventName(name));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads any instant with any offset as that instant, and refuses it only outside the kept window', () => {
    const offsets = fc.integer({ min: -14 * 60, max: 14 * 60 });
    const instants = fc.integer({ min: NOW - 400 * DAY_MS, max: NOW + 2 * DAY_MS });
    fc.assert(
      fc.property(instants, offsets, fc.boolean(), (at, offset, colon) => {
        const local = new Date(at + offset * 60_000).toISOString().slice(0, 23);
        const sign = offset < 0 ? '-' : '+';
        const hh = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
        const mm = String(Math.abs(offset) % 60).padStart(2, '0');
        const timestamp = `${local}${sign}${hh}${colon ? ':' : ''}${mm}`;
        const checked = checkTrackItem({ ...valid, timestamp }, clock);
        const inWindow = at <= NOW + MAX_FUTURE_MS && at >= NOW - 395 * DAY_MS;
        expect(checked.ok).toBe(inWindow);
        if (checked.ok) expect(checked.item.occurredAt).toBe(at);
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws; what it accepts keeps every rule, what it refuses names only its fields', () => {
    const field = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
    const item = fc.record({
      message_id: field(
        fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 5 }), fc.anything()),
      ),
      customer_id: field(fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 20 }), fc.anything())),
      external_id: field(fc.oneof(fc.string({ maxLength: 300 }), fc.anything())),
      event: field(fc.oneof(names, fc.anything())),
      properties: field(
        fc.oneof(
          fc.object(),
          fc.anything(),
          fc.json().map((text) => JSON.parse(text) as unknown),
        ),
      ),
      timestamp: field(
        fc.oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          fc.string({ maxLength: 40 }),
          fc.anything(),
        ),
      ),
    });
    const fields = new Set(['item', 'message_id', 'customer_id', 'external_id', 'event', 'properties', 'timestamp']);
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: item }, { weight: 1, arbitrary: fc.anything() }), (raw) => {
        const checked = checkTrackItem(raw, clock);
        if (!checked.ok) {
          expect(Object.keys(checked.errors).length).toBeGreaterThan(0);
          for (const [key, messages] of Object.entries(checked.errors)) {
            expect(fields.has(key)).toBe(true);
            expect(messages).toEqual([expect.any(String)]);
          }
          return;
        }
        const { messageId, subject, event, properties, occurredAt } = checked.item;
        expect(isWellFormedText(messageId) && messageId.trim() !== '' && codePointLength(messageId) <= 255).toBe(true);
        expect(referenceEventName(event)).toBe(true);
        if ('customerId' in subject)
          expect(Number.isSafeInteger(subject.customerId) && subject.customerId > 0).toBe(true);
        else expect(isWellFormedText(subject.externalId) && codePointLength(subject.externalId) <= 255).toBe(true);
        if (properties !== null) {
          expect(Buffer.byteLength(properties)).toBeLessThanOrEqual(MAX_PROPERTIES_BYTES);
          const parsed: unknown = JSON.parse(properties);
          expect(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)).toBe(true);
        }
        expect(occurredAt).toBeGreaterThanOrEqual(NOW - 395 * DAY_MS);
        expect(occurredAt).toBeLessThanOrEqual(NOW + MAX_FUTURE_MS);
      }),
      { numRuns: 3000 },
    );
  });
});
