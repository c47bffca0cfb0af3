import { HttpException, type INestApplication } from '@nestjs/common';
import type { FastifyError, FastifyInstance } from 'fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { PUBLIC_EXTENSION } from '../auth/public.decorator.js';
import { AUTH_RATE_LIMITED_EXTENSION } from '../throttling/auth-rate-limit.js';
import { CONDITIONAL_EXTENSION, IDEMPOTENT_EXTENSION } from '../http/route-behaviour.js';
import { ErrorBodyDto, ValidationErrorBodyDto } from './common-responses.js';

type Operation = {
  parameters?: {
    in: string;
    name?: string;
    example?: unknown;
    schema?: { example?: unknown; [key: string]: unknown };
  }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  security?: unknown[];
  [PUBLIC_EXTENSION]?: boolean;
  [AUTH_RATE_LIMITED_EXTENSION]?: boolean;
  [CONDITIONAL_EXTENSION]?: boolean;
  [IDEMPOTENT_EXTENSION]?: boolean;
};

const errorRef = { $ref: '#/components/schemas/ErrorBodyDto' };
const invalidInput = () => ({
  description: 'Invalid input',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationErrorBodyDto' } } },
});
/** Every error answer carries it (API-CONVENTIONS §5). */
const CACHE_CONTROL = { schema: { type: 'string', example: 'no-cache, private' } };
const error = (description: string, example?: string) => ({
  description,
  headers: { 'cache-control': CACHE_CONTROL },
  content: {
    'application/json': { schema: example ? { allOf: [errorRef], example: { message: example } } : errorRef },
  },
});

/** Headers on every answer of a known route (API-CONVENTIONS §9), declared once. */
export const COMMON_HEADERS: Record<string, { description: string; schema: Record<string, unknown> }> = {
  'x-request-id': { description: 'The request id (also on every log line of the request)', schema: { type: 'string' } },
  'x-ratelimit-limit': { description: 'Requests allowed per window', schema: { type: 'integer' } },
  'x-ratelimit-remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'x-ratelimit-reset': { description: 'Seconds until the current window resets', schema: { type: 'integer' } },
  RateLimit: {
    description:
      'IETF draft-ietf-httpapi-ratelimit-headers: what is left of every policy that applied, nearest exhaustion ' +
      'first (fewest requests left), e.g. `"auth";r=4;t=60, "default";r=59;t=42` (r: requests remaining, ' +
      't: seconds until reset); each item tells the budget of its x-ratelimit-* fields.',
    schema: { type: 'string', example: '"default";r=59;t=42' },
  },
  'RateLimit-Policy': {
    description:
      'IETF draft: every policy that applied, e.g. `"default";q=60;w=60, "auth";q=5;w=60` (q: quota, w: window in seconds).',
    schema: { type: 'string', example: '"default";q=60;w=60' },
  },
};

/** The login limiter's own counters (§9: 5 per minute per IP and e-mail), beside the default limiter's. */
const AUTH_LIMIT_HEADERS = {
  'x-ratelimit-limit-auth': {
    description: 'Attempts allowed per window for this IP and e-mail',
    schema: { type: 'integer' },
  },
  'x-ratelimit-remaining-auth': { description: 'Attempts left in the current window', schema: { type: 'integer' } },
  'x-ratelimit-reset-auth': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
};

