import type { INestApplication } from '@nestjs/common';
import { buildOpenApiDocument } from '../../../src/common/openapi/openapi.js';

/** The parts of an OpenAPI schema object the generators read. */
export interface Schema {
  type?: string;
  format?: string;
  enum?: unknown[];
  pattern?: string;
  description?: string;
  example?: unknown;
  nullable?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
}

/** One POST or PUT operation of the document, its request and answer schemas resolved. */
export interface WriteOperation {
  method: 'post' | 'put';
  /** The path as documented, `/api/campaigns/{campaign_id}/kpis`. */
  template: string;
  operationId: string;
  isPublic: boolean;
  /** The request body's schema ($refs resolved); undefined when the operation takes no body (logout). */
  body?: Schema;
  /** False for an operation whose body is not JSON (a CSV upload): every JSON body is a 415 there. */
  takesJson: boolean;
  /** The schema of `data` in the 2xx answer ($refs resolved). */
  answer?: Schema;
}

type Document = ReturnType<typeof buildOpenApiDocument>;
interface RawOperation {
  operationId: string;
  security?: unknown[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

/** Resolves every `$ref` of a schema (the document's schemas are not recursive). */
export function resolveSchema(document: Document, schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = document.components?.schemas?.[name] as Schema | undefined;
    if (!target) throw new Error(`unknown schema ${schema.$ref}`);
    const { $ref: _ref, ...rest } = schema;
    return resolveSchema(document, { ...target, ...rest });
  }
  // A described reference (`allOf: [$ref]` beside a description: a nested object) is that schema.
  if (schema.allOf?.length === 1) {
    const { allOf, ...rest } = schema;
    return resolveSchema(document, { ...allOf[0], ...rest });
  }
  const out: Schema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([key, value]) => [key, resolveSchema(document, value)!]),
    );
  }
  if (schema.items) out.items = resolveSchema(document, schema.items);
  // A date field documents its two accepted forms (`date`, `date-time`); the generators treat it as one.
  if (out.anyOf?.some((branch) => branch.format === 'date-time')) {
    delete out.anyOf;
    out.type = 'string';
    out.format = 'date-time';
  }
  // A nullable union (an id) carries `nullable` in a branch (OpenAPI 3.0 wants it beside a `type`).
  if (out.oneOf?.some((branch) => branch.nullable)) out.nullable = true;
  return out;
}

/** Every POST and PUT operation of the app's OpenAPI document, in document order. */
export function writeOperations(app: INestApplication): WriteOperation[] {
  const document = buildOpenApiDocument(app);
  const operations: WriteOperation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of ['post', 'put'] as const) {
      const op = (item as Record<string, RawOperation | undefined>)[method];
      if (!op) continue;
      const success = op.responses['201'] ?? op.responses['200'];
      const answer = success?.content?.['application/json']?.schema?.properties?.data;
      operations.push({
        method,
        template,
        operationId: op.operationId,
        isPublic: op.security === undefined || op.security.length === 0,
        takesJson: !op.requestBody?.content || 'application/json' in op.requestBody.content,
        body: resolveSchema(document, op.requestBody?.content?.['application/json']?.schema),
        answer: resolveSchema(document, answer),
      });
    }
  }
  return operations;
}

/** A JSON-string field: a string that must hold JSON text (its documented description says so). */
export const isJsonStringSchema = (schema: Schema) =>
  schema.type === 'string' && /JSON text/i.test(schema.description ?? '');

/** An id reference: a positive integer or a digit string. */
export const isIdSchema = (schema: Schema) =>
  !!schema.oneOf?.some((s) => s.type === 'integer') && !!schema.oneOf?.some((s) => s.type === 'string');
