import type { LoggerService } from '@nestjs/common';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { AppConfig } from '../config/app-config.js';

/** Lines gather until this many bytes are waiting (about 16 request lines)... */
const LOG_BUFFER_BYTES = 4096;
/** ...or this long has passed, then go out in one write. */
const LOG_FLUSH_MS = 1000;

/**
 * JSON lines on stdout (or `destination`). Request lines carry `reqId`: fastify binds it on each
 * request's logger. Written asynchronously and together: a write per request line cost 2 to 3 % of
 * a GET's CPU (docs/performance.md), so lines wait for 4 KB or a second. pino writes what is
 * waiting when the process exits (a SIGKILL loses at most that second).
 */
export function createLogger(config: AppConfig, destination?: DestinationStream): Logger {
  const options = { level: config.logLevel, base: undefined };
  return pino(
    options,
    destination ?? pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS }),
  );
}

/**
 * Fastify's request logging, reduced to one line per answered request: request id, tenant, user,
 * method, path, status and duration. Never headers or bodies, so no secret can reach the log.
 */
export class RequestLog extends LogController {
  incomingRequest(): void {}

  requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const line = {
      tenant_id: request.auth?.tenantId ?? request.user?.tenant_id,
      user_id: request.user?.id,
      method: request.method,
      // A path that carries a credential (an unsubscribe link's token) is logged as its route.
      url: request.routeOptions.config?.credentialInPath ? request.routeOptions.url : request.url,
      status,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      err: error ?? undefined,
    };
    if (error || status >= 500) request.log.error(line, 'request failed');
    else request.log.info(line, 'request completed');
  }
}

/** Nest's own messages (start-up, errors outside a request) through the same pino logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }

  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, message instanceof Error ? message.message : String(message));
  }

  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }

  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }

  fatal(message: unknown, context?: string): void {
    this.logger.fatal({ context }, String(message));
  }
}
