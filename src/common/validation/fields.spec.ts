import { parseDateLike, toBoolean, toNumber, isJsonText } from './fields.js';

describe('field parsing', () => {
  it.each([
    ['2026-02-28', '2026-02-28T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2026-03-01T10:20:30Z', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01T10:20:30+02:00', '2026-03-01T08:20:30.000Z'],
    ['2026-03-01T10:20', '2026-03-01T10:20:00.000Z'],
    ['2026-03-01 10:20:30.123', '2026-03-01T10:20:30.123Z'],
  ])('accepts the date %s', (input, iso) => {
    expect(parseDateLike(input)?.toISOString()).toBe(iso);
  });

  it.each(['2025-02-30', '2026-13-01', '2026-1-1', 'tomorrow', '2026-03-01T25:00:00Z', '', 20260301])(
    'rejects %p',
    (input) => {
      expect(parseDateLike(input)).toBeNull();
    },
  );

  it('reads the boolean forms of API-CONVENTIONS §6 and nothing else', () => {
    for (const v of [true, 1, '1', 'true']) expect(toBoolean(v)).toBe(true);
    for (const v of [false, 0, '0', 'false']) expect(toBoolean(v)).toBe(false);
    for (const v of ['yes', 2, null, 'TRUE']) expect(toBoolean(v)).toBe(v);
  });

  it('reads numeric strings as numbers', () => {
    expect(toNumber('12.5')).toBe(12.5);
    expect(toNumber('-3')).toBe(-3);
    expect(toNumber('1e3')).toBe(1000);
    expect(toNumber('12abc')).toBe('12abc');
    expect(toNumber('')).toBe('');
    expect(toNumber(7)).toBe(7);
  });

  it('knows JSON text', () => {
    expect(isJsonText('{"a":[1,2]}')).toBe(true);
    expect(isJsonText('"x"')).toBe(true);
    expect(isJsonText('{a:1}')).toBe(false);
  });
});
