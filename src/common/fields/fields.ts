import { applyDecorators } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsString,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
  isEmail,
  registerDecorator,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';

/**
 * Field decorators that apply the validation rule and the matching OpenAPI schema together
 * (so the 422 rules and the document cannot drift), with the contract's messages.
 */

const label = (args: ValidationArguments) => args.property.replace(/_/g, ' ');
const msg = (text: (field: string, args: ValidationArguments) => string): ValidationOptions => ({
  message: (args: ValidationArguments) => text(label(args), args),
});

export interface FieldOptions {
  /** Must be present (not undefined). Default true. */
  required?: boolean;
  /** null is accepted (and stored as null). Default false. */
  nullable?: boolean;
  description?: string;
  example?: unknown;
}

/** Presence rules: required → present and (unless nullable) not null; optional → absent or valid. */
function presence(options: FieldOptions): PropertyDecorator[] {
  const required = options.required ?? true;
  const nullable = options.nullable ?? false;
  const decorators: PropertyDecorator[] = [];
  if (required && !nullable) decorators.push(IsDefined(msg((f) => `The ${f} field is required.`)));
  if (required && nullable) {
    decorators.push(
      registerRule(
        'isPresent',
        (value) => value !== undefined,
        (f) => `The ${f} field is required.`,
      ),
    );
  }
  // Skip the type rules for an absent optional field, and for null where null is allowed.
  decorators.push(ValidateIf((_o, value) => !((!required && value === undefined) || (nullable && value === null))));
  return decorators;
}

function doc(options: FieldOptions, schema: ApiPropertyOptions): PropertyDecorator {
  const required = options.required ?? true;
  // OpenAPI 3.0 wants `nullable` beside a `type`: a union of types (an id: integer or digit string)
  // takes null in its first branch instead.
  const union = (schema as { oneOf?: Record<string, unknown>[]; type?: unknown }).oneOf;
  if (options.nullable && union && !(schema as { type?: unknown }).type) {
    schema = {
      ...schema,
      oneOf: union.map((branch, i) => (i === 0 ? { ...branch, nullable: true } : branch)),
    } as ApiPropertyOptions;
    options = { ...options, nullable: undefined };
  }
  return ApiProperty({
    required,
    nullable: options.nullable || undefined,
    description: options.description,
    example: options.example,
    ...schema,
  } as ApiPropertyOptions);
}

function registerRule(
  name: string,
  test: (value: unknown, args: ValidationArguments) => boolean,
  message: (field: string, args: ValidationArguments) => string,
  constraints: unknown[] = [],
): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      constraints,
      options: msg(message),
      validator: { validate: test },
    });
}

/**
 * Text is well-formed Unicode: no lone UTF-16 surrogate (which JSON can carry as a `\ud800`
 * escape). Neither database can store one (both would keep U+FFFD instead), so such text is a 422
 * rather than a 2xx that stores something else than was sent.
 */
export function isWellFormedText(value: string): boolean {
  // With the u flag a surrogate pair is one code point, so \p{Cs} matches only a lone surrogate.
  return !/\p{Cs}/u.test(value);
}

/**
 * Length in characters as the databases count them (Unicode code points): an astral character
 * (a surrogate pair in JavaScript) is one, a combining mark or a variation selector is one more.
 */
export function codePointLength(value: string): number {
  let length = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    length++;
  }
  return length;
}

/** The rule every text field starts with, right after "must be a string". */
const wellFormed = (each = false): PropertyDecorator =>
  registerRule(
    'isWellFormedText',
    (value) =>
      each
        ? !Array.isArray(value) || value.every((v) => typeof v !== 'string' || isWellFormedText(v))
        : typeof value !== 'string' || isWellFormedText(value),
    (f) =>
      each ? `Each item of the ${f} field must be valid Unicode text.` : `The ${f} field must be valid Unicode text.`,
  );

export interface StringFieldOptions extends FieldOptions {
  max?: number;
  min?: number;
  email?: boolean;
  in?: readonly string[];
}

/** A required text field is not satisfied by an empty or blank string. */
const notBlank = (options: FieldOptions): PropertyDecorator[] =>
  (options.required ?? true)
    ? [
        registerRule(
          'notBlank',
          (value) => typeof value !== 'string' || value.trim() !== '',
          (f) => `The ${f} field is required.`,
        ),
      ]
    : [];

