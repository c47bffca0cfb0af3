import { applyDecorators, HttpCode } from '@nestjs/common';
import { ApiExtension, ApiResponse } from '@nestjs/swagger';
import { RouteSettings } from './route-config.js';

/**
 * Decorators that switch on a route's runtime behaviour, each named for it; each also marks the
 * operation so that the OpenAPI document describes the behaviour (src/common/openapi/openapi.ts).
 */

/** Marks read by the document builder, which turns each into its headers and answers, then drops it. */
export const CONDITIONAL_EXTENSION = 'x-conditional';
export const IDEMPOTENT_EXTENSION = 'x-idempotent-replays';

/** The status of the route's success answer (201 for a create; 200 for a POST that creates nothing). */
export const SuccessStatus = (status: number) =>
  applyDecorators(HttpCode(status), RouteSettings({ successStatus: status }));

/** The `message` of the route's success envelope; without it a default by verb is used. */
export const ResponseMessage = (message: string) => RouteSettings({ responseMessage: message });

/**
 * Conditional requests on one record (RFC 9110 §13): a GET's answer carries an ETag and answers 304
 * to a matching If-None-Match; a PUT checks If-Match against the record inside its write (412 when
 * it changed) and its answer carries the new ETag; a DELETE checks If-Match the same way.
 */
export const ConditionalRequests = () =>
  applyDecorators(RouteSettings({ conditional: true }), ApiExtension(CONDITIONAL_EXTENSION, true));

/**
 * An authenticated POST whose Idempotency-Key makes it safe to retry (IdempotencyGuard): the first
 * success answer is kept and answered again to a repeat, which changes nothing.
 */
export const IdempotentReplays = () =>
  applyDecorators(RouteSettings({ idempotent: true }), ApiExtension(IDEMPOTENT_EXTENSION, true));

/** A call that does not count against the tenant's daily API quota (DailyQuota): `GET /api/usage`. */
export const NotCounted = () => RouteSettings({ notCounted: true });

/**
 * The path carries a credential (an unsubscribe link's token): the one line a request logs names the
 * route (`/api/unsubscribe/:token`) rather than the path, so that the credential never reaches a log.
 */
export const CredentialInPath = () => RouteSettings({ credentialInPath: true });

/**
 * A JSON body of up to `bytes` on this route instead of MAX_BODY_BYTES (`POST /api/track` takes
 * 5 MiB); a larger one is a 413, documented on the operation.
 */
export const BodyLimit = (bytes: number) =>
  applyDecorators(
    RouteSettings({ maxBodyBytes: bytes }),
    ApiResponse({
      status: 413,
      description: `Body larger than ${bytes / 1024 / 1024} MiB`,
      headers: { 'cache-control': { schema: { type: 'string', example: 'no-cache, private' } } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBodyDto' } } },
    }),
  );
