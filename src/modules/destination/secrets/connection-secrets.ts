import { replaceSpans, samePath, setAt, valueSites, type PathStep, type ValueSite } from './json-sites.js';

/** What every secret is answered as. */
export const MASK = '********';

/** Key names (lower case, without `-` and `_`) whose values are secrets, and the endings that make one. */
const SECRET_NAMES = new Set(['password', 'passwd', 'secret', 'token', 'apikey', 'privatekey', 'authorization']);
const SECRET_ENDINGS = ['password', 'secret', 'token', 'apikey', 'privatekey'];

/**
 * Whether a key of `connection_details` holds a secret: `password`, `secret`, `token`, `api_key`,
 * `private_key` and `authorization` in any case and spelling (`apiKey`, `X-API-Key`), and any name
 * ending in one of the first five (`client_secret`, `access_token`).
 */
export function isSecretName(key: string): boolean {
  const name = key.toLowerCase().replace(/[-_]/g, '');
  return SECRET_NAMES.has(name) || SECRET_ENDINGS.some((ending) => name.endsWith(ending));
}

/** A URL's password: where it stands in the text of the URL, or undefined when it has none. */
export function urlPassword(value: string): { start: number; end: number } | undefined {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value);
  if (!scheme) return undefined;
  const authorityEnd = value.slice(scheme[0].length).search(/[/?#]/);
  const authority = value.slice(scheme[0].length, authorityEnd < 0 ? undefined : scheme[0].length + authorityEnd);
  const at = authority.lastIndexOf('@');
  if (at < 0) return undefined;
  const colon = authority.indexOf(':');
  if (colon < 0 || colon > at || colon + 1 === at) return undefined;
  return { start: scheme[0].length + colon + 1, end: scheme[0].length + at };
}

/** The URL with its password answered as `********`. */
export function maskUrl(value: string): string {
  const password = urlPassword(value);
  return password ? value.slice(0, password.start) + MASK + value.slice(password.end) : value;
}

/**
 * One secret of a destination's connection details, as kept encrypted beside them: the value of a
 * secret-named key (its JSON text as sent), or a URL whose password is a secret (the whole URL, and
 * the URL as answered, so that a PUT sending it back unchanged keeps the password).
 */
export type StoredSecret =
  { path: PathStep[]; kind: 'value'; json: string } | { path: PathStep[]; kind: 'url'; url: string; masked: string };

/** Where a secret stands in a JSON text. */
interface SecretSite {
  site: ValueSite;
  kind: 'value' | 'url';
  /** url: the string's value. */
  url?: string;
}

function secretSites(text: string): SecretSite[] {
  const sites = valueSites(text);
  const found: SecretSite[] = [];
  let maskedUntil = -1;
  for (const site of sites) {
    // Inside a value already masked as a whole (a secret-named key's object): nothing more to do.
    if (site.start < maskedUntil) continue;
    const key = site.step;
    if (typeof key === 'string' && isSecretName(key)) {
      found.push({ site, kind: 'value' });
      maskedUntil = site.end;
      continue;
    }
    if (site.kind !== 'string' || !text.includes('@', site.start)) continue;
    const value = JSON.parse(text.slice(site.start, site.end)) as string;
    if (urlPassword(value)) found.push({ site, kind: 'url', url: value });
  }
  return found;
}

/**
 * Connection details as they are stored: the text as sent with every secret answered as `********`
 * (every other byte kept), and the secrets, to be kept encrypted beside it. `previous` are the
 * secrets stored so far (an update): a secret sent back as `********` keeps its stored value, and a
 * URL sent back exactly as answered keeps its password.
 */
export function sealSecrets(
  text: string,
  previous: readonly StoredSecret[] = [],
): { text: string; secrets: StoredSecret[] } {
  const secrets: StoredSecret[] = [];
  const spans: { start: number; end: number; by: string }[] = [];
  for (const { site, kind, url } of secretSites(text)) {
    const { start, end } = site;
    const path = site.path;
    if (kind === 'value') {
      const json = text.slice(start, end);
      spans.push({ start, end, by: JSON.stringify(MASK) });
      if (site.kind === 'string' && JSON.parse(json) === MASK) {
        const kept = previous.find((s) => s.kind === 'value' && samePath(s.path, path));
        if (kept) secrets.push({ ...kept, path });
      } else {
        secrets.push({ path, kind, json });
      }
      continue;
    }
    const masked = maskUrl(url!);
    spans.push({ start, end, by: JSON.stringify(masked) });
    if (url === masked) {
      // Sent back as answered: the stored URL holds, if it is still the same URL.
      const kept = previous.find((s) => s.kind === 'url' && samePath(s.path, path) && s.masked === masked);
      if (kept) secrets.push({ ...kept, path });
    } else {
      secrets.push({ path, kind, url: url!, masked });
    }
  }
  return { text: spans.length ? replaceSpans(text, spans) : text, secrets };
}

/**
 * The text as answered: every secret as `********` (what sealSecrets stored already is so; a row
 * written before secrets were sealed is masked here). A text without a secret is answered as it is.
 */
export function maskSecrets(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  return sealSecrets(text).text;
}

/** Cheap first look: a secret-like key, a URL with user info, or an escape that could spell either. */
const MAYBE_SECRET = /password|passwd|secret|token|api.?key|private.?key|authorization|\\u|:\/\/[^"]*@/i;

/**
 * The connection details with their secrets back in place, for delivery only; `missing` are the
 * places answered `********` that no stored secret fills (sent as `********` on a create, or a URL
 * changed while its password was left masked): each is a problem of the destination.
 */
export function openSecrets(
  text: string,
  secrets: readonly StoredSecret[],
): { details: unknown; missing: PathStep[][] } {
  const details = JSON.parse(text) as unknown;
  const missing: PathStep[][] = [];
  for (const { site, kind, url } of secretSites(text)) {
    const secret = secrets.find((s) => s.kind === kind && samePath(s.path, site.path));
    if (secret) continue;
    const placeholder =
      kind === 'value'
        ? site.kind === 'string' && JSON.parse(text.slice(site.start, site.end)) === MASK
        : urlPassword(url!) !== undefined && maskUrl(url!) === url;
    if (placeholder) missing.push(site.path);
  }
  for (const secret of secrets) {
    setAt(details, secret.path, secret.kind === 'value' ? JSON.parse(secret.json) : secret.url);
  }
  return { details, missing };
}

/** Every secret value, as text: scrubbed from any error message that might repeat one. */
export function secretTexts(secrets: readonly StoredSecret[]): string[] {
  const texts: string[] = [];
  for (const secret of secrets) {
    if (secret.kind === 'value') {
      const value = JSON.parse(secret.json) as unknown;
      texts.push(typeof value === 'string' ? value : secret.json);
      // `Bearer <token>`: the token alone too.
      if (typeof value === 'string') texts.push(...value.split(/\s+/).filter((part) => part.length >= 8));
    } else {
      const password = urlPassword(secret.url);
      if (password) {
        const raw = secret.url.slice(password.start, password.end);
        texts.push(raw);
        try {
          texts.push(decodeURIComponent(raw));
        } catch {
          // not percent-encoded text: the raw form is scrubbed
        }
      }
    }
  }
  // Longest first, so that a part never leaves the rest of its whole behind.
  return [...new Set(texts.filter((text) => text.length >= 3))].sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced by `********`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(MASK);
  return out;
}
