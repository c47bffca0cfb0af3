import { ValidationPipe, type ValidationError } from '@nestjs/common';
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

/** The one validation pipe: unknown keys stripped, failures answered 422 in the §5 shape. */
export function createInputPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    // One message per field, the first rule it breaks ("required" rather than also "must be a string").
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationFailed(fieldErrorsOf(errors)),
  });
}
