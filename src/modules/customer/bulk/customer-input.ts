import { plainToInstance } from 'class-transformer';
import { isEmail, validateSync } from 'class-validator';
import type { FieldErrors } from '../../../common/http/api-exception.js';
import { fieldErrorsOf, type SureInput } from '../../../common/http/input-pipe.js';
import { isJsonText, isWellFormedText, toBoolean } from '../../../common/fields/fields.js';
import { CustomerDto } from '../dto/customer.dto.js';

/** The fields a client writes, in the order of the CSV export. */
export const CUSTOMER_FIELDS = [
  'external_id',
  'first_name',
  'last_name',
  'email',
  'phone',
  'attributes',
  'is_active',
] as const;
export type CustomerField = (typeof CUSTOMER_FIELDS)[number];

/** The fields an item sent, validated and transformed (e-mail in lower case, is_active a boolean). */
export type CustomerInput = {
  -readonly [K in CustomerField]?: K extends 'is_active' ? boolean : string | null;
};

export type CheckedItem = { ok: true; values: CustomerInput } | { ok: false; errors: FieldErrors };

const TEXT_FIELDS = ['external_id', 'first_name', 'last_name', 'phone'] as const;
const MAX = 255;

/** class-validator's settings of the global validation pipe (src/common/http/validation.ts). */
const PIPE_OPTIONS = { whitelist: true, stopAtFirstError: true, validationError: { target: false, value: false } };

/**
 * One item of a batch (or one CSV row) checked by CustomerDto: the same rules, transforms and
 * messages as `POST /api/customers`. class-validator costs about 70 µs an item here, which is
 * most of a 1,000-item batch, so a plain check of the same rules (with class-validator's own
 * e-mail test) goes first; whatever it is not sure of, every invalid item included, goes through
 * the DTO, which writes the messages. A unit test holds the two to the same verdicts.
 */
export function checkCustomerItem(item: unknown): CheckedItem {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    return { ok: false, errors: { item: ['The item must be an object.'] } };
  }
  const values = surelyValid(item as Record<string, unknown>);
  return values ? { ok: true, values } : throughDto(item as Record<string, unknown>);
}

/** The item's values when they certainly pass CustomerDto; undefined when unsure. */
export function surelyValid(item: Record<string, unknown>): CustomerInput | undefined {
  const values: CustomerInput = {};
  for (const field of TEXT_FIELDS) {
    const value = item[field];
    if (value === undefined) continue;
    // At most 255 UTF-16 units is at most 255 characters; longer strings are counted by the DTO.
    if (value !== null && (typeof value !== 'string' || value.length > MAX || !isWellFormedText(value)))
      return undefined;
    values[field] = value;
  }
  const email = item.email;
  if (email !== undefined) {
    if (email === null) values.email = null;
    else {
      if (typeof email !== 'string' || !isWellFormedText(email)) return undefined;
      const normalized = email.trim().toLowerCase();
      if (normalized.length > MAX || !isEmail(normalized, {})) return undefined;
      values.email = normalized;
    }
  }
  const attributes = item.attributes;
  if (attributes !== undefined) {
    if (
      attributes !== null &&
      (typeof attributes !== 'string' || !isWellFormedText(attributes) || !isJsonText(attributes))
    )
      return undefined;
    values.attributes = attributes;
  }
  if (item.is_active !== undefined) {
    const active = toBoolean(item.is_active);
    if (typeof active !== 'boolean') return undefined;
    values.is_active = active;
  }
  return values;
}

/** `POST` and `PUT /api/customers`: the validation pipe skips class-validator for a body this check is sure of. */
export const CUSTOMER_SURE_INPUT: SureInput = {
  dto: CustomerDto,
  check: (body) => {
    const values = surelyValid(body);
    return values && Object.assign(new CustomerDto(), values);
  },
};

/** The DTO's verdict, exactly as the validation pipe gives it. */
export function throughDto(item: Record<string, unknown>): CheckedItem {
  const dto = plainToInstance(CustomerDto, item);
  const errors = validateSync(dto, PIPE_OPTIONS);
  if (errors.length) return { ok: false, errors: fieldErrorsOf(errors) };
  const values: CustomerInput = {};
  for (const field of CUSTOMER_FIELDS) {
    const value = dto[field];
    if (value !== undefined) (values as Record<string, unknown>)[field] = value;
  }
  return { ok: true, values };
}
