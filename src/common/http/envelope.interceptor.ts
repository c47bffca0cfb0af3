import { Injectable, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { map, type Observable } from 'rxjs';
import { Page } from './page.js';

const RESPONSE_MESSAGE = 'response_message';

/** The `message` of a route's success envelope; without it a default by verb is used. */
export const ResponseMessage = (message: string) => SetMetadata(RESPONSE_MESSAGE, message);

const DEFAULT_MESSAGES: Record<string, string> = {
  GET: 'Retrieved successfully.',
  POST: 'Created successfully.',
  PUT: 'Updated successfully.',
  PATCH: 'Updated successfully.',
  DELETE: 'Deleted successfully.',
};

/** Wraps every success answer as `{code, message, data}` (lists add `meta`), API-CONVENTIONS §2. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const message =
      this.reflector.getAllAndOverride<string | undefined>(RESPONSE_MESSAGE, [
        context.getHandler(),
        context.getClass(),
      ]) ??
      DEFAULT_MESSAGES[request.method] ??
      'OK';
    return next.handle().pipe(
      map((result) => {
        const code = response.statusCode;
        if (result instanceof Page) return { code, message, data: result.data, meta: result.meta };
        return { code, message, data: result ?? null };
      }),
    );
  }
}
