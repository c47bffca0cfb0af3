import fc from 'fast-check';
import { isIdSchema, isJsonStringSchema, type Schema } from './openapi-operations.js';
import type { Target } from './targets.js';

/**
 * Request bodies generated from an operation's OpenAPI request schema: valid ones, and valid ones
 * broken at one field (or as a whole). A broken case says whether the API must refuse it
 * (`mustFail`: a rule of the contract is broken) or may accept it (an accepted alternative form,
 * such as a numeric string for a number).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Body = Record<string, unknown>;

export interface GeneratedCase {
  kind: 'valid' | 'broken';
  /** What was done to the valid body: `valid`, or `<field path>: <mutation>`. */
  label: string;
  /** The body as sent (unknown keys included); undefined for raw-only cases. */
  body?: Body;
  /** The exact request body: JSON text (lone surrogates as `\uXXXX` escapes), or raw bytes. */
  raw: string | Buffer;
  mustFail: boolean;
}

const MISSING = Symbol('missing');
type Value = unknown | typeof MISSING;

// ---------------------------------------------------------------- text

/** Characters and sequences that stress storage and length counting, all well-formed Unicode. */
export const ODD_TEXT = [
  '😀', // astral (a surrogate pair)
  '👩‍👩‍👧‍👦', // ZWJ sequence: 7 code points, one grapheme
  '❤️', // emoji presentation: U+2764 U+FE0F
  'x\ufe0f', // a variation selector after a letter
  'e\u0301', // combining acute
  'a\u0308\u0323', // two combining marks
  '\u200b', // zero-width space
  '\u200d', // zero-width joiner
  '\u200e\u200f', // LRM RLM
  '\u202eevil\u202c', // RTL override
  'שלום', // Hebrew (RTL)
  'مرحبا', // Arabic (RTL)
  '\ufeff', // BOM / zero-width no-break space
  '\ufffd', // the replacement character itself
  '\uffff', // a noncharacter (still a scalar value)
  '\u{10ffff}', // the last code point
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'İ', // lower-cases to two code points
  'ß',
  '\u0000', // NUL
  '\u0001\u001f\u007f', // controls
  '\t',
  '\r\n',
  ' ',
  '"\\\'`',
  '%_', // LIKE wildcards
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '${x}{{x}}',
];

export const codePoints = (s: string) => Array.from(s);
export const cpLength = (s: string) => codePoints(s).length;
const isWellFormed = (s: string) => !/\p{Cs}/u.test(s);

/** Well-formed text of `min`..`max` code points; not blank when `required`. */
export function textArb(min: number, max: number, required: boolean): fc.Arbitrary<string> {
  const piece = fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 10 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }) },
    { weight: 3, arbitrary: fc.constantFrom(...ODD_TEXT) },
  );
  const boundary = max < Infinity ? [boundaryTexts(max)] : [];
  return fc
    .oneof(
      { weight: 8, arbitrary: fc.array(piece, { minLength: 1, maxLength: 8 }).map((parts) => parts.join('')) },
      ...boundary.map((arbitrary) => ({ weight: 2, arbitrary })),
      // Long multi-byte text where no limit applies (the column is mediumtext on MySQL).
      ...(max === Infinity ? [{ weight: 1, arbitrary: fc.constantFrom('é'.repeat(70_000), '😀'.repeat(20_000)) }] : []),
    )
    .map((s) => {
      let out = codePoints(s).slice(0, max).join('');
      while (cpLength(out) < min) out += 'x';
      if (required && out.trim() === '')
        out = `${codePoints(out)
          .slice(0, max - 1)
          .join('')}x`;
      return out;
    })
    .filter((s) => isWellFormed(s) && cpLength(s) >= min && cpLength(s) <= max && (!required || s.trim() !== ''));
}

/** Texts of exactly `max` code points, made of the characters most often miscounted. */
function boundaryTexts(max: number): fc.Arbitrary<string> {
  return fc.constantFrom(
    'a'.repeat(max),
    '😀'.repeat(max),
    'é'.repeat(max),
    'x\ufe0f'.repeat(Math.floor(max / 2)) + 'x'.repeat(max % 2),
    'e\u0301'.repeat(Math.floor(max / 2)) + 'e'.repeat(max % 2),
  );
}

