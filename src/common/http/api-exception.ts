/**
 * Domain exceptions. Services throw these; the one exception filter turns them into the
 * contract's bodies (API-CONVENTIONS §5).
 */
export class ApiException extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.message === 'string' ? body.message : `HTTP ${status}`);
  }
}

export class RecordNotFound extends ApiException {
  constructor(what = 'record') {
    super(404, { message: `No query results for ${what}.` });
  }
}

export class DeleteConflict extends ApiException {
  constructor(message: string) {
    super(409, { message });
  }
}

export class BadRequest extends ApiException {
  constructor(message: string) {
    super(400, { message });
  }
}

export type FieldErrors = Record<string, string[]>;

export class ValidationFailed extends ApiException {
  constructor(readonly errors: FieldErrors) {
    super(422, { message: ValidationFailed.summary(errors), errors });
  }

  static field(field: string, message: string): ValidationFailed {
    return new ValidationFailed({ [field]: [message] });
  }

  /** "first message (and N more errors)", counting every message of every field. */
  static summary(errors: FieldErrors): string {
    const messages = Object.values(errors).flat();
    if (messages.length === 0) return 'The given data was invalid.';
    const more = messages.length - 1;
    return more === 0 ? messages[0] : `${messages[0]} (and ${more} more error${more === 1 ? '' : 's'})`;
  }
}
