import 'reflect-metadata';
import { createApp } from '../../src/app.factory.js';
import { loadConfig, type AppConfig } from '../../src/common/config/app-config.js';

/**
 * Another instance of the service in its own process, running import jobs only (the e2e tests kill
 * it with SIGKILL mid-job), delivering webhooks, or running campaign runs and their deliveries. It
 * exits when its stdin ends. Environment as for the service, plus CHILD_IMPORTS (JSON, ImportConfig),
 * CHILD_WEBHOOKS (JSON, WebhooksConfig), CHILD_RUNS (JSON, RunsConfig) and CHILD_DESTINATIONS (JSON,
 * DestinationsConfig).
 */
async function main(): Promise<void> {
  const loaded = loadConfig();
  const config: AppConfig = {
    ...loaded,
    imports: { ...loaded.imports, ...JSON.parse(process.env.CHILD_IMPORTS ?? '{}') },
    webhooks: { ...loaded.webhooks, ...JSON.parse(process.env.CHILD_WEBHOOKS ?? '{}') },
    runs: { ...loaded.runs, ...JSON.parse(process.env.CHILD_RUNS ?? '{}') },
    destinations: { ...loaded.destinations, ...JSON.parse(process.env.CHILD_DESTINATIONS ?? '{}') },
  };
  await createApp(config);
  // Alive until it is killed, or until the process that started it is gone: its stdin (a pipe from
  // that process) then ends. A test that fails before killing it must not leave it running, holding
  // the test worker's stderr open, which keeps jest waiting at the end of the run.
  process.stdin.once('end', () => process.exit(0));
  process.stdin.resume();
  process.stdout.write('ready\n');
}

void main();
