import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { ValidationFailed, type FieldErrors } from './api-exception.js';

/** Flattens class-validator's tree into the contract's dotted keys (`rules.0.rule_value`). */
export function fieldErrorsOf(errors: ValidationError[], prefix = ''): FieldErrors {
  const out: FieldErrors = {};
  for (const error of errors) {
    const key = prefix ? `${prefix}.${error.property}` : error.property;
    if (error.constraints) out[key] = Object.values(error.constraints);
    if (error.children?.length) Object.assign(out, fieldErrorsOf(error.children, key));
  }
  return out;
}

/**
 * A DTO's quick check: the instance the DTO's rules and transforms would make of a value that
 * certainly passes them, or undefined when unsure (every invalid value included), which the DTO then
 * decides. Each one is held to the DTO's verdicts and values by a unit test over generated values.
 */
export interface SureInput {
  /** The DTO it checks for, and every DTO that extends it. */
  dto: abstract new () => object;
  /** What it checks: a body (the default) or a query string. */
  source?: 'body' | 'query';
  check(value: Record<string, unknown>, metatype: new () => object): object | undefined;
}

export const SURE_INPUTS = Symbol('SURE_INPUTS');

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The one validation pipe: unknown keys stripped, failures answered 422 in the §5 shape. A body
 * whose DTO has a quick check (class-validator costs tens of microseconds a body) skips it when
 * the check is sure.
 */
export class InputPipe extends ValidationPipe {
  private readonly sureInputs: readonly SureInput[];
  /** The check of each DTO as a body and as a query (null: none), found on its first value. */
  private readonly checks = { body: new Map<unknown, SureInput | null>(), query: new Map<unknown, SureInput | null>() };

  constructor(sureInputs: readonly SureInput[] = []) {
    super({
      whitelist: true,
      transform: true,
      // One message per field, the first rule it breaks ("required" rather than also "must be a string").
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new ValidationFailed(fieldErrorsOf(errors)),
    });
    this.sureInputs = sureInputs;
  }

  // Not async: every parameter of every route passes here, and the base's promise is the only one it needs.
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // A path parameter goes to its own pipe (IdParam) as sent: the base would first turn `01`, `+1`,
    // `1.0` or ` 1` into the number 1, which names record 1 where the contract names no record.
    if (metadata.type === 'param') return Promise.resolve(value);
    const sure = this.sureInputOf(metadata);
    const certain = sure && isPlainObject(value) ? sure.check(value, metadata.metatype as new () => object) : undefined;
    return certain ? Promise.resolve(certain) : super.transform(value, metadata);
  }

  private sureInputOf({ type, metatype }: ArgumentMetadata): SureInput | undefined {
    if ((type !== 'body' && type !== 'query') || typeof metatype !== 'function') return undefined;
    const checks = this.checks[type];
    let sure = checks.get(metatype);
    if (sure === undefined) {
      sure =
        this.sureInputs.find(
          (input) =>
            (input.source ?? 'body') === type && (metatype === input.dto || metatype.prototype instanceof input.dto),
        ) ?? null;
      checks.set(metatype, sure);
    }
    return sure ?? undefined;
  }
}
