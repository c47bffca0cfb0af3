import fastifyCors from '@fastify/cors';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import type { DestinationStream } from 'pino';
import type { AppConfig } from './common/config/app-config.js';
import { registerBodyParsing } from './common/http/body-parsing.js';
import { envelope, notModified } from './common/http/envelope.js';
import { clientErrors, frameworkErrors } from './common/http/framework-errors.js';
import { settleIdempotency } from './common/idempotency/idempotency.js';
import { requestId } from './common/http/request-id.js';
import { nameOperations } from './common/http/route-config.js';
import { labelOperations, metricsEnabled, serveMetrics } from './common/metrics/http-metrics.js';
import { Metrics } from './common/metrics/metrics.js';
import { createLogger, NestPinoLogger, RequestLog } from './common/logging/logger.js';
import { setupOpenApi } from './common/openapi/openapi.js';
import { JobRunner } from './common/jobs/job-runner.js';

const EXPOSED_HEADERS = [
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-limit-auth',
  'x-ratelimit-remaining-auth',
  'x-ratelimit-reset-auth',
  'retry-after-auth',
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
  'etag',
  'idempotent-replayed',
];

/**
 * Builds the application exactly as production runs it; tests and the OpenAPI script use it too.
 * Fastify rather than Express: the same pipeline costs a third of the CPU per request (docs/performance.md).
 */
export async function createApp(
  config: AppConfig,
  options: { logDestination?: DestinationStream } = {},
): Promise<NestFastifyApplication> {
  const logger = createLogger(config, options.logDestination);
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    logController: new RequestLog(),
    genReqId: requestId,
    trustProxy: trustedProxies(config.trustProxy),
    // Body size limits are the parsers' own (registerBodyParsing), so that a refusal is answered after the guards.
    bodyLimit: Number.MAX_SAFE_INTEGER,
    // No Nest middleware exists here, so @fastify/middie's per-request hook is not installed.
    skipMiddie: true,
    frameworkErrors: frameworkErrors(EXPOSED_HEADERS),
    clientErrorHandler: clientErrors(EXPOSED_HEADERS),
    // The routes judge their parameters (a 101-digit id is a 404); fastify's default of 100 would answer 414 first.
    routerOptions: { maxParamLength: 8_192 },
  });
  const fastify = adapter.getInstance();
  // Off unless METRICS_TOKEN or METRICS_PORT is set: then, before any route is registered, each
  // gets its label set in the request metrics (common/metrics/http-metrics.ts).
  const metrics = metricsEnabled(config.metrics);
  if (metrics) labelOperations(fastify);
  registerBodyParsing(fastify);
  // Registered on fastify itself rather than through app.enableCors(): Nest's CORS hook also copies
  // every CORS header to the raw response on each request, which only middleware answers need.
  // Every verb the API has: @fastify/cors allows only GET, HEAD and POST unless told, and a browser
  // then refuses to send a cross-origin PUT or DELETE.
  await fastify.register(fastifyCors, {
    origin: '*',
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  fastify.addHook('preSerialization', envelope);
  fastify.addHook('onSend', (request, reply, payload, done) => {
    // Shutting down (graceful-shutdown.ts has stopped listening): the connection closes after this
    // answer, and the client knows not to send another request on it.
    if (!fastify.server.listening) reply.header('connection', 'close');
    if (!request.auth?.idempotency) return done(null, notModified(reply, payload));
    void settleIdempotency(request, reply, payload).then((settled) => done(null, settled));
  });

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: new NestPinoLogger(logger),
    bodyParser: false,
    // Start-up errors are thrown to the caller (main.ts prints one line and exits 1) instead of exiting here.
    abortOnError: false,
  });
  if (metrics) {
    nameOperations(app);
    serveMetrics(fastify, app.get(Metrics), config.metrics);
  }
  app.setGlobalPrefix('api');
  setupOpenApi(app);
  await app.init();
  await fastify.ready();
  app.get(JobRunner).start();
  return app;
}

/**
 * TRUST_PROXY as fastify takes it. A hop count becomes the function fastify built from one before
 * 5.12: since then fastify trusts no proxy for a bare number (it cannot check the nearest peer), so an
 * operator's `TRUST_PROXY=1` would silently stop naming the clients behind the load balancer.
 */
function trustedProxies(
  setting: AppConfig['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}
