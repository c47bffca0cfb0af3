import { Liquid, type Template as LiquidTemplate } from 'liquidjs';
import { LRUCache } from 'lru-cache';

/**
 * Liquid (liquidjs, never `eval`) for the templates of destinations: e-mail subject, HTML and text,
 * an AMQP routing key, a mapped field. A template sees only the data it is given (own properties,
 * no prototype), reads no file (`include` and `render` find nothing), and a render is bounded in
 * time and memory; an unknown filter is a parse error. In `html`, every output is HTML-escaped
 * unless marked safe with `| raw`.
 */
const LIMITS = { parseLimit: 100_000, renderLimit: 1_000, memoryLimit: 10_000_000 };
const OPTIONS = { templates: {}, strictFilters: true, ownPropertyOnly: true, ...LIMITS };

const engines = {
  text: new Liquid(OPTIONS),
  html: new Liquid({ ...OPTIONS, outputEscape: 'escape' }),
};

export type TemplateKind = keyof typeof engines;

/** A parsed template; `render` answers its text or throws TemplateError. */
export class Template {
  constructor(
    readonly source: string,
    private readonly parsed: LiquidTemplate[],
    private readonly kind: TemplateKind,
  ) {}

  render(scope: object): string {
    try {
      return engines[this.kind].renderSync(this.parsed, scope) as string;
    } catch (error) {
      throw new TemplateError(error);
    }
  }
}

/** A template that does not parse, or a render that failed (a missing partial, a limit). */
export class TemplateError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message.split('\n')[0].slice(0, 300) : String(cause));
  }
}

/** Parsed templates by kind and source: a destination's templates are parsed once per process, not per record. */
const parsedCache = new LRUCache<string, Template | TemplateError>({
  max: 2_000,
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (_value, key) => key.length + 1,
});

/** The template, or why it does not parse. */
export function parseTemplate(source: string, kind: TemplateKind = 'text'): Template | TemplateError {
  const key = `${kind}\u0000${source}`;
  let found = parsedCache.get(key);
  if (!found) {
    try {
      found = new Template(source, engines[kind].parse(source), kind);
    } catch (error) {
      found = new TemplateError(error);
    }
    parsedCache.set(key, found);
  }
  return found;
}
