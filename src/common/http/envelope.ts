import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOfJson, noneMatchHolds } from './conditional.js';
import { WithMeta } from './page.js';

const DEFAULT_MESSAGES: Record<string, string> = {
  GET: 'Retrieved successfully.',
  POST: 'Created successfully.',
  PUT: 'Updated successfully.',
  PATCH: 'Updated successfully.',
  DELETE: 'Deleted successfully.',
};

/**
 * Wraps every success answer as `{code, message, data}` (lists add `meta`), API-CONVENTIONS §2.
 * A fastify preSerialization hook rather than a Nest interceptor: any Nest interceptor costs
 * about 80 µs per request here (docs/performance.md). Error answers (status 400 and up) are
 * the exception filter's bodies and pass untouched; so do strings, buffers and streams (the
 * OpenAPI document, exports), which fastify never hands to this hook.
 */
export function envelope(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload?: unknown) => void,
): void {
  const code = reply.statusCode;
  if (code >= 400) return done(null, payload);
  const message = envelopeMessage(request);
  if (payload instanceof WithMeta) return done(null, { code, message, data: payload.data, meta: payload.meta });
  if (request.routeOptions.config?.conditional && request.method !== 'DELETE') {
    // The record is serialised once, for its tag and for the answer.
    const data = JSON.stringify(payload ?? null);
    const etag = etagOfJson(data);
    reply.header('etag', etag);
    if (request.method === 'GET' && noneMatchHolds(request.headers['if-none-match'], etag)) {
      // The body is dropped by the onSend hook (notModified).
      reply.code(304);
      return done(null, null);
    }
    reply.serializer(asSerialized);
    return done(null, `{"code":${code},"message":${JSON.stringify(message)},"data":${data}}`);
  }
  done(null, { code, message, data: payload ?? null });
}

const asSerialized = (text: unknown) => text as string;

/** The `message` of the route's success envelope. */
export function envelopeMessage(request: FastifyRequest): string {
  return request.routeOptions.config?.responseMessage ?? DEFAULT_MESSAGES[request.method] ?? 'OK';
}

/** onSend: a 304 has no body (nor a content type). */
export function notModified(reply: FastifyReply, payload: unknown): unknown {
  if (reply.statusCode !== 304) return payload;
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  return null;
}
