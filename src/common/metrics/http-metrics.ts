import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { MetricsConfig } from '../config/app-config.js';
import { UNMATCHED_OPERATION, operationLabels, type Metrics } from './metrics.js';

/** Where the metrics are served: beside the API (not under /api), or alone on METRICS_PORT. */
export const METRICS_PATH = '/metrics';
/** The `operation` of the routes that are no API operation: the OpenAPI document and its UI, CORS preflights. */
export const FRAMEWORK_OPERATION = 'framework';
/** The `operation` of scrapes of METRICS_PATH on the API's port. */
export const METRICS_OPERATION = 'metrics';

/** Whether GET /metrics is served at all: METRICS_TOKEN or METRICS_PORT is set. */
export const metricsEnabled = (config: MetricsConfig): boolean =>
  config.token !== undefined || config.port !== undefined;

/**
 * Gives every route its request metrics' label sets as it is registered (fastify's onRoute), so
 * that a request finds them in its route's config: the controller method's name (nameOperations),
 * `metrics` for the scrapes, `framework` for the rest. Added before any route is registered.
 */
export function labelOperations(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    const operation =
      route.config?.operationId ?? (route.url === METRICS_PATH ? METRICS_OPERATION : FRAMEWORK_OPERATION);
    route.config = { ...route.config, operationLabels: operationLabels(operation) };
  });
}

/**
 * The request metrics and GET /metrics, when they are on. Every answered request is one histogram
 * observation in an onResponse hook (no Nest interceptor: docs/performance.md), with the label set
 * of its route made in advance and fastify's own measure of its duration; a request no route
 * answered (404) counts as `unmatched`. The scrape is a fastify route outside Nest: no guard runs,
 * so it takes nothing from the rate limit or the daily quota, and it is in no OpenAPI document.
 *
 * - METRICS_TOKEN alone: served here, on the API's port, to `Authorization: Bearer <token>` (401 otherwise).
 * - METRICS_PORT: served on that port alone, by a small node:http server that starts and stops with
 *   fastify; with METRICS_TOKEN too, the token is required there. The API's port answers 404.
 */
export function serveMetrics(fastify: FastifyInstance, metrics: Metrics, config: MetricsConfig): void {
  const unmatched = operationLabels(UNMATCHED_OPERATION);
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(
      request.routeOptions.config.operationLabels ?? unmatched,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  const authorized = config.token === undefined ? () => true : bearerCheck(config.token);
  if (config.port === undefined) {
    fastify.get(METRICS_PATH, async (request, reply) => {
      if (!authorized(request.headers.authorization)) {
        reply.code(401).headers(REFUSED_HEADERS);
        return { message: 'Unauthenticated.' };
      }
      const text = await metrics.render();
      reply.header('content-type', metrics.contentType).header('cache-control', 'no-store');
      return text;
    });
    return;
  }
  const server = metricsServer(metrics, authorized);
  const port = config.port;
  fastify.addHook('onReady', () => listen(server, port));
  fastify.addHook('onClose', (_instance, done) => {
    server.closeIdleConnections();
    server.close(() => done());
  });
}

const REFUSED_HEADERS = { 'cache-control': 'no-cache, private', 'www-authenticate': 'Bearer realm="metrics"' };

/**
 * A check of `Authorization: Bearer <token>` in constant time: both sides are hashed first, so the
 * comparison takes as long whatever was sent, and tells nothing of the token's length either.
 */
export function bearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (authorization) => {
    const sent = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1] ?? '';
    return timingSafeEqual(createHash('sha256').update(sent).digest(), expected) && sent !== '';
  };
}

/** METRICS_PORT's server: GET (or HEAD) /metrics and nothing else. */
function metricsServer(metrics: Metrics, authorized: (authorization: string | undefined) => boolean): Server {
  const json = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) =>
    res
      .writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-cache, private',
        ...headers,
      })
      .end(JSON.stringify({ message }));
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return json(res, 404, 'Not Found');
    if (!authorized(req.headers.authorization)) return json(res, 401, 'Unauthenticated.', REFUSED_HEADERS);
    metrics.render().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => json(res, 500, 'Server Error'),
    );
  });
}

/** Listens on every interface, like the API (a container's port); a port in use fails the start-up. */
function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
