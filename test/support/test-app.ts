import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent.js';
import { createApp } from '../../src/app.factory.js';
import { loadConfig, type AppConfig } from '../../src/common/config/app-config.js';
import { checkResponse } from './openapi-responses.js';
import { freshDatabaseUrl } from './test-database.js';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  http: TestAgent;
  close: () => Promise<void>;
}

/** Settings of the test app over the loaded ones; a group (`webhooks`, `events`, `imports`) is merged key by key. */
export type ConfigOverrides = {
  [K in keyof AppConfig]?: AppConfig[K] extends unknown[]
    ? AppConfig[K]
    : AppConfig[K] extends object
      ? Partial<AppConfig[K]>
      : AppConfig[K];
};

export interface TestAppOptions {
  env?: Record<string, string | undefined>;
  config?: ConfigOverrides;
  /** Reuse the database of another test app (two instances over one database). */
  sharedWith?: TestApp;
  database?: 'suite' | 'mysql';
}

/** Boots the real application (same modules, pipeline and migrations as production) on a fresh database. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const shared = options.sharedWith?.config;
  const db = shared
    ? {
        env: {
          DATABASE_URL: shared.database.kind === 'mysql' ? shared.database.url : undefined,
          DATA_DIR: shared.dataDir,
        },
        drop: async () => undefined,
      }
    : await freshDatabaseUrl(options.database ?? 'suite');
  const loaded = loadConfig({ ...process.env, ...db.env, ...options.env });
  const config: AppConfig = {
    ...loaded,
    // Rate-limit counters of one app (and of the apps sharing its database) are its own, also in Redis.
    rateLimitKeyPrefix: shared?.rateLimitKeyPrefix ?? `test:${randomBytes(6).toString('hex')}:`,
  };
  for (const [key, value] of Object.entries(options.config ?? {})) {
    const base = loaded[key as keyof AppConfig];
    const group = base && typeof base === 'object' && !Array.isArray(base) && !(base instanceof Date);
    Object.assign(config, { [key]: group ? { ...base, ...(value as object) } : value });
  }
  const app = await createApp(config);
  return {
    app,
    config,
    http: validatingAgent(request(app.getHttpServer())),
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}

const VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

/**
 * The supertest agent, with every answer checked against openapi.json once it arrives (see
 * openapi-responses.ts): a test that receives an undocumented answer fails.
 */
function validatingAgent(agent: TestAgent): TestAgent {
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || !VERBS.has(property) || typeof value !== 'function') return value;
      return (url: string, ...rest: unknown[]) => {
        const test = (value as (...args: unknown[]) => request.Test).call(target, url, ...rest);
        const then = test.then.bind(test);
        test.then = ((onFulfilled, onRejected) =>
          then((res) => {
            checkResponse(property, url, res);
            return res;
          }).then(onFulfilled, onRejected)) as typeof test.then;
        return test;
      };
    },
  });
}
