import 'reflect-metadata';
import { createApp } from '../../src/app.factory.js';
import { loadConfig, type AppConfig } from '../../src/common/config/app-config.js';

/**
 * Another instance of the service in its own process, running import jobs only (the e2e tests kill
 * it with SIGKILL mid-job), or delivering webhooks. Environment as for the service, plus CHILD_IMPORTS
 * (JSON, ImportConfig) and CHILD_WEBHOOKS (JSON, WebhooksConfig).
 */
async function main(): Promise<void> {
  const loaded = loadConfig();
  const config: AppConfig = {
    ...loaded,
    imports: { ...loaded.imports, ...JSON.parse(process.env.CHILD_IMPORTS ?? '{}') },
    webhooks: { ...loaded.webhooks, ...JSON.parse(process.env.CHILD_WEBHOOKS ?? '{}') },
  };
  await createApp(config);
  // The app's own timers do not keep a process alive (they are unref'd): this one does, until it is killed.
  setInterval(() => undefined, 60_000);
  process.stdout.write('ready\n');
}

void main();
