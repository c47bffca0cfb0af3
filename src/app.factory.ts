import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import type { AppConfig } from './common/config/app-config.js';
import { bodyParsingMiddleware } from './common/http/body-parsing.js';
import { setupOpenApi } from './common/openapi/openapi.js';

const EXPOSED_HEADERS = ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'retry-after'];

/** Builds the application exactly as production runs it; tests and the OpenAPI script use it too. */
export async function createApp(config: AppConfig): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
    // Start-up errors are thrown to the caller (main.ts prints one line and exits 1) instead of exiting here.
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  app.enableCors({ origin: '*', exposedHeaders: EXPOSED_HEADERS, maxAge: 600 });
  app.use(bodyParsingMiddleware);
  app.setGlobalPrefix('api');
  setupOpenApi(app);
  await app.init();
  return app;
}
