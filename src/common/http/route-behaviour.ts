import { applyDecorators, HttpCode } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { RouteSettings } from './route-config.js';

/**
 * Decorators that switch on a route's runtime behaviour, each named for it; each also marks the
 * operation so that the OpenAPI document describes the behaviour (src/common/openapi/openapi.ts).
 */

/** Marks read by the document builder, which turns each into its headers and answers, then drops it. */
export const CONDITIONAL_EXTENSION = 'x-conditional';
export const IDEMPOTENT_EXTENSION = 'x-idempotent-replays';
export type ConditionalKind = 'read' | 'update' | 'delete';

/** The status of the route's success answer (201 for a create; 200 for a POST that creates nothing). */
export const SuccessStatus = (status: number) =>
  applyDecorators(HttpCode(status), RouteSettings({ successStatus: status }));

/** The `message` of the route's success envelope; without it a default by verb is used. */
export const ResponseMessage = (message: string) => RouteSettings({ responseMessage: message });

/** GET of one record: its answer carries an ETag; If-None-Match answers 304 while the client's copy is current. */
export const ConditionalRead = () =>
  applyDecorators(RouteSettings({ etag: true }), ApiExtension(CONDITIONAL_EXTENSION, 'read'));

/** PUT of one record: If-Match answers 412 when the record changed since the client read it; the answer carries an ETag. */
export const ConditionalUpdate = () =>
  applyDecorators(RouteSettings({ etag: true, ifMatch: true }), ApiExtension(CONDITIONAL_EXTENSION, 'update'));

/** DELETE of one record: If-Match answers 412 when the record changed since the client read it. */
export const ConditionalDelete = () =>
  applyDecorators(RouteSettings({ ifMatch: true }), ApiExtension(CONDITIONAL_EXTENSION, 'delete'));

/**
 * An authenticated POST whose Idempotency-Key makes it safe to retry (IdempotencyGuard): the first
 * success answer is kept and answered again to a repeat, which changes nothing.
 */
export const IdempotentReplays = () =>
  applyDecorators(RouteSettings({ idempotent: true }), ApiExtension(IDEMPOTENT_EXTENSION, true));