const commonHeaderRefs = () =>
  Object.fromEntries(Object.keys(COMMON_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/**
 * Adds the answers every route of a kind can give (API-CONVENTIONS §5, §9), so that each
 * operation documents its errors without every controller repeating them.
 */
export function addCommonResponses(document: OpenAPIObject): OpenAPIObject {
  for (const pathItem of Object.values(document.paths)) {
    for (const [method, op] of Object.entries(pathItem) as [string, Operation][]) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      // "Try it out" fills parameters with their examples: a list would answer filtered by an example
      // value (one customer named by an example e-mail). Filters start empty.
      for (const parameter of op.parameters ?? []) {
        if (parameter.in !== 'query') continue;
        delete parameter.example;
        if (parameter.schema) delete parameter.schema.example;
      }
      const add = (status: string, value: unknown) => (op.responses[status] ??= value);
      const isPublic = op[PUBLIC_EXTENSION] === true;
      const authLimited = op[AUTH_RATE_LIMITED_EXTENSION] === true;
      const conditional = op[CONDITIONAL_EXTENSION] === true;
      const idempotent = op[IDEMPOTENT_EXTENSION] === true;
      delete op[PUBLIC_EXTENSION];
      delete op[AUTH_RATE_LIMITED_EXTENSION];
      delete op[CONDITIONAL_EXTENSION];
      delete op[IDEMPOTENT_EXTENSION];
      if (conditional) addConditional(op, method);
      if (idempotent) addIdempotency(op);
      // Public on purpose: an empty requirement overrides any default (redocly security-defined).
      if (isPublic) op.security = [];
      if (!isPublic) {
        op.security = [{ bearer: [] }];
        add('401', error('Missing, invalid, expired or revoked token', 'Unauthenticated.'));
      }
      if (op.requestBody) {
        add('400', error('Malformed JSON body'));
        add('413', error('Body larger than 1 MiB'));
        add('415', error('Body sent with a content type other than JSON'));
      }
      if (op.requestBody || op.parameters?.some((p) => p.in === 'query')) add('422', invalidInput());
      if (op.parameters?.some((p) => p.in === 'path')) add('404', error('Unknown record, or one of another tenant'));
      if (!isPublic) {
        (op.parameters ??= []).push(TENANT_PARAMETER);
        add('404', error('X-Tenant-ID (super-admin) names no tenant'));
      }
      add('429', {
        ...error('Rate limit exceeded', 'Too Many Attempts.'),
        headers: { 'retry-after': { schema: { type: 'integer' }, description: 'Seconds until the window resets' } },
      });
      add('500', error('Unexpected server error', 'Server Error'));
      add('503', {
        ...error('Database unreachable; the service recovers by itself'),
        headers: { 'retry-after': { schema: { type: 'integer' } } },
      });
      if (method === 'delete') add('409', error('Refused: other records depend on this one'));
      for (const [status, response] of Object.entries(op.responses) as [
        string,
        { headers?: Record<string, unknown> },
      ][]) {
        response.headers = { ...commonHeaderRefs(), ...(authLimited ? AUTH_LIMIT_HEADERS : {}), ...response.headers };
        if (Number(status) >= 400) response.headers['cache-control'] ??= CACHE_CONTROL;
        if (authLimited && status === '429') {
          response.headers['retry-after-auth'] = {
            description: 'Seconds until the login limiter lets this IP and e-mail try again',
            schema: { type: 'integer' },
          };
        }
      }
    }
  }
  document.components = { ...document.components, headers: COMMON_HEADERS };
  return document;
}

const REPLAYED = {
  'idempotent-replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** How a super-admin acts inside another tenant (API-CONVENTIONS §8; TenantGuard). */
const TENANT_PARAMETER = {
  name: 'X-Tenant-ID',
  in: 'header',
  required: false,
  description:
    "Super-admin only: act inside this tenant (ignored for everyone else). A tenant that doesn't exist is a 404.",
  schema: { type: 'integer', minimum: 1 },
};

const ETAG_HEADER = {
  ETag: {
    description: 'Tag of the record as answered; changes whenever the record (or what it embeds) changes.',
    schema: { type: 'string' },
  },
};

/** Conditional requests of a route (ConditionalRequests): what they mean for its verb. */
function addConditional(op: Operation, method: string): void {
  const success = op.responses['200'] as { headers?: Record<string, unknown> } | undefined;
  if (method !== 'delete' && success) success.headers = { ...success.headers, ...ETAG_HEADER };
  if (method === 'get') {
    (op.parameters ??= []).push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'ETag(s) of a copy the client holds: 304 without a body while the record still has one of them.',
      schema: { type: 'string' },
    } as Parameter);
    op.responses['304'] ??= { description: 'Not Modified: the copy the client holds is current', headers: ETAG_HEADER };
    return;
  }
  (op.parameters ??= []).push({
    name: 'If-Match',
    in: 'header',
    required: false,
    description: `ETag of the record as the client last read it: ${method === 'put' ? 'updated' : 'deleted'} only while the record still has it (412 otherwise).`,
    schema: { type: 'string' },
  } as Parameter);
  op.responses['412'] ??= error('Precondition Failed: the record changed since the client read it (If-Match)');
}

type Parameter = Operation['parameters'] extends (infer P)[] | undefined ? P : never;

