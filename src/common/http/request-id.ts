import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Client ids are kept when they are short and safe enough to be the activity log's batch id (char(36)). */
const SAFE_REQUEST_ID = /^[\w.:-]{1,36}$/;

/**
 * The request id: a well-formed incoming `x-request-id`, or a new UUID. The same id is on the
 * answer's `x-request-id`, on every log line of the request and on the activity-log entries it
 * writes (`batch_uuid`).
 */
export function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** `@RequestId() id: string`: the id of the current request (public routes have no AuthContext to carry it). */
export const RequestId = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string => context.switchToHttp().getRequest<{ id: string }>().id,
);
