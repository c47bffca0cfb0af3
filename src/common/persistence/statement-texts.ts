/** Shapes kept per table; beyond it a statement is composed on every call, as before. */
const MAX_SHAPES = 512;

/**
 * Statement texts composed from a table's parts, kept by a short key of what varies (the scope's
 * condition, a lock, a sort), so that every call passes the very same string. A prepared statement
 * is found by its text (prepared-statements.ts): a text concatenated afresh is copied and hashed
 * whole on each lookup, 5 µs of a list page's profile (docs/performance.md).
 */
export class StatementTexts {
  private readonly texts = new Map<string, string>();

  of(shape: string, compose: () => string): string {
    const known = this.texts.get(shape);
    if (known !== undefined) return known;
    const text = compose();
    if (this.texts.size < MAX_SHAPES) this.texts.set(shape, text);
    return text;
  }
}