/** Idempotency-Key on an authenticated POST (Stripe's model, see IdempotencyGuard). */
function addIdempotency(op: Operation): void {
  (op.parameters ??= []).push({
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes the request safe to retry: 1 to 255 printable ASCII characters, unique per caller. The first ' +
      'success answer is kept 24 hours; a repeat with the same key and request answers it again (with ' +
      '`idempotent-replayed: true`) and changes nothing. The same key with another request is a 422 on ' +
      '`Idempotency-Key`; a repeat while the first is still running is a 409. Error answers are not kept.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  } as Operation['parameters'] extends (infer P)[] | undefined ? P : never);
  for (const [status, response] of Object.entries(op.responses)) {
    if (/^2\d\d$/.test(status)) {
      const answer = response as { headers?: Record<string, unknown> };
      answer.headers = { ...answer.headers, ...REPLAYED };
    }
  }
  op.responses['409'] ??= error('A request with the same Idempotency-Key is still being processed');
  op.responses['422'] ??= invalidInput();
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

/** The order the docs show the tags in: the session first, then the domain, then admin and diagnostics. */
export const TAG_ORDER: [string, string][] = [
  ['Session', 'Sign in (a bearer token per device), the current user, their devices, password reset'],
  ['Marketing programs', 'Programs contain campaign groups'],
  ['Campaign groups', 'Groups of campaigns within a program'],
  ['Campaigns', 'Campaigns within a group'],
  ['Treatment groups', "Splits of a campaign's audience"],
  ['Treatment assignment', 'Which treatment group a customer falls in'],
  ['KPIs and customer goals', 'What a campaign measures'],
  ['Campaign runs', 'Runs of a campaign: launch, steer, recipients, files and schedules'],
  ['Campaign results', 'Conversions per treatment group against control, with their statistics, and measured KPIs'],
  ['Audiences', 'Audiences with rules, sub-audiences, campaign audiences'],
  ['Customers', 'Customers, batch upserts and exports; merge, erasure, the suppression list and the hand-over'],
  ['Customer imports', 'CSV import jobs'],
  ['Customer events', 'What customers do: tracking, their events and timelines, event names'],
  ['Destinations', 'Delivery targets and campaign destinations'],
  ['Validation rules', 'Validation rules and their campaign links'],
  ['Mail', 'Sending e-mail'],
  ['Events', 'The change feed: every change of every record, in order'],
  ['Webhooks', 'Endpoints that receive the change feed, and their delivery log'],
  ['Usage', "The tenant's plan and what it uses"],
  ['Admin: users', "Users of the caller's tenant"],
  ['Admin: tenants', 'Tenants (super-admin)'],
  ['Admin: roles and permissions', 'Roles and the permissions they grant'],
  ['Admin: activity log', 'Who changed what'],
  ['Diagnostics', 'Database checks and schema metadata (public)'],
];

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder();
  for (const [name, description] of TAG_ORDER) builder.addTag(name, description);
  const config = builder
    .setTitle('Campaign and Customer Management Service')
    .setDescription(
      'Multi-tenant HTTP/JSON API. Success bodies are `{code, message, data}` (lists add `meta`); ' +
        'errors are `{message}` (422 adds `errors`). Send `Authorization: Bearer <token>` from `POST /api/login`.',
    )
    .setVersion('1.0.0')
    // OpenAPI 3.0 names a license by `url` (`identifier` is 3.1). There is no license text but the
    // statement that the API is proprietary, so the link is this documentation, relative to the server.
    .setLicense('Proprietary', '/api/docs')
    .addServer('/', 'The server that serves this document')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: [ErrorBodyDto, ValidationErrorBodyDto],
    operationIdFactory: (_controllerKey, methodKey) => methodKey,
  });
  return sortKeys(addCommonResponses(document));
}

export function setupOpenApi(app: INestApplication): void {
  answerAssetRefusals(app.getHttpAdapter().getInstance() as FastifyInstance, '/api/docs/');
  SwaggerModule.setup('api/docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'api/docs-json',
    customSiteTitle: 'Campaign Service API',
    // The token survives a reload of the page.
    swaggerOptions: { persistAuthorization: true },
  });
}

/**
 * The docs' assets are files that SwaggerModule serves through @fastify/static (`/api/docs/*`). Its
 * file server refuses a path that leaves the assets' folder (`..`, `%2e%2e`, `..\\`) with a 403 error, a
 * NUL byte with a 400, a failed precondition or range with a 412 / 416, and hands each to the route's
 * error handler as a plain error, which the exception filter (HttpException or 500) answered 500. A path
 * the file server refuses names no asset: 404 like any unknown route (no file is read either way); a
 * 412 or 416 keeps its status, in the conventions' body.
 */
function answerAssetRefusals(fastify: FastifyInstance, prefix: string): void {
  fastify.addHook('onRoute', (route) => {
    const handleError = route.errorHandler;
    if (!route.url?.startsWith(prefix) || !route.url.endsWith('*') || !handleError) return;
    route.errorHandler = function (this: FastifyInstance, error: FastifyError, request, reply) {
      const status = error.statusCode ?? 500;
      if (status === 400 || status === 403) return reply.callNotFound();
      const known = status >= 400 && status < 500 ? new HttpException(error.message, status) : error;
      return handleError.call(this, known as FastifyError, request, reply);
    };
  });
}
