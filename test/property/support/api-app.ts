import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../../src/app.factory.js';
import { loadConfig } from '../../../src/common/config/app-config.js';
import { login } from '../../support/auth.js';
import { freshDatabaseUrl } from '../../support/test-database.js';
import { http, type ApiContext } from './targets.js';

/** The app the generated requests go to, the super-admin's token, and its error-level log lines. */
export interface ApiApp {
  ctx: ApiContext;
  /** Lines the app logged at level error or above (a generated request must never cause one). */
  errorLines: string[];
  close(): Promise<void>;
}

/**
 * The real app on a fresh database (SQLite, or beside a mysql DATABASE_URL), with limits no run
 * reaches, signed in as the seeded super-admin.
 */
export async function startApiApp(name: string, logLevel: 'info' | 'warn'): Promise<ApiApp> {
  const db = await freshDatabaseUrl();
  const storageDir = mkdtempSync(join(tmpdir(), `cs-${name}-`));
  const config = {
    ...loadConfig({
      ...process.env,
      ...db.env,
      LOG_LEVEL: logLevel,
      STORAGE_DIR: storageDir,
      MAIL_URL: '',
      WEBHOOK_ALLOWED_HOSTS: 'hooks.invalid',
    }),
    rateLimitPerMinute: 1_000_000_000,
    authAttemptsPerMinute: 1_000_000_000,
    rateLimitKeyPrefix: `${name}:${randomBytes(6).toString('hex')}:`,
  };
  // An erasure's job ends soon after its 202 (the eraseCustomer target waits for it before the next case).
  config.erasures = { ...config.erasures, settleMs: 0, pollMs: 50 };
  const errorLines: string[] = [];
  const app = await createApp(config, {
    logDestination: {
      write: (line: string) => {
        if ((JSON.parse(line) as { level: number }).level >= 50) errorLines.push(line);
      },
    },
  });
  const ctx: ApiContext = { app, root: '', storageDir };
  ctx.root = await login({ app, config, http: http(ctx), close: async () => undefined });
  return {
    ctx,
    errorLines,
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
