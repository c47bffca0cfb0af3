import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/** The headers of every error answer besides its own (API-CONVENTIONS): CORS, and no caching. */
function errorHeaders(exposedHeaders: readonly string[]): Record<string, string> {
  return {
    'access-control-allow-origin': '*',
    'access-control-expose-headers': exposedHeaders.join(', '),
    'cache-control': 'no-cache, private',
  };
}

const MESSAGES: Record<string, { status: number; message: string }> = {
  FST_ERR_BAD_URL: { status: 400, message: 'The request path is not valid percent-encoded text.' },
};

/**
 * fastify's `frameworkErrors`: what it refuses before a route is found (a path whose
 * percent-encoding does not decode), answered in the conventions' `{message}` shape with the
 * headers every error answer carries. fastify's own body would be `{statusCode, code, error,
 * message}`, and no hook of the app runs for such a request.
 */
export function frameworkErrors(exposedHeaders: readonly string[]) {
  const headers = errorHeaders(exposedHeaders);
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const { status, message } = MESSAGES[error.code] ?? { status: 400, message: 'The request could not be read.' };
    void reply.code(status).header('x-request-id', request.id).headers(headers).send({ message });
  };
}

const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    message: `The request headers are larger than ${Math.round(maxHeaderSize / 1024)} KB.`,
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time.' },
};

/**
 * fastify's `clientErrorHandler`: what node's HTTP parser refuses before there is a request (headers
 * over node's size limit, bytes that are not HTTP/1.1), answered in the conventions' `{message}`
 * shape with an error answer's headers; the connection then closes, as with fastify's own handler,
 * whose body is `{error, message, statusCode}`.
 */
export function clientErrors(exposedHeaders: readonly string[]) {
  const headerLines = Object.entries(errorHeaders(exposedHeaders))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) {
      const { status, message } = CLIENT_ERRORS[error.code ?? ''] ?? {
        status: 400,
        message: 'The request could not be read as HTTP/1.1.',
      };
      const body = JSON.stringify({ message });
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
          'content-type: application/json; charset=utf-8\r\n' +
          `content-length: ${Buffer.byteLength(body)}\r\n` +
          headerLines +
          'connection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroy(error);
  };
}
