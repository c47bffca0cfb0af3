import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { ApiException, BadRequest } from './api-exception.js';

export const MAX_BODY_BYTES = 1024 * 1024;

declare module 'express' {
  interface Request {
    /** A body that could not be accepted; raised once the route is known (see BodyErrorGuard). */
    bodyError?: ApiException;
  }
}

const jsonParser = express.json({ limit: MAX_BODY_BYTES, strict: false, type: () => true });

const isJsonType = (type: string | undefined) => !!type && /^application\/([\w.+-]+\+)?json\b/i.test(type);

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function toApiException(error: { type?: string; status?: number }): ApiException {
  if (error.type === 'entity.too.large') {
    return new ApiException(413, { message: `The request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB.` });
  }
  if (error.type === 'entity.parse.failed') return new BadRequest('The request body is not valid JSON.');
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return new ApiException(415, { message: 'The request body must be UTF-8 JSON.' });
  }
  return new BadRequest('The request body could not be read.');
}

/**
 * Parses JSON bodies. A body it cannot accept (malformed, too large, not JSON) is remembered
 * instead of answered here, so the answer goes through the same guards (rate-limit headers,
 * authentication) and the same exception filter as every other error.
 */
export const bodyParsingMiddleware: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
  if (!hasBody(req)) {
    req.body ??= {};
    return next();
  }
  if (!isJsonType(req.headers['content-type'])) {
    req.bodyError = new ApiException(415, { message: 'Unsupported Media Type: send the body as application/json.' });
    req.body = {};
    // Drain the body so the connection stays usable.
    req.resume();
    return next();
  }
  jsonParser(req, res, (error?: unknown) => {
    if (error) {
      req.bodyError = toApiException(error as { type?: string });
      req.body = {};
    } else if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
      req.bodyError = new BadRequest('The request body must be a JSON object.');
      req.body = {};
    }
    next();
  });
};

/** Raises the remembered body error once the request has passed rate limiting and authentication. */
@Injectable()
export class BodyErrorGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const error = context.switchToHttp().getRequest<Request>().bodyError;
    if (error) throw error;
    return true;
  }
}