/** Text of more than `max` code points (that a UTF-16 or grapheme count might take for fewer). */
function overLengthArb(max: number): fc.Arbitrary<string> {
  return fc.constantFrom(
    'a'.repeat(max + 1),
    '😀'.repeat(max + 1),
    'é'.repeat(max + 1),
    'x\ufe0f'.repeat(Math.ceil((max + 1) / 2)),
    '❤️'.repeat(Math.ceil((max + 1) / 2)),
    'e\u0301'.repeat(Math.ceil((max + 1) / 2)),
    '👩‍👩‍👧‍👦'.repeat(Math.ceil((max + 1) / 7)),
  );
}

/** Text holding a lone surrogate somewhere. */
const loneSurrogateArb = fc
  .tuple(
    fc.string({ unit: 'grapheme-ascii', maxLength: 5 }),
    fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00\ud83d'),
    fc.string({ unit: 'grapheme-ascii', maxLength: 5 }),
  )
  .map(([a, s, b]) => a + s + b);

const emailArb = fc
  .tuple(
    fc.stringMatching(/^[a-z][a-z0-9._+-]{0,20}$/),
    fc.stringMatching(/^[a-z]([a-z0-9-]{0,14}[a-z0-9])?$/),
    fc.constantFrom('com', 'org', 'nl', 'example'),
    fc.constantFrom('', '', '', ' '),
    fc.boolean(),
  )
  .filter(([local]) => !/\.\.|\.$/.test(local))
  .map(([local, domain, tld, pad, upper]) => {
    const email = `${local}@${domain}.${tld}`;
    return `${pad}${upper ? email.toUpperCase() : email}${pad}`;
  });

