import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';

/**
 * Every answer the e2e suite receives is checked against the checked-in OpenAPI document (which
 * the drift test keeps equal to the code): its status is documented for the operation, its JSON
 * body matches that response's schema (objects allow no undocumented member), and every header
 * the service sets is declared. A mismatch fails the test that received the answer; with
 * OPENAPI_RESPONSE_REPORT=<file> it is written there instead (to survey a whole run).
 */

type Json = Record<string, unknown>;
interface Operation {
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema?: Json }> }>;
}

/** Headers of the transport (HTTP, CORS, fastify), not of the API. */
const TRANSPORT_HEADERS = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'vary',
]);

let loaded:
  | {
      document: Json & { paths: Record<string, Record<string, Operation>> };
      ajv: Ajv;
      routes: { method: string; pattern: RegExp; template: string; op: Operation }[];
      validators: Map<string, ValidateFunction>;
    }
  | undefined;

/** OpenAPI 3.0 → JSON Schema: `nullable` becomes a null alternative, objects become closed. */
function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const { nullable, example: _example, ...rest } = schema as Json;
  const out: Json = {};
  for (const [key, value] of Object.entries(rest)) {
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, toJsonSchema(v)]))
        : toJsonSchema(value);
  }
  if (typeof out.$ref === 'string') out.$ref = `openapi${out.$ref}`;
  if (out.properties && out.additionalProperties === undefined && !out.allOf) out.additionalProperties = false;
  return nullable ? { anyOf: [{ type: 'null' }, out] } : out;
}

function load() {
  if (loaded) return loaded;
  const document = JSON.parse(readFileSync(join(__dirname, '../../openapi.json'), 'utf8'));
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: toJsonSchema(document.components) }, 'openapi');
  const routes = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(item))
      routes.push({ method: method.toUpperCase(), pattern, template, op });
  }
  // Literal paths before templated ones (`/customers/export` before `/customers/{id}`).
  routes.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  loaded = { document, ajv, routes, validators: new Map() };
  return loaded;
}

/** What is wrong with an answer, by the document; empty when it conforms (or its route is not documented). */
export function responseProblems(method: string, url: string, res: Response): string[] {
  const { ajv, routes, validators } = load();
  const path = url.replace(/^https?:\/\/[^/]+/, '').split('?')[0];
  // A path that does not percent-decode is no URL of any operation: the router refuses it first.
  if (!decodes(path)) return [];
  const route = routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(path));
  // Routes outside the document (unknown routes, /api/docs) are not the document's to check.
  if (!route) return [];
  const where = `${method.toUpperCase()} ${route.template} → ${res.status}`;
  const answer = route.op.responses[String(res.status)] ?? route.op.responses.default;
  if (!answer) return [`${where}: status not documented`];
  const problems: string[] = [];

  const declared = new Set(Object.keys(answer.headers ?? {}).map((h) => h.toLowerCase()));
  for (const header of Object.keys(res.headers)) {
    if (TRANSPORT_HEADERS.has(header) || header.startsWith('access-control-')) continue;
    if (!declared.has(header)) problems.push(`${where}: header ${header} not declared`);
  }

  const type = String(res.headers['content-type'] ?? '').split(';')[0];
  if (res.status === 304 || res.status === 204) return problems;
  const media = answer.content?.[type];
  if (!media) {
    if (answer.content || type) problems.push(`${where}: content type ${type || '(none)'} not documented`);
    return problems;
  }
  if (type === 'application/json' && media.schema) {
    const key = `${route.method} ${route.template} ${res.status}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(toJsonSchema(media.schema) as Json);
      validators.set(key, validate);
    }
    // The body as sent (a test may have parsed it its own way).
    const raw: unknown = typeof res.text === 'string' && res.text !== '' ? res.text : res.body;
    const body: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
    if (!validate(body)) {
      for (const error of validate.errors ?? []) {
        const extra = (error.params as { additionalProperty?: string }).additionalProperty;
        problems.push(`${where}: body${error.instancePath} ${error.message}${extra ? ` (${extra})` : ''}`);
      }
    }
  }
  return problems;
}

/** Checks an answer; throws (fails the test) unless OPENAPI_RESPONSE_REPORT names a file to collect into. */
export function checkResponse(method: string, url: string, res: Response): void {
  const problems = responseProblems(method, url, res);
  if (problems.length === 0) return;
  const report = process.env.OPENAPI_RESPONSE_REPORT;
  if (report) {
    appendFileSync(report, problems.map((p) => `${p}\n`).join(''));
    return;
  }
  throw new Error(`The answer does not match openapi.json:\n${problems.join('\n')}`);
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
