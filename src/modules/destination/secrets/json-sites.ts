/** A step of a path into a JSON value: an object member's key or an array index. */
export type PathStep = string | number;

/** Where a value stands in its parent: a persistent list, so that a deep value costs one node, not a copied path. */
interface Place {
  parent: Place | undefined;
  step: PathStep;
}

/** Where one value of a JSON text is: its path from the root, its span (`text.slice(start, end)`), its kind. */
export class ValueSite {
  constructor(
    private readonly place: Place | undefined,
    readonly start: number,
    readonly end: number,
    readonly kind: 'string' | 'scalar' | 'object' | 'array',
  ) {}

  /** The key or index of the value in its parent (undefined for the root). */
  get step(): PathStep | undefined {
    return this.place?.step;
  }

  get path(): PathStep[] {
    const path: PathStep[] = [];
    for (let place = this.place; place; place = place.parent) path.push(place.step);
    return path.reverse();
  }
}

const STRING = /"(?:[^"\\]|\\.)*"/y;
const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

interface Open {
  kind: 'object' | 'array';
  start: number;
  place: Place | undefined;
  index: number;
  key: string;
}

/**
 * Every value of a JSON text (valid: it was parsed before), with its path and where it stands in
 * the text, so that one value can be replaced while every other byte stays as sent. Iterative, so
 * a value nested a million levels deep costs no stack.
 */
export function valueSites(text: string): ValueSite[] {
  const sites: ValueSite[] = [];
  const stack: Open[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      i++;
    }
  };
  const match = (pattern: RegExp): string => {
    pattern.lastIndex = i;
    const found = pattern.exec(text);
    if (!found) throw new SyntaxError(`not JSON at ${i}`);
    return found[0];
  };
  const placeHere = (): Place | undefined => {
    const top = stack[stack.length - 1];
    return top && { parent: top.place, step: top.kind === 'object' ? top.key : top.index };
  };
  const readKey = () => {
    skipSpace();
    const literal = match(STRING);
    i += literal.length;
    skipSpace();
    if (text[i] !== ':') throw new SyntaxError(`not JSON at ${i}`);
    i++;
    stack[stack.length - 1].key = JSON.parse(literal) as string;
  };

  let expectValue = true;
  for (;;) {
    skipSpace();
    if (expectValue) {
      const c = text[i];
      if (c === '{' || c === '[') {
        stack.push({ kind: c === '{' ? 'object' : 'array', start: i, place: placeHere(), index: 0, key: '' });
        i++;
        skipSpace();
        if (text[i] === '}' || text[i] === ']') {
          expectValue = false;
          continue;
        }
        if (c === '{') readKey();
        continue;
      }
      const literal = match(c === '"' ? STRING : SCALAR);
      sites.push(new ValueSite(placeHere(), i, i + literal.length, c === '"' ? 'string' : 'scalar'));
      i += literal.length;
      expectValue = false;
      continue;
    }
    const top = stack[stack.length - 1];
    if (!top) break;
    const c = text[i];
    if (c === ',') {
      i++;
      if (top.kind === 'object') readKey();
      else top.index++;
      expectValue = true;
    } else if (c === '}' || c === ']') {
      i++;
      stack.pop();
      sites.push(new ValueSite(top.place, top.start, i, top.kind));
    } else {
      throw new SyntaxError(`not JSON at ${i}`);
    }
  }
  return sites.sort((a, b) => a.start - b.start);
}

/** Replaces spans of `text` (sorted, not overlapping) and keeps every other byte. */
export function replaceSpans(text: string, spans: readonly { start: number; end: number; by: string }[]): string {
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + span.by;
    at = span.end;
  }
  return out + text.slice(at);
}

export const samePath = (a: readonly PathStep[], b: readonly PathStep[]): boolean =>
  a.length === b.length && a.every((step, i) => step === b[i]);

/** The value at `path` of a parsed JSON value, or undefined. */
export function valueAt(root: unknown, path: readonly PathStep[]): unknown {
  let node = root;
  for (const step of path) {
    if (node === null || typeof node !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(node, step)) return undefined;
    node = (node as Record<string | number, unknown>)[step];
  }
  return node;
}

/** Sets the value at `path` (which exists) of a parsed JSON value; `path` empty replaces nothing. */
export function setAt(root: unknown, path: readonly PathStep[], value: unknown): void {
  if (path.length === 0) return;
  const parent = valueAt(root, path.slice(0, -1));
  if (parent === null || typeof parent !== 'object') return;
  Object.defineProperty(parent, path[path.length - 1], { value, enumerable: true, writable: true, configurable: true });
}
