import type { AuthContext } from '../auth/auth-context.js';
import type { AuthUser } from '../auth/auth-user.js';
import type { OperationLabels } from '../metrics/metrics.js';
import type { ApiException } from './api-exception.js';

/**
 * The state this service keeps on a request, declared once. Each field is set in one place:
 * - `id` (fastify's own): the request id, from `genReqId` (request-id.ts), in app.factory.ts;
 * - `bodyError`: the content-type parser, when a body cannot be accepted (body-parsing.ts);
 * - `user`: passport-jwt, through AuthenticationGuard, once the token is verified;
 * - `auth`: TenantGuard: who acts, in which tenant, the If-Match of a conditional write and the
 *   request id; IdempotencyGuard adds `auth.idempotency`, the claim of the request's Idempotency-Key.
 */
declare module 'fastify' {
  interface FastifyRequest {
    bodyError?: ApiException;
    user?: AuthUser;
    auth?: AuthContext;
  }

  /** What a route declares about its runtime behaviour (route-behaviour.ts), read by the pipeline. */
  interface FastifyContextConfig {
    /** The `message` of the route's success envelope; a default by verb otherwise. */
    responseMessage?: string;
    /** The status of the route's success answer (SuccessStatus). */
    successStatus?: number;
    /** Conditional requests (ConditionalRequests): ETag and If-None-Match on GET, If-Match on PUT and DELETE. */
    conditional?: boolean;
    /** Idempotency-Key is claimed, and a repeat answered from the first answer (IdempotentReplays). */
    idempotent?: boolean;
    /** The one media type the route takes as a stream, handed to the handler unread (StreamedBody). */
    streamedBody?: string;
    /** The path carries a credential (CredentialInPath): the request log names the route instead. */
    credentialInPath?: boolean;
    /** Any body of any type is read and dropped unparsed (IgnoredBody: the one-click unsubscribe's form post). */
    ignoredBody?: boolean;
    /** Not a call of the daily API quota (NotCounted: `GET /api/usage`, which shows it). */
    notCounted?: boolean;
    /** The controller method's name, which is the route's operation id (nameOperations, when metrics are on). */
    operationId?: string;
    /** The route's label sets in the request metrics (labelOperations in common/metrics, when metrics are on). */
    operationLabels?: OperationLabels;
    /** The largest JSON body the route takes, in bytes, when not MAX_BODY_BYTES (BodyLimit). */
    maxBodyBytes?: number;
  }
}
