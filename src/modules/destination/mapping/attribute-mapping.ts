import { nestsDeeperThan } from '../../../common/http/body-parsing.js';
import { parseTemplate, Template, TemplateError } from '../templates/liquid-templates.js';

/** What a destination or an association lacks for delivery: the field, dotted, and why. */
export interface Problem {
  field: string;
  message: string;
}

/** A customer as mappings and templates see it: the fields the API answers, `attributes` parsed. */
export interface CustomerScope {
  id: number;
  external_id: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  /** The customer's `attributes` JSON text, parsed (null when absent or not an object or array). */
  attributes: unknown;
  is_active: boolean;
  created_at: string | null;
  updated_at: string | null;
  unsubscribed_at: string | null;
}

/** Everything a mapping (and a template) sees of one recipient. */
export interface MappingScope {
  customer: CustomerScope;
  campaign: { id: number; name: string } | null;
  treatment_group: { id: number; name: string; type: string } | null;
  /** The recipient's one-click unsubscribe link (APP_URL/api/unsubscribe/TOKEN); null without an address. */
  unsubscribe_url: string | null;
}

/** The customer fields a source may name, and so the fields of the mapping used without one. */
export const CUSTOMER_FIELDS = [
  'id',
  'external_id',
  'first_name',
  'last_name',
  'email',
  'phone',
  'attributes',
  'is_active',
  'created_at',
  'updated_at',
  'unsubscribed_at',
] as const satisfies readonly (keyof CustomerScope)[];

/** Other sources by name (a Map: a name like `toString` is no source). */
const CONTEXT_FIELDS = new Map<string, (scope: MappingScope) => unknown>([
  ['campaign.id', (scope) => scope.campaign?.id],
  ['campaign.name', (scope) => scope.campaign?.name],
  ['treatment_group.id', (scope) => scope.treatment_group?.id],
  ['treatment_group.name', (scope) => scope.treatment_group?.name],
  ['treatment_group.type', (scope) => scope.treatment_group?.type],
]);

/** Mapped values (and `{value}` constants) nest at most this deep: every receiver gets JSON it can read. */
const MAX_DEPTH = 32;

/** A mapping that failed for one recipient (a template that could not render): that record is skipped. */
export class MappingFailed extends Error {}

type Read = (scope: MappingScope) => unknown;

/** A compiled mapping: the targets (dotted paths, in the mapping's order) and the mapper. */
export interface CompiledMapping {
  readonly targets: readonly string[];
  /** The mapped fields of one recipient, dotted targets built as nested objects; throws MappingFailed. */
  map(scope: MappingScope): Record<string, unknown>;
}

/**
 * The attribute mapping of a campaign destination (docs/destinations.md#attribute-mapping): a JSON
 * object `{"<target>": <source>}`. A source is
 *
 * - a customer field name (`email`, `first_name`, `id`, ...; `attributes` is the parsed object),
 * - `"attributes.<path>"` (a dotted path into the customer's attributes; a number steps into an array),
 * - `"campaign.id"`, `"campaign.name"`, `"treatment_group.id"`, `"treatment_group.name"`, `"treatment_group.type"`,
 * - `{"template": "Liquid text"}`, which sees `customer`, `campaign`, `treatment_group` and `unsubscribe_url`,
 * - `{"value": <any JSON>}`, a constant,
 * - `{"field": "<one of the names above>", "default": <any JSON>}`: the default when the value is missing.
 *
 * A target may be a dotted path (`"profile.first"`), which builds nested objects. A missing value
 * maps to null. Answers the mapper, or the problems that keep it from mapping (each on
 * `<field>.<target>`, or on `field` itself when the text is no object).
 */
export function compileMapping(
  text: string,
  field = 'attribute_mapping',
): { mapping?: CompiledMapping; problems: Problem[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problems: [{ field, message: 'The mapping must be JSON text.' }] };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { problems: [{ field, message: 'The mapping must be a JSON object of targets and their sources.' }] };
  }
  const problems: Problem[] = [];
  const entries: [string[], Read][] = [];
  const taken = new Set<string>();
  for (const [target, source] of Object.entries(parsed as Record<string, unknown>)) {
    const where = `${field}.${target}`;
    const path = target.split('.');
    if (path.some((step) => step === '')) {
      problems.push({ field: where, message: 'A target is a name or a dotted path of names, none of them empty.' });
      continue;
    }
    const clash =
      path.map((_, i) => path.slice(0, i + 1).join('.')).find((prefix) => taken.has(`=${prefix}`)) ??
      (taken.has(`>${target}`) || taken.has(`=${target}`) ? target : undefined);
    if (clash !== undefined) {
      problems.push({ field: where, message: `The target ${target} collides with the target ${clash}.` });
      continue;
    }
    const read = compileSource(source);
    if (typeof read === 'string') {
      problems.push({ field: where, message: read });
      continue;
    }
    taken.add(`=${target}`);
    for (let i = 1; i < path.length; i++) taken.add(`>${path.slice(0, i).join('.')}`);
    entries.push([path, read]);
  }
  if (problems.length) return { problems };
  const targets = entries.map(([path]) => path.join('.'));
  return { mapping: { targets, map: (scope) => build(entries, scope) }, problems };
}