export function StringField(options: StringFieldOptions = {}) {
  const rules: PropertyDecorator[] = [
    ...presence(options),
    IsString(msg((f) => `The ${f} field must be a string.`)),
    wellFormed(),
    ...notBlank(options),
  ];
  // Lengths count code points (class-validator's MaxLength would not count variation selectors).
  const { min, max } = options;
  if (min !== undefined)
    rules.push(
      registerRule(
        'minLength',
        (value) => typeof value === 'string' && codePointLength(value) >= min,
        (f) => `The ${f} field must be at least ${min} characters.`,
      ),
    );
  if (max !== undefined)
    rules.push(
      registerRule(
        'maxLength',
        (value) => typeof value === 'string' && codePointLength(value) <= max,
        (f) => `The ${f} field must not be greater than ${max} characters.`,
      ),
    );
  if (options.email)
    rules.push(
      registerRule(
        'isEmail',
        // validator.js throws (URIError, a 500) on a lone surrogate: never hand it one.
        (value) => typeof value === 'string' && isWellFormedText(value) && isEmail(value),
        (f) => `The ${f} field must be a valid email address.`,
      ),
    );
  if (options.in)
    rules.push(
      IsIn(
        [...options.in],
        msg((f) => `The selected ${f} is invalid.`),
      ),
    );
  return applyDecorators(
    ...rules,
    doc(options, {
      type: String,
      maxLength: options.max,
      minLength: options.min,
      format: options.email ? 'email' : undefined,
      enum: options.in ? [...options.in] : undefined,
    }),
  );
}

/** E-mail addresses are compared and stored in lower case. */
export const EmailField = (options: Omit<StringFieldOptions, 'email'> = {}) =>
  applyDecorators(
    Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value)),
    StringField({ max: 255, example: 'ada@example.com', ...options, email: true }),
  );

/** An address a message goes to or comes from: spaces around it dropped as EmailField drops them, its case kept. */
export const MailAddressField = (options: Omit<StringFieldOptions, 'email'> = {}) =>
  applyDecorators(
    Transform(({ value }) => (typeof value === 'string' ? value.trim() : value)),
    StringField({ max: 255, ...options, email: true }),
  );

/**
 * A string that must itself hold valid JSON text; stored and returned byte for byte as sent.
 * The string must be well-formed Unicode like any text. JSON text that spells a lone surrogate as
 * an escape (`{"a":"\ud800"}`) is accepted: it is valid JSON text, made of ASCII characters,
 * and stored and returned exactly as sent (docs/design-decisions.md).
 */
export function JsonStringField(options: FieldOptions = {}) {
  return applyDecorators(
    ...presence(options),
    IsString(msg((f) => `The ${f} field must be a string.`)),
    wellFormed(),
    ...notBlank(options),
    registerRule(
      'isJsonText',
      (value) => typeof value === 'string' && isJsonText(value),
      (f) => `The ${f} field must be a valid JSON string.`,
    ),
    doc(options, {
      type: String,
      description: options.description ?? 'A string holding valid JSON text',
      example: options.example ?? '{"key":"value"}',
    }),
  );
}

export function isJsonText(value: string): boolean {
  try {
    JSON.parse(value);
    return true;
  } catch {
    return false;
  }
}

const TRUE_VALUES = new Set<unknown>([true, 1, '1', 'true']);
const FALSE_VALUES = new Set<unknown>([false, 0, '0', 'false']);

/** Accepts true, false, 0, 1, "0", "1", "true", "false" (API-CONVENTIONS §6). */
export function toBoolean(value: unknown): unknown {
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  return value;
}

export function BooleanField(options: FieldOptions = {}) {
  return applyDecorators(
    Transform(({ value }) => toBoolean(value)),
    ...presence(options),
    IsBoolean(msg((f) => `The ${f} field must be true or false.`)),
    doc(options, { type: Boolean }),
  );
}

const NUMERIC_STRING = /^\s*-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

/** Numbers arrive as JSON numbers or numeric strings. */
export function toNumber(value: unknown): unknown {
  return typeof value === 'string' && NUMERIC_STRING.test(value) ? Number(value) : value;
}

export interface NumberFieldOptions extends FieldOptions {
  min?: number;
  max?: number;
  integer?: boolean;
  /** Decimal places the column keeps (DECIMAL scale); more is a 422 rather than silent rounding. */
  scale?: number;
}

export function hasAtMostDecimals(value: number, scale: number): boolean {
  const scaled = value * 10 ** scale;
  return Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, Math.abs(scaled));
}

export function NumberField(options: NumberFieldOptions = {}) {
  const rules: PropertyDecorator[] = [
    ...presence(options),
    options.integer
      ? IsInt(msg((f) => `The ${f} field must be an integer.`))
      : IsNumber(
          { allowNaN: false, allowInfinity: false },
          msg((f) => `The ${f} field must be a number.`),
        ),
  ];
  if (options.min !== undefined)
    rules.push(
      Min(
        options.min,
        msg((f, a) => `The ${f} field must be at least ${a.constraints[0]}.`),
      ),
    );
  if (options.max !== undefined)
    rules.push(
      Max(
        options.max,
        msg((f, a) => `The ${f} field must not be greater than ${a.constraints[0]}.`),
      ),
    );
  if (options.scale !== undefined) {
    const scale = options.scale;
    rules.push(
      registerRule(
        'decimalPlaces',
        (value) => typeof value === 'number' && hasAtMostDecimals(value, scale),
        (f) => `The ${f} field must have at most ${scale} decimal places.`,
      ),
    );
  }
  return applyDecorators(
    Transform(({ value }) => toNumber(value)),
    ...rules,
    doc(options, { type: options.integer ? 'integer' : 'number', minimum: options.min, maximum: options.max }),
  );
}

