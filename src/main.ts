import 'reflect-metadata';
import { ConfigError, loadConfig, type AppConfig } from './common/config/app-config.js';
import { createApp } from './app.factory.js';

const SHUTDOWN_DEADLINE_MS = 10_000;

function readConfig(): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const app = await createApp(config);
  await app.listen(config.port);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // Stop accepting connections, let in-flight requests finish, close the pool; exit 0.
    const deadline = setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    try {
      await app.close();
    } finally {
      console.log(JSON.stringify({ level: 30, time: Date.now(), msg: `stopped on ${signal}` }));
      process.exit(0);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(`Start-up failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
