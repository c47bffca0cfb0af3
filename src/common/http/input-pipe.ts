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
 * A body DTO's quick check: the instance the DTO's rules and transforms would make of a body that
 * certainly passes them, or undefined when unsure (every invalid body included), which the DTO then
 * decides. Each one is held to the DTO's verdicts and values by a unit test over generated bodies.
 */
export interface SureInput {
  dto: abstract new () => object;
  check(body: Record<string, unknown>): object | undefined;
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
  private readonly sure: ReadonlyMap<unknown, SureInput['check']>;

  constructor(sureInputs: readonly SureInput[] = []) {
    super({
      whitelist: true,
      transform: true,
      // One message per field, the first rule it breaks ("required" rather than also "must be a string").
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new ValidationFailed(fieldErrorsOf(errors)),
    });
    this.sure = new Map(sureInputs.map((input) => [input.dto, input.check]));
  }

  // Not async: every parameter of every route passes here, and the base's promise is the only one it needs.
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const check = metadata.type === 'body' ? this.sure.get(metadata.metatype) : undefined;
    const certain = check && isPlainObject(value) ? check(value) : undefined;
    return certain ? Promise.resolve(certain) : super.transform(value, metadata);
  }
}
