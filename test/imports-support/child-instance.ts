import 'reflect-metadata';
import { createApp } from '../../src/app.factory.js';
import { loadConfig, type AppConfig } from '../../src/common/config/app-config.js';

/**
 * Another instance of the service in its own process, running import jobs only (the e2e tests kill
 * it with SIGKILL mid-job). Environment as for the service, plus CHILD_IMPORTS (JSON, ImportConfig).
 */
async function main(): Promise<void> {
  const loaded = loadConfig();
  const config: AppConfig = {
    ...loaded,
    imports: { ...loaded.imports, ...JSON.parse(process.env.CHILD_IMPORTS ?? '{}') },
  };
  await createApp(config);
  process.stdout.write('ready\n');
}

void main();