/** Without an association's mapping (a test send): every customer field under its own name. */
export const CUSTOMER_FIELDS_MAPPING: CompiledMapping = compileMapping(
  JSON.stringify(Object.fromEntries(CUSTOMER_FIELDS.map((name) => [name, name]))),
).mapping!;

/** Whether the mapping has this top-level target (an e-mail destination's `email`). */
export const hasTarget = (mapping: CompiledMapping, target: string): boolean => mapping.targets.includes(target);

function build(entries: readonly [string[], Read][], scope: MappingScope): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [path, read] of entries) {
    let node = data;
    for (const step of path.slice(0, -1)) {
      let next = Object.prototype.hasOwnProperty.call(node, step) ? node[step] : undefined;
      if (next === undefined) {
        next = {};
        define(node, step, next);
      }
      node = next as Record<string, unknown>;
    }
    define(node, path[path.length - 1], read(scope));
  }
  return data;
}

/** `__proto__` is a key like any other. */
const define = (node: object, key: string, value: unknown) =>
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });

/** The reader of one source, or why it is none. */
function compileSource(source: unknown): Read | string {
  if (typeof source === 'string') return fieldReader(source) ?? unknownField(source);
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return NOT_A_SOURCE;
  const keys = Object.keys(source).sort().join(',');
  const given = source as Record<string, unknown>;
  if (keys === 'template') {
    if (typeof given.template !== 'string') return 'A template is a string of Liquid text.';
    const template = parseTemplate(given.template);
    if (template instanceof TemplateError) return `The template does not parse: ${template.message}`;
    return templateReader(template);
  }
  if (keys === 'value') {
    if (nestsDeeperThan(given.value, MAX_DEPTH)) return `A value nests at most ${MAX_DEPTH} levels deep.`;
    const value = given.value;
    return () => value;
  }
  if (keys === 'field' || keys === 'default,field') {
    if (typeof given.field !== 'string') return 'The field of a source is the name of a customer field.';
    const read = fieldReader(given.field);
    if (!read) return unknownField(given.field);
    if (!('default' in given)) return read;
    if (nestsDeeperThan(given.default, MAX_DEPTH)) return `A default nests at most ${MAX_DEPTH} levels deep.`;
    const fallback = given.default;
    return (scope) => {
      const value = read(scope);
      return value === null ? fallback : value;
    };
  }
  return NOT_A_SOURCE;
}

const NOT_A_SOURCE =
  'A source is a customer field name, "attributes.<path>", "campaign.name", "treatment_group.name", ' +
  '{"template": "..."}, {"value": ...} or {"field": "...", "default": ...}.';

const unknownField = (name: string) =>
  `Unknown source "${name}": a customer field (${CUSTOMER_FIELDS.join(', ')}), "attributes.<path>", ` +
  `or one of ${[...CONTEXT_FIELDS.keys()].join(', ')}.`;

/** Reads a named field; missing is null. */
function fieldReader(name: string): Read | undefined {
  if ((CUSTOMER_FIELDS as readonly string[]).includes(name)) {
    const key = name as keyof CustomerScope;
    return (scope) => scope.customer[key] ?? null;
  }
  const context = CONTEXT_FIELDS.get(name);
  if (context) return (scope) => context(scope) ?? null;
  if (!name.startsWith('attributes.')) return undefined;
  const path = name.slice('attributes.'.length).split('.');
  if (path.some((step) => step === '')) return undefined;
  return (scope) => {
    let node = scope.customer.attributes;
    for (const step of path) {
      if (node === null || typeof node !== 'object') return null;
      if (Array.isArray(node) ? !/^\d+$/.test(step) : !Object.prototype.hasOwnProperty.call(node, step)) return null;
      node = (node as Record<string, unknown>)[step];
    }
    if (node === undefined) return null;
    // A value that nests too deep for any receiver is no value: null.
    return nestsDeeperThan(node, MAX_DEPTH) ? null : node;
  };
}

function templateReader(template: Template): Read {
  return (scope) => {
    try {
      return template.render(scope);
    } catch (error) {
      throw new MappingFailed(`a template could not render: ${(error as Error).message}`);
    }
  };
}
