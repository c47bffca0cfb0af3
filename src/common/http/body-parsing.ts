import { isUtf8 } from 'node:buffer';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiException, BadRequest } from './api-exception.js';
import { RouteSettings } from './route-config.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of arrays and objects a JSON body may have (the deepest body the API takes has 3). */
export const MAX_BODY_DEPTH = 32;

/**
 * A route whose body is read by the handler as a stream of `mediaType` (uploads), not parsed as JSON.
 */
export const StreamedBody = (mediaType: string, config: { responseMessage?: string } = {}) =>
  RouteSettings({ ...config, streamedBody: mediaType });

/**
 * A route that takes whatever body it is sent and reads none of it (RFC 8058's one-click unsubscribe
 * POSTs `List-Unsubscribe=One-Click` as a form): read to its end (at most MAX_BODY_BYTES), dropped.
 */
export const IgnoredBody = () => RouteSettings({ ignoredBody: true });

const mediaTypeOf = (type: string) => type.split(';')[0].trim().toLowerCase();

const isJsonType = (type: string) => /^application\/([\w.+-]+\+)?json\b/i.test(type);
const charsetOf = (type: string) => /;\s*charset\s*=\s*"?([\w-]+)"?/i.exec(type)?.[1]?.toLowerCase();

/** True when arrays and objects nest deeper than `limit` (checked without recursion). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** The body as the handlers see it, or the error to answer once the route is known. */
export function parseJsonBody(text: string): { body: Record<string, unknown> } | { error: ApiException } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: new BadRequest('The request body is not valid JSON.') };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { error: new BadRequest('The request body must be a JSON object.') };
  }
  if (nestsDeeperThan(parsed, MAX_BODY_DEPTH)) {
    return { error: new BadRequest(`The request body nests deeper than ${MAX_BODY_DEPTH} levels.`) };
  }
  return { body: parsed as Record<string, unknown> };
}

/**
 * Reads every request body. A body it cannot accept (not JSON, too large, malformed, too deep)
 * is remembered instead of answered here, so the answer goes through the same guards
 * (rate-limit headers, authentication) and the same exception filter as every other error.
 * The whole body is always read, so the connection stays usable.
 */
export function registerBodyParsing(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request: FastifyRequest, payload, done) => {
    const type = request.headers['content-type'] ?? '';
    const remember = (error: ApiException) => {
      request.bodyError = error;
      return {};
    };
    let refused: ApiException | undefined;
    const streamed = request.routeOptions.config?.streamedBody;
    const ignored = request.routeOptions.config?.ignoredBody === true;
    if (ignored) {
      // Read below, and dropped.
    } else if (streamed) {
      if (mediaTypeOf(type) === streamed && ['utf-8', 'utf8', undefined].includes(charsetOf(type))) {
        return done(null, payload);
      }
      refused = new ApiException(415, { message: `Unsupported Media Type: send the body as UTF-8 ${streamed}.` });
    } else if (!isJsonType(type)) {
      refused = new ApiException(415, { message: 'Unsupported Media Type: send the body as application/json.' });
    } else if (!['utf-8', 'utf8', undefined].includes(charsetOf(type))) {
      refused = new ApiException(415, { message: 'The request body must be UTF-8 JSON.' });
    }
    const chunks: Buffer[] = [];
    const limit = request.routeOptions.config?.maxBodyBytes ?? MAX_BODY_BYTES;
    let size = 0;
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refused) return;
      if (size > limit) {
        refused = new ApiException(413, { message: `The request body is larger than ${limit / 1024 / 1024} MiB.` });
        chunks.length = 0;
        return;
      }
      if (!ignored) chunks.push(chunk);
    });
    payload.on('error', (error) => done(error, undefined));
    payload.on('end', () => {
      if (refused) return done(null, remember(refused));
      if (ignored) return done(null, {});
      // A JSON content type with an empty body is a request without a body.
      if (size === 0) return done(null, {});
      const bytes = Buffer.concat(chunks, size);
      // Decoding would turn bytes that are not UTF-8 into U+FFFD silently: a body that is not UTF-8 is malformed.
      if (!isUtf8(bytes)) return done(null, remember(new BadRequest('The request body is not valid UTF-8.')));
      const parsed = parseJsonBody(bytes.toString('utf8'));
      done(null, 'error' in parsed ? remember(parsed.error) : parsed.body);
    });
  });
}

/** Raises the remembered body error once the request has passed rate limiting, the daily quota and access. */
@Injectable()
export class BodyErrorGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const error = context.switchToHttp().getRequest<FastifyRequest>().bodyError;
    if (error) throw error;
    return true;
  }
}
