import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { PUBLIC_EXTENSION } from '../auth/public.decorator.js';
import { ErrorBodyDto, ValidationErrorBodyDto } from './common-responses.js';

type Operation = {
  parameters?: { in: string }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  security?: unknown[];
  [PUBLIC_EXTENSION]?: boolean;
};

const errorRef = { $ref: '#/components/schemas/ErrorBodyDto' };
const error = (description: string, example?: string) => ({
  description,
  headers: { 'cache-control': { schema: { type: 'string', example: 'no-cache, private' } } },
  content: {
    'application/json': { schema: example ? { allOf: [errorRef], example: { message: example } } : errorRef },
  },
});

/**
 * Adds the answers every route of a kind can give (API-CONVENTIONS §5, §9), so that each
 * operation documents its errors without every controller repeating them.
 */
export function addCommonResponses(document: OpenAPIObject): OpenAPIObject {
  for (const pathItem of Object.values(document.paths)) {
    for (const [method, op] of Object.entries(pathItem) as [string, Operation][]) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const add = (status: string, value: unknown) => (op.responses[status] ??= value);
      const isPublic = op[PUBLIC_EXTENSION] === true;
      delete op[PUBLIC_EXTENSION];
      if (!isPublic) {
        op.security = [{ bearer: [] }];
        add('401', error('Missing, invalid, expired or revoked token', 'Unauthenticated.'));
      }
      if (op.requestBody) {
        add('400', error('Malformed JSON body'));
        add('413', error('Body larger than 1 MiB'));
        add('415', error('Body sent with a content type other than JSON'));
      }
      if (op.requestBody || op.parameters?.some((p) => p.in === 'query')) {
        add('422', {
          description: 'Invalid input',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationErrorBodyDto' } } },
        });
      }
      if (op.parameters?.some((p) => p.in === 'path')) add('404', error('Unknown record, or one of another tenant'));
      add('429', {
        ...error('Rate limit exceeded', 'Too Many Attempts.'),
        headers: { 'retry-after': { schema: { type: 'integer' }, description: 'Seconds until the window resets' } },
      });
      add('500', error('Unexpected server error', 'Server Error'));
      add('503', {
        ...error('Database unreachable; the service recovers by itself'),
        headers: { 'retry-after': { schema: { type: 'integer' } } },
      });
    }
  }
  return document;
}

/** Recursively sorts object keys so the checked-in document is stable from run to run. */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    ) as T;
  }
  return value;
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Campaign and Customer Management Service')
    .setDescription(
      'Multi-tenant HTTP/JSON API. Success bodies are `{code, message, data}` (lists add `meta`); ' +
        'errors are `{message}` (422 adds `errors`). Send `Authorization: Bearer <token>` from `POST /api/login`.',
    )
    .setVersion('1.0.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: [ErrorBodyDto, ValidationErrorBodyDto],
    operationIdFactory: (_controllerKey, methodKey) => methodKey,
  });
  return sortKeys(addCommonResponses(document));
}

export function setupOpenApi(app: INestApplication): void {
  SwaggerModule.setup('api/docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'api/docs-json',
    customSiteTitle: 'Campaign Service API',
  });
}
