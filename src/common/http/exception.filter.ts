import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  isDatabaseUnavailable,
  isReferencedRowViolation,
  uniqueViolationField,
} from '../persistence/database-errors.js';
import { IdempotentReplay } from '../idempotency/idempotency.js';
import { ApiException, ValidationFailed } from './api-exception.js';

interface ErrorAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

const FIXED_MESSAGES: Record<number, string> = {
  401: 'Unauthenticated.',
  403: 'This action is unauthorized.',
  429: 'Too Many Attempts.',
};

/** Seconds a client should wait before retrying while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The one place where every thrown error becomes an answer: the contract's bodies, the
 * no-cache header, and nothing of the server's internals (details go to the log only).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const answer = this.toAnswer(exception, request);

    if (answer.status >= 500) {
      request.log.error({ err: exception, status: answer.status }, 'request failed');
    }
    if (reply.sent) return;
    if (exception instanceof IdempotentReplay) {
      // The first answer, as it was sent (a string, so the envelope hook leaves it alone).
      reply.status(exception.status).headers(exception.headers).type('application/json; charset=utf-8');
      reply.send(exception.payload);
      return;
    }
    reply.status(answer.status);
    reply.header('cache-control', 'no-cache, private');
    for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value);
    reply.send(answer.body);
  }

  private toAnswer(exception: unknown, request: FastifyRequest): ErrorAnswer {
    if (exception instanceof ApiException) {
      return { status: exception.status, body: exception.body, headers: exception.headers };
    }
    if (exception instanceof ThrottlerException) {
      return { status: 429, body: { message: FIXED_MESSAGES[429] } };
    }
    if (exception instanceof HttpException) {
      return this.fromHttpException(exception, request);
    }
    const duplicateField = uniqueViolationField(exception);
    if (duplicateField !== undefined) {
      // A race lost to a unique index: the same answer as the service's own uniqueness check.
      const field = duplicateField ?? 'id';
      return {
        status: 422,
        body: new ValidationFailed({ [field]: [`The ${field.replace(/_/g, ' ')} has already been taken.`] }).body,
      };
    }
    if (isReferencedRowViolation(exception)) {
      return { status: 409, body: { message: 'The record cannot be deleted because other records depend on it.' } };
    }
    if (isDatabaseUnavailable(exception)) {
      return {
        status: 503,
        body: { message: 'Service Unavailable: the database cannot be reached. Try again shortly.' },
        headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
      };
    }
    return { status: 500, body: { message: 'Server Error' } };
  }

  private fromHttpException(exception: HttpException, request: FastifyRequest): ErrorAnswer {
    const status = exception.getStatus();
    if (FIXED_MESSAGES[status]) return { status, body: { message: FIXED_MESSAGES[status] } };
    if (status === 404 && /^Cannot [A-Z]+ /.test(exception.message)) {
      return { status, body: { message: `The route ${request.url.split('?')[0]} could not be found.` } };
    }
    if (status >= 500) return { status: 500, body: { message: 'Server Error' } };
    const payload = exception.getResponse();
    const message =
      typeof payload === 'string'
        ? payload
        : typeof (payload as { message?: unknown }).message === 'string'
          ? (payload as { message: string }).message
          : exception.message;
    return { status, body: { message } };
  }
}
