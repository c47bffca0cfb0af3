import fc from 'fast-check';
import { isoString, toIso } from './serialize.js';

describe('isoString', () => {
  it('equals toISOString for every instant a Date can hold', () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (date) => {
        expect(isoString(date)).toBe(date.toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('equals toISOString at the edges of its own range and of the fields', () => {
    for (const text of [
      '1000-01-01T00:00:00.000Z',
      '0999-12-31T23:59:59.999Z',
      '9999-12-31T23:59:59.999Z',
      '+010000-01-01T00:00:00.000Z',
      '-000001-06-15T12:30:45.007Z',
      '1970-01-01T00:00:00.000Z',
      '2024-02-29T23:59:59.999Z',
    ]) {
      const date = new Date(text);
      expect(isoString(date)).toBe(text);
    }
  });
});

describe('toIso', () => {
  it('reads Dates and the UTC text SQLite returns, and keeps null', () => {
    expect(toIso(new Date('2026-11-27T08:21:05.000Z'))).toBe('2026-11-27T08:21:05.000Z');
    expect(toIso('2026-11-27 08:21:05.120')).toBe('2026-11-27T08:21:05.120Z');
    expect(toIso(null)).toBeNull();
    expect(toIso('not a date')).toBeNull();
  });
});
