import type { Customer } from '../entities/customer.entity.js';

export const MERGE_PREFERENCES = ['target', 'source'] as const;
export type MergePreference = (typeof MERGE_PREFERENCES)[number];

/** The fields merged by the general rule; `external_id` and `attributes` have their own. */
const PLAIN_FIELDS = ['first_name', 'last_name', 'email', 'phone', 'is_active'] as const;

type MergedValues = Partial<
  Pick<Customer, (typeof PLAIN_FIELDS)[number] | 'external_id' | 'attributes' | 'unsubscribed_at'>
>;

const isEmpty = (value: unknown) => value === null || value === undefined || value === '';

/**
 * What the survivor of a merge becomes (only the fields that change): each empty field takes the
 * first non-empty value among the sources, in their order; where both have one, the survivor's
 * stays unless `prefer` is `source` (then the first source's wins). `attributes` objects are merged
 * key by key under the same rule; `external_id` moves only to a survivor that has none; a survivor
 * takes the earliest `unsubscribed_at` of its sources when it has none.
 */
export function mergedValues(survivor: Customer, sources: readonly Customer[], prefer: MergePreference): MergedValues {
  const values: MergedValues = {};
  for (const field of PLAIN_FIELDS) {
    const candidate = sources.map((source) => source[field]).find((value) => !isEmpty(value));
    if (candidate === undefined || candidate === survivor[field]) continue;
    if (isEmpty(survivor[field]) || prefer === 'source') Object.assign(values, { [field]: candidate });
  }
  if (survivor.external_id === null) {
    const moved = sources.find((source) => source.external_id !== null)?.external_id;
    if (moved !== undefined) values.external_id = moved;
  }
  const attributes = mergedAttributes(
    survivor.attributes,
    sources.map((source) => source.attributes),
    prefer,
  );
  if (attributes !== survivor.attributes) values.attributes = attributes;
  // One person who unsubscribed through any of the merged records stays out of e-mail (since the first time).
  const unsubscribed = sources.map((source) => source.unsubscribed_at).filter((at): at is Date => at instanceof Date);
  if (!survivor.unsubscribed_at && unsubscribed.length) {
    values.unsubscribed_at = new Date(Math.min(...unsubscribed.map((at) => at.getTime())));
  }
  return values;
}

/**
 * `attributes` (JSON text) after a merge. Objects merge key by key (top level); a text that is no
 * object merges as a whole field. The survivor's text is kept byte for byte when no key changes.
 */
export function mergedAttributes(
  survivor: string | null,
  sources: readonly (string | null)[],
  prefer: MergePreference,
): string | null {
  const first = sources.find((text): text is string => !isEmpty(text));
  if (isEmpty(survivor) && first !== undefined && asObject(first) === undefined) {
    // An empty survivor takes the first source's value; when that is no object, as a whole.
    return first;
  }
  const base = isEmpty(survivor) ? {} : asObject(survivor!);
  if (base === undefined) {
    // The survivor's attributes are no object: the field is not empty, so only `source` replaces it.
    return prefer === 'source' && first !== undefined ? first : survivor;
  }
  const merged: Record<string, unknown> = { ...base };
  const decided = new Set<string>();
  let changed = false;
  for (const text of sources) {
    const source = isEmpty(text) ? undefined : asObject(text!);
    if (!source) continue;
    for (const [key, value] of Object.entries(source)) {
      if (isEmpty(value) || decided.has(key)) continue;
      decided.add(key);
      // Own keys only: `constructor` or `__proto__` is a key like any other.
      const current = Object.hasOwn(base, key) ? base[key] : undefined;
      if ((isEmpty(current) || prefer === 'source') && !sameJson(current, value)) {
        Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
        changed = true;
      }
    }
  }
  return changed ? JSON.stringify(merged) : survivor;
}

function asObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
