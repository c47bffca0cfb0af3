import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

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
  const expose = exposedHeaders.join(', ');
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const { status, message } = MESSAGES[error.code] ?? { status: 400, message: 'The request could not be read.' };
    void reply
      .code(status)
      .header('x-request-id', request.id)
      .header('access-control-allow-origin', '*')
      .header('access-control-expose-headers', expose)
      .header('cache-control', 'no-cache, private')
      .send({ message });
  };
}