/** A reference to another record: a positive integer, sent as a number or a digit string. */
export function IdField(options: FieldOptions = {}) {
  return applyDecorators(
    Transform(({ value }) => (typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value)),
    ...presence(options),
    IsInt(msg((f) => `The ${f} field must be an integer.`)),
    Min(
      1,
      msg((f) => `The selected ${f} is invalid.`),
    ),
    Max(
      Number.MAX_SAFE_INTEGER,
      msg((f) => `The selected ${f} is invalid.`),
    ),
    doc(options, {
      oneOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', pattern: '^[0-9]+$' },
      ],
    }),
  );
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(:(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Parses `YYYY-MM-DD` or an ISO 8601 date-time that exists on the calendar; null otherwise. */
export function parseDateLike(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const m = DATE_ONLY.exec(value) ?? DATE_TIME.exec(value);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[7] ?? 0) > 59)) return null;
  const iso = DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value.replace(' ', 'T') + (m[9] ? '' : 'Z');
  const date = new Date(iso);
  // MySQL DATETIME holds years 1000 to 9999 (after the offset is applied).
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1000 || date.getUTCFullYear() > 9999) return null;
  return date;
}

export interface DateFieldOptions extends FieldOptions {
  /** Must be on or after the date in this other field. */
  onOrAfter?: string;
}

export function DateField(options: DateFieldOptions = {}) {
  const rules: PropertyDecorator[] = [
    ...presence(options),
    registerRule(
      'isDateLike',
      (value) => parseDateLike(value) !== null,
      (f) => `The ${f} field must be a valid date.`,
    ),
  ];
  if (options.onOrAfter) {
    const other = options.onOrAfter;
    rules.push(
      registerRule(
        'onOrAfter',
        (value, args) => {
          const start = parseDateLike((args.object as Record<string, unknown>)[other]);
          const end = parseDateLike(value);
          return !start || !end || end.getTime() >= start.getTime();
        },
        (f) => `The ${f} field must be a date after or equal to ${other.replace(/_/g, ' ')}.`,
      ),
    );
  }
  return applyDecorators(
    ...rules,
    doc(options, {
      type: String,
      // Both forms are accepted: say so, so that the example (a date) matches the schema.
      anyOf: [
        { type: 'string', format: 'date' },
        { type: 'string', format: 'date-time' },
      ],
      description: 'YYYY-MM-DD or an ISO 8601 date-time',
      example: '2026-01-31',
    } as ApiPropertyOptions),
  );
}

/** An array of nested objects, each validated by its own class; errors keyed `field.N.member`. */
export function NestedArrayField(type: () => new () => object, options: FieldOptions & { max?: number } = {}) {
  const rules: PropertyDecorator[] = [
    ...presence(options),
    IsArray(msg((f) => `The ${f} field must be an array.`)),
    ValidateNested({ each: true }),
    registerRule(
      'eachObject',
      (value) => Array.isArray(value) && value.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v)),
      (f) => `Each item of the ${f} field must be an object.`,
    ),
    Type(type),
  ];
  if (options.max !== undefined)
    rules.push(
      ArrayMaxSize(
        options.max,
        msg((f, a) => `The ${f} field must not have more than ${a.constraints[0]} items.`),
      ),
    );
  return applyDecorators(...rules, doc(options, { type: type(), isArray: true }));
}

/** One nested object, validated by its own class; errors keyed `field.member`. */
export function NestedField(type: () => new () => object, options: FieldOptions = {}) {
  return applyDecorators(
    ...presence(options),
    registerRule(
      'isObject',
      (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
      (f) => `The ${f} field must be an object.`,
    ),
    ValidateNested(),
    Type(type),
    doc(options, { type: type() }),
  );
}

/** An array of strings. */
export function StringArrayField(options: FieldOptions & { max?: number } = {}) {
  return applyDecorators(
    ...presence(options),
    IsArray(msg((f) => `The ${f} field must be an array.`)),
    IsString({ each: true, ...msg((f) => `Each item of the ${f} field must be a string.`) }),
    wellFormed(true),
    doc(options, { type: String, isArray: true }),
  );
}

/** References to other records: 1 to `max` positive integers (numbers or digit strings), as IdField takes one. */
export function IdArrayField(options: FieldOptions & { max: number }) {
  const { max } = options;
  return applyDecorators(
    Transform(({ value }) =>
      Array.isArray(value)
        ? value.map((item) => (typeof item === 'string' && /^\d{1,15}$/.test(item) ? Number(item) : item))
        : value,
    ),
    ...presence(options),
    IsArray(msg((f) => `The ${f} field must be an array.`)),
    ArrayMinSize(
      1,
      msg((f) => `The ${f} field must have at least 1 item.`),
    ),
    ArrayMaxSize(
      max,
      msg((f) => `The ${f} field must not have more than ${max} items.`),
    ),
    registerRule(
      'eachId',
      (value) => Array.isArray(value) && value.every((item) => Number.isSafeInteger(item) && (item as number) >= 1),
      (f) => `Each item of the ${f} field must be a positive integer.`,
    ),
    doc(options, { type: 'array', items: { type: 'integer', minimum: 1 }, minItems: 1, maxItems: max }),
  );
}