const pad2 = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD` and the ISO 8601 date-time forms the API accepts. */
const dateArb = fc
  .tuple(
    fc.integer({ min: 1001, max: 9998 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 28 }),
    fc.integer({ min: 0, max: 23 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: 0, max: 999 }),
    fc.constantFrom('date', 'Z', 'ms', 'offset', 'space', 'minutes'),
  )
  .map(([y, mo, d, h, mi, s, ms, form]) => {
    const date = `${y}-${pad2(mo)}-${pad2(d)}`;
    const time = `${pad2(h)}:${pad2(mi)}:${pad2(s)}`;
    switch (form) {
      case 'date':
        return date;
      case 'Z':
        return `${date}T${time}Z`;
      case 'ms':
        return `${date}T${time}.${String(ms).padStart(3, '0')}Z`;
      case 'offset':
        return `${date}T${time}${h % 2 ? '+' : '-'}0${h % 10}:30`;
      case 'space':
        return `${date} ${time}`;
      default:
        return `${date}T${pad2(h)}:${pad2(mi)}`;
    }
  });
const dateBoundaryArb = fc.constantFrom('1000-01-01', '9999-12-31', '9999-12-31T23:59:59Z', '2024-02-29');

/** JSON text: any JSON value, sometimes with odd text, escaped lone surrogates or deep nesting. */
const jsonTextArb = fc.oneof(
  { weight: 4, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v, null, 2)) },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_TEXT).map((s) => JSON.stringify({ text: s })) },
  {
    weight: 2,
    // Valid JSON text that spells lone surrogates as escapes: all ASCII, stored byte for byte.
    arbitrary: fc.constantFrom('{"a":"\\ud800"}', '"\\udfff\\ud800"', '["\\ud83d","\\ude00"]', '{"\\udc00":1}'),
  },
  { weight: 1, arbitrary: fc.constantFrom('[]', '{}', '0', '-0', 'true', 'null', '"x"', ' {"a" : 1 } ', '1e400') },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }).map((n) => '['.repeat(n) + ']'.repeat(n)) },
);

// ---------------------------------------------------------------- numbers

/** A number within [min, max] with at most two decimals, in one of its accepted JSON forms. */
function numberArb(schema: Schema, validMax?: number): fc.Arbitrary<number | string> {
  const min = schema.minimum ?? -1e9;
  const max = Math.min(schema.maximum ?? 1e9, validMax ?? Infinity);
  // Whole cents: c / 100 and `${c}e-2` are the same double, the one nearest to the two-decimal value.
  const cents = fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: Math.ceil(min * 100), max: Math.floor(Math.min(max, 1e6) * 100) }) },
    { weight: 2, arbitrary: fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }) },
    { weight: 1, arbitrary: fc.constantFrom(Math.ceil(min * 100), Math.floor(max * 100)) },
  );
  return fc.oneof(
    { weight: 6, arbitrary: cents.map((c) => c / 100) },
    { weight: 1, arbitrary: cents.map((c) => String(c / 100)) },
    { weight: 1, arbitrary: cents.map((c) => `${c}e-2`) },
    { weight: 1, arbitrary: cents.map((c) => ` ${c / 100} `) },
    ...(min <= 0 && max >= 0 ? [{ weight: 1, arbitrary: fc.constant(-0) }] : []),
  );
}

const BOOLEAN_FORMS = [true, false, 0, 1, '0', '1', 'true', 'false'];

// ---------------------------------------------------------------- valid values and bodies

const choiceKey = (path: string[]) => path.filter((p) => !/^\d+$/.test(p)).join('.');

/** A valid value of a field. */
export function validValue(schema: Schema, path: string[], target: Target, required: boolean): fc.Arbitrary<unknown> {
  const key = choiceKey(path);
  if (target.choices[key]) return fc.constantFrom(...target.choices[key]);
  const generated = generatedValid(schema, path, target, required);
  const withHints = target.hints[key]
    ? fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...target.hints[key]) }, { weight: 1, arbitrary: generated })
    : generated;
  return schema.nullable
    ? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 6, arbitrary: withHints })
    : withHints;
}

function generatedValid(schema: Schema, path: string[], target: Target, required: boolean): fc.Arbitrary<unknown> {
  const name = path[path.length - 1];
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (isIdSchema(schema)) {
    const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
    return fc.oneof(id, id.map(String));
  }
  switch (schema.type) {
    case 'string':
      if (schema.format === 'email') return emailArb.filter((e) => e.trim().length <= (schema.maxLength ?? 255));
      if (schema.format === 'date-time')
        return fc.oneof({ weight: 6, arbitrary: dateArb }, { weight: 1, arbitrary: dateBoundaryArb });
      if (isJsonStringSchema(schema)) return jsonTextArb;
      if (schema.pattern)
        return fc.constantFrom('application/pdf', 'text/plain', 'image/png', 'application/vnd.ms-excel');
      return textArb(schema.minLength ?? 0, schema.maxLength ?? Infinity, required);
    case 'number':
      return numberArb(schema, target.validMax[name]);
    case 'integer':
      return fc.integer({
        min: schema.minimum ?? -1e9,
        max: Math.min(schema.maximum ?? 1e9, target.validMax[name] ?? Infinity),
      });
    case 'boolean':
      return fc.constantFrom(...BOOLEAN_FORMS);
    case 'array':
      if (schema.items?.properties) {
        return fc.array(validObject(schema.items, path.concat('0'), target), { maxLength: 3 });
      }
      return fc.array(validValue(schema.items ?? { type: 'string' }, path.concat('0'), target, true), { maxLength: 3 });
    case 'object':
    default:
      return fc.constant({});
  }
}

/** A valid object of a schema: every required property, some of the optional ones. */
export function validObject(schema: Schema, path: string[], target: Target): fc.Arbitrary<Body> {
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, prop] of Object.entries(props))
    record[key] = validValue(prop, path.concat(key), target, required.has(key));
  return fc
    .record(record, { requiredKeys: [...required].filter((k) => k in props) })
    .map((body) => repairValid(body as Body));
}

/** Cross-field rules of valid bodies: end_date on or after start_date. */
function repairValid(body: Body): Body {
  const { start_date: start, end_date: end } = body;
  if (typeof start === 'string' && typeof end === 'string' && instant(end) < instant(start)) {
    return { ...body, start_date: end, end_date: start };
  }
  return body;
}

/** The instant of an accepted date text (midnight UTC for a date, UTC when no offset), to whole seconds. */
export function instant(text: string): number {
  let iso = text.trim().replace(' ', 'T');
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) iso += 'T00:00:00Z';
  else if (!/(Z|[+-]\d{2}:?\d{2})$/.test(iso)) iso += 'Z';
  return Math.floor(Date.parse(iso) / 1000) * 1000;
}

/** Keys a client may send but the API ignores (never stored). */
const UNKNOWN_KEYS = fc.constantFrom<[string, Json][]>(
  [['id', 4242]],
  [['tenant_id', 999]],
  [
    ['created_at', '2001-01-01'],
    ['updated_at', '2001-01-01'],
  ],
  [['zz_extra', { nested: [1, 2, { deep: 'x' }] }]],
  [['__proto__', { polluted: 'yes' }]],
  [['constructor', { prototype: { polluted: 'yes' } }]],
);

/** Sets an own property (also `__proto__`) so that JSON.stringify writes it. */
function withKey(body: Body, key: string, value: unknown): Body {
  const out = { ...body };
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

export function validBodyArb(target: Target): fc.Arbitrary<Body> {
  const schema = target.op.body ?? { type: 'object', properties: {} };
  return fc
    .tuple(validObject(schema, [], target), fc.option(UNKNOWN_KEYS, { freq: 4 }))
    .map(([body, extra]) => (extra ?? []).reduce((acc, [k, v]) => withKey(acc, k, v), body));
}

// ---------------------------------------------------------------- broken values

interface Mutation {
  label: string;
  value: Value;
  mustFail: boolean;
}

const m = (label: string, value: Value, mustFail = true): Mutation => ({ label, value, mustFail });

const nested = (depth: number, leaf: Json = 'x'): Json => {
  let v: Json = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};
const wide = (n: number): Json => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

/** Wrong JSON types for a field of the given type. */
function wrongTypes(schema: Schema): Mutation[] {
  const all: [string, Json][] = [
    ['a number', 123],
    ['a boolean', true],
    ['an object', { a: 1 }],
    ['an array', ['a']],
    ['an empty object', {}],
    ['a string', 'not-a-number'],
    ['deep object', nested(21)],
    ['wide object', wide(2000)],
  ];
  const type = isIdSchema(schema) ? 'id' : schema.type;
  return all
    .filter(([label]) => {
      if (type === 'string') return label !== 'a string';
      if (type === 'number' || type === 'integer' || type === 'id') return label !== 'a number';
      if (type === 'boolean') return label !== 'a boolean';
      if (type === 'array') return !label.includes('array');
      // A nested object (a tenant's limits) ignores keys it does not know, as a body does.
      if (type === 'object' || schema.properties) return !label.includes('object');
      return true;
    })
    .map(([label, value]) => m(`wrong type: ${label}`, value));
}

function brokenValues(schema: Schema, required: boolean): fc.Arbitrary<Mutation> {
  const fixed: Mutation[] = [...wrongTypes(schema)];
  if (!schema.nullable) fixed.push(m('null where not nullable', null));
  else fixed.push(m('null where nullable', null, false));
  // Missing is refused only where the field is required (a PUT keeps an optional field not sent).
  fixed.push(m('missing', MISSING, required));
  const arbs: fc.Arbitrary<Mutation>[] = [fc.constantFrom(...fixed)];
  /** Rare: a megabyte per case. */
  const rare: fc.Arbitrary<Mutation>[] = [];

  if (schema.type === 'string') {
    arbs.push(loneSurrogateArb.map((s) => m('lone surrogate', s)));
    if (schema.maxLength !== undefined)
      arbs.push(overLengthArb(schema.maxLength).map((s) => m(`longer than ${schema.maxLength}`, s)));
    if (schema.minLength !== undefined && schema.minLength > 1)
      arbs.push(fc.constant(m(`shorter than ${schema.minLength}`, '😀'.repeat(schema.minLength - 1))));
    if (required)
      arbs.push(fc.constantFrom(m('blank', '   '), m('empty', ''), m('zero-width only', '\u200b'.repeat(3), false)));
    rare.push(fc.constant(m('over 1 MiB', 'x'.repeat(1024 * 1024 + 10))));
    if (schema.enum)
      arbs.push(
        fc.constantFrom(m('not in the list', 'archived'), m('other case', String(schema.enum[0]).toUpperCase())),
      );
    if (schema.format === 'email') {
      arbs.push(
        fc.constantFrom(
          m('not an e-mail', 'not-an-email'),
          m('not an e-mail', 'ada@'),
          m('not an e-mail', '@example.com'),
          m('not an e-mail', 'a@@example.com'),
          m('not an e-mail', 'ada @example.com'),
          m(
            'e-mail over 255',
            `${'a'.repeat(64)}@${'d'.repeat(60)}.${'d'.repeat(60)}.${'d'.repeat(60)}.${'d'.repeat(10)}.com`,
          ),
        ),
      );
    }
    if (schema.format === 'date-time') {
      arbs.push(
        fc.constantFrom(
          m('no such date', '2025-02-30'),
          m('no such month', '2026-13-01'),
          m('year before 1000', '0999-12-31'),
          m('year after 9999', '10000-01-01'),
          m('before 1000 after the offset', '1000-01-01T00:30:00+01:00'),
          m('hour 24', '2026-03-01T24:00:00Z'),
          m('not a date', 'tomorrow'),
          m('a number', 20260301),
          m('unpadded', '2026-3-1'),
        ),
      );
    }
    if (isJsonStringSchema(schema)) {
      arbs.push(
        fc.constantFrom(
          m('invalid JSON text', '{a:1}'),
          m('invalid JSON text', '{"a":'),
          m('invalid JSON text', 'undefined'),
          m('invalid JSON text', 'NaN'),
          m('invalid JSON text', "{'a':1}"),
          m('a JSON value instead of its text', { a: 1 }),
          m('a JSON value instead of its text', [1, 2]),
          m('a JSON value instead of its text', 5),
          m('JSON text holding a raw lone surrogate', '{"a":"\ud800"}'),
        ),
      );
    }
    if (schema.pattern)
      arbs.push(fc.constantFrom(m('not a media type', 'pdf'), m('not a media type', 'text/plain; x=1')));
  }
  if (schema.type === 'number' || schema.type === 'integer') {
    const max = schema.maximum ?? Infinity;
    const min = schema.minimum ?? -Infinity;
    const candidates: Mutation[] = [
      m('1e308', 1e308, 1e308 > max),
      m('-1e308', -1e308, -1e308 < min),
      m('2^53+1', 2 ** 53 + 1, 2 ** 53 + 1 > max),
      m('numeric string with exponent 1e400 (Infinity)', '1e400'),
      m('numeric string with exponent', '1.5e2', 150 > max || 150 < min),
      m('numeric string with negative exponent', '25e-2', 0.25 > max || 0.25 < min),
      m('negative', -0.01, -0.01 < min),
      m('three decimals', 1.005),
      m('float noise (within the two-decimals tolerance)', 0.1 + 0.2, 0.3 > max || 0.3 < min),
      m('tiny', 1e-7),
      m('hex string', '0x10'),
      m('NaN string', 'NaN'),
      m('Infinity string', 'Infinity'),
      m('empty string', ''),
      m('numeric text with junk', '12abc'),
      m('just above the maximum', Number.isFinite(max) ? max + 0.01 : 1e300, Number.isFinite(max)),
      m('-0', -0, 0 < min),
    ];
    arbs.push(fc.constantFrom(...candidates));
  }
  if (isIdSchema(schema)) {
    arbs.push(
      fc.constantFrom(
        m('zero id', 0),
        m('negative id', -1),
        m('fractional id', 1.5),
        m('fractional id string', '1.5'),
        m('unsafe integer id', 2 ** 53 + 1),
        m('20-digit id string', '99999999999999999999'),
        m('unknown id', 999_999_999),
        m('unknown id string', '999999999'),
        m('id with spaces', ' 1 '),
      ),
    );
  }
  if (schema.type === 'boolean') {
    arbs.push(fc.constantFrom(m('yes', 'yes'), m('2', 2), m('TRUE', 'TRUE'), m('empty string', '')));
  }
  if (schema.type === 'array') {
    const items = schema.items ?? {};
    arbs.push(
      fc.constantFrom(
        m('a string instead of an array', 'viewer'),
        m('an object instead of an array', { 0: 'a' }),
        m('array of arrays instead of objects', [[]]),
        m('array holding null', [null]),
        m('deep array', nested(25, 'x')),
        ...(items.properties
          ? [
              m('array of strings instead of objects', ['x']),
              m('array holding an empty object', [{}], !!items.required?.length),
            ]
          : isIdSchema(items) || items.type === 'integer'
            ? // Ids: [1, 2] may well name records of the tenant; one that cannot be one is the bad case.
              [m('array of unknown ids', [999_999_999]), m('array of id-like text', ['no-such-entry'])]
            : [m('array of numbers', [1, 2]), m('unknown entry', ['no-such-entry'])]),
      ),
    );
  }
  return fc.oneof(
    ...arbs.map((arbitrary) => ({ weight: 6, arbitrary })),
    ...rare.map((arbitrary) => ({ weight: 1, arbitrary })),
  );
}

// ---------------------------------------------------------------- cases

interface FieldRef {
  path: string[];
  schema: Schema;
  required: boolean;
}

/** Every field of a body schema, nested object fields as `field.0.member`. */
function fieldsOf(schema: Schema, prefix: string[] = []): FieldRef[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([key, prop]) => {
    const here: FieldRef = { path: prefix.concat(key), schema: prop, required: required.has(key) };
    return prop.type === 'array' && prop.items?.properties
      ? [here, ...fieldsOf(prop.items, here.path.concat('0'))]
      : [here];
  });
}

function setPath(body: Body, path: string[], value: Value, target: Target, schema: Schema): Body {
  const [head, ...rest] = path;
  const out: Record<string, unknown> = Array.isArray(body) ? ([...body] as unknown as Body) : { ...body };
  if (rest.length === 0) {
    if (value === MISSING) delete out[head];
    else out[head] = value;
    return out;
  }
  // Nested: make sure the container exists (one valid item), then recurse.
  const prop = schema.properties?.[head] ?? schema.items!;
  let child = out[head] as Body | Body[] | undefined;
  if (prop.type === 'array') {
    const items = Array.isArray(child) ? [...child] : [];
    if (items.length === 0)
      items.push(fc.sample(validObject(prop.items!, [head, '0'], target), { numRuns: 1, seed: 1 })[0]);
    child = items;
    out[head] = setPath(child as unknown as Body, rest, value, target, prop);
  } else {
    out[head] = setPath((child as Body) ?? {}, rest, value, target, prop);
  }
  return out;
}

const toText = (body: unknown) => JSON.stringify(body);

/**
 * JSON text of objects and arrays nested `depth` levels, alternating or of one kind (built as text:
 * deeper than JSON.stringify can go).
 */
export function nestedText(depth: number, kind: 'mixed' | 'objects' | 'arrays' = 'mixed'): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    const array = kind === 'arrays' || (kind === 'mixed' && i % 2 === 1);
    open.push(array ? '[' : '{"a":');
    close.push(array ? ']' : '}');
  }
  return `${open.join('')}"x"${close.reverse().join('')}`;
}

/** The body's JSON text with one more member whose value is the given JSON text. */
export function withRawMember(body: Body, key: string, valueText: string): string {
  const text = toText(body);
  return `${text.slice(0, -1)}${text === '{}' ? '' : ','}${JSON.stringify(key)}:${valueText}}`;
}

/** Whole-body breakages: not an object, too deep, too large, not UTF-8. */
const BODY_MUTATIONS: ((valid: Body, target: Target) => GeneratedCase)[] = [
  (valid) => ({ kind: 'broken', label: 'body: an array', raw: toText([valid]), mustFail: true }),
  () => ({ kind: 'broken', label: 'body: a string', raw: toText('x'), mustFail: true }),
  () => ({ kind: 'broken', label: 'body: a number', raw: '1e308', mustFail: true }),
  () => ({ kind: 'broken', label: 'body: null', raw: 'null', mustFail: true }),
  (valid) => ({ kind: 'broken', label: 'body: truncated', raw: toText(valid).slice(0, -1), mustFail: true }),
  (valid) => ({
    kind: 'broken',
    label: 'body: 33 levels deep',
    raw: withRawMember(valid, 'zz', nestedText(32)),
    mustFail: true,
  }),
  (valid) => ({
    kind: 'broken',
    label: 'body: 5000 levels deep',
    raw: withRawMember(valid, 'zz', nestedText(5000)),
    mustFail: true,
  }),
  (valid) => ({
    kind: 'broken',
    label: 'body: 32 levels deep (allowed)',
    body: valid,
    raw: withRawMember(valid, 'zz', nestedText(31)),
    mustFail: false,
  }),
  (valid) => ({
    kind: 'broken',
    label: 'body: 5000 unknown keys',
    body: valid,
    raw: toText({ ...(wide(5000) as Body), ...valid }),
    mustFail: false,
  }),
  (valid) => ({
    kind: 'broken',
    label: 'body: invalid UTF-8 bytes in a string',
    raw: Buffer.concat([
      Buffer.from(toText({ ...valid, zz: 'x' }).slice(0, -2)),
      Buffer.from([0xff, 0xfe, 0x22, 0x7d]),
    ]),
    mustFail: true,
  }),
  (valid, target) => {
    // The route's own limit where it has one (POST /api/track: 5 MiB), else the conventions' 1 MiB.
    const limit = target.bodyLimitBytes ?? 1024 * 1024;
    return {
      kind: 'broken',
      label: `body: over ${limit / 1024 / 1024} MiB`,
      raw: toText({ ...valid, zz: 'x'.repeat(limit) }),
      mustFail: true,
    };
  },
];

/** A valid body, or a valid body broken at one field or as a whole. */
export function caseArb(target: Target): fc.Arbitrary<GeneratedCase> {
  const schema = target.op.body ?? { type: 'object', properties: {} };
  const fields = fieldsOf(schema);
  const valid = validBodyArb(target).map<GeneratedCase>((body) => ({
    kind: 'valid',
    label: 'valid',
    body,
    raw: toText(body),
    mustFail: false,
  }));
  const brokenField =
    fields.length === 0
      ? undefined
      : fc.tuple(validBodyArb(target), fc.constantFrom(...fields)).chain(([body, field]) =>
          brokenValues(field.schema, field.required).map<GeneratedCase>((mutation) => {
            const broken = setPath(body, field.path, mutation.value, target, schema);
            return {
              kind: 'broken',
              label: `${field.path.join('.')}: ${mutation.label}`,
              body: broken,
              raw: toText(broken),
              mustFail: mutation.mustFail,
            };
          }),
        );
  const brokenBody = fc
    .tuple(validBodyArb(target), fc.constantFrom(...BODY_MUTATIONS))
    .map(([body, make]) => make(body, target));
  return fc.oneof({ weight: 3, arbitrary: valid }, ...(brokenField ? [{ weight: 5, arbitrary: brokenField }] : []), {
    weight: 1,
    arbitrary: brokenBody,
  });
}

/** One deterministic valid body (the schema's examples where it has them), for example-based tests. */
export function exampleBody(target: Target): Body {
  return fc.sample(validBodyArb(target), { numRuns: 1, seed: 42 })[0];
}
