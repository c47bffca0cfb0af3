import { ValidationFailed, type FieldErrors } from '../http/api-exception.js';
import { InputPipe } from '../http/input-pipe.js';
import { NamedListQueryDto } from '../resources/list-query.dto.js';
import {
  codePointLength,
  EmailField,
  isJsonText,
  isWellFormedText,
  JsonStringField,
  NestedArrayField,
  parseDateLike,
  StringArrayField,
  StringField,
  toBoolean,
  toNumber,
} from './fields.js';

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

describe('text fields', () => {
  class RuleDto {
    @StringField({ max: 255 })
    rule_value: string;
  }

  class TextDto {
    @StringField({ max: 5 })
    name: string;

    @StringField({ required: false, nullable: true, min: 3 })
    description?: string | null;

    @EmailField({ required: false })
    email?: string;

    @JsonStringField({ required: false, nullable: true })
    attributes?: string | null;

    @StringArrayField({ required: false })
    roles?: string[];

    @NestedArrayField(() => RuleDto, { required: false })
    rules?: RuleDto[];
  }

  /** The field errors the validation pipe answers (422), or 'valid' with the transformed value. */
  async function check(value: object, metatype: new () => object = TextDto): Promise<FieldErrors | 'valid'> {
    try {
      await new InputPipe().transform(value, { type: 'body', metatype });
      return 'valid';
    } catch (error) {
      if (error instanceof ValidationFailed) return error.errors;
      throw error;
    }
  }

  it('knows well-formed text', () => {
    for (const ok of [
      '',
      'plain',
      '😀',
      'e\u0301',
      '\u200f\u05e9\u05dc\u05d5\u05dd',
      '\u200b',
      '\ufffd',
      '\uffff',
      'a\u0000b',
    ])
      expect({ text: ok, wellFormed: isWellFormedText(ok) }).toEqual({ text: ok, wellFormed: true });
    for (const bad of ['\ud800', '\udfff', 'a\ud83d', '\ude00b', '\ude00\ud83d', '😀\ud800'])
      expect({ text: bad, wellFormed: isWellFormedText(bad) }).toEqual({ text: bad, wellFormed: false });
  });

  it('counts code points', () => {
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('😀😀')).toBe(2);
    expect(codePointLength('e\u0301')).toBe(2);
    expect(codePointLength('❤\ufe0f')).toBe(2);
    expect(codePointLength('\ud800x')).toBe(2);
  });

  it('answers 422 on the field for a lone surrogate, in every kind of text field', async () => {
    expect(await check({ name: 'a\ud800' })).toEqual({ name: ['The name field must be valid Unicode text.'] });
    expect(await check({ name: 'ok', description: '\udc00\udc00\udc00' })).toEqual({
      description: ['The description field must be valid Unicode text.'],
    });
    expect(await check({ name: 'ok', email: 'ada\ud800@example.com' })).toEqual({
      email: ['The email field must be valid Unicode text.'],
    });
    expect(await check({ name: 'ok', attributes: '"\ud800"' })).toEqual({
      attributes: ['The attributes field must be valid Unicode text.'],
    });
    expect(await check({ name: 'ok', roles: ['viewer', 'x\udbff'] })).toEqual({
      roles: ['Each item of the roles field must be valid Unicode text.'],
    });
    expect(await check({ name: 'ok', rules: [{ rule_value: 'NL' }, { rule_value: '\ud83d' }] })).toEqual({
      'rules.1.rule_value': ['The rule value field must be valid Unicode text.'],
    });
    // Query filters use the same decorators (?q= of every named list).
    expect(await check({ q: 'x\ud800' }, NamedListQueryDto)).toEqual({
      q: ['The q field must be valid Unicode text.'],
    });
    expect(await check({ q: '😀\u0301', sort: '-name' }, NamedListQueryDto)).toBe('valid');
  });

  it('accepts JSON text that spells a lone surrogate as an escape (the string itself is ASCII)', async () => {
    expect(await check({ name: 'ok', attributes: '{"a":"\\ud800"}' })).toBe('valid');
    expect(await check({ name: 'ok', attributes: '"\\udfff\\ud800"' })).toBe('valid');
  });

  it('accepts well-formed odd text and counts its length in code points', async () => {
    for (const name of ['😀😀😀😀😀', 'e\u0301e\u0301e', '\u200b\u200b', '\u202eabc', 'שלום']) {
      expect({ name, result: await check({ name }) }).toEqual({ name, result: 'valid' });
    }
    // Five characters as the databases count them, though six UTF-16 units or "3 characters" to validator.js.
    expect(await check({ name: '😀a😀' })).toBe('valid');
    expect(await check({ name: '❤\ufe0f❤\ufe0f❤' })).toBe('valid');
    expect(await check({ name: '❤\ufe0f❤\ufe0f❤\ufe0f' })).toEqual({
      name: ['The name field must not be greater than 5 characters.'],
    });
    expect(await check({ name: '😀😀😀😀😀😀' })).toEqual({
      name: ['The name field must not be greater than 5 characters.'],
    });
    expect(await check({ name: 'ok', description: '😀😀' })).toEqual({
      description: ['The description field must be at least 3 characters.'],
    });
    expect(await check({ name: 'ok', description: '😀😀😀' })).toBe('valid');
  });

  it('reports only the first broken rule of a field', async () => {
    expect(await check({ name: '\ud800\ud800\ud800\ud800\ud800\ud800' })).toEqual({
      name: ['The name field must be valid Unicode text.'],
    });
    expect(await check({ name: 5 })).toEqual({ name: ['The name field must be a string.'] });
  });
});
