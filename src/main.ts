import 'reflect-metadata';
import { createApp } from './app.factory.js';
import { ConfigError, loadConfig, type AppConfig } from './common/config/app-config.js';
import { gracefulShutdown } from './common/lifecycle/graceful-shutdown.js';

/** A bad setting stops the process with one line naming the variable, and exit code 1. */
export function loadConfigOrExit(
  env?: Record<string, string | undefined>,
  exit: (code: number) => never = process.exit,
): AppConfig {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Configuration error: ${error.message}`);
    return exit(1);
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await createApp(config);
  // Every interface, as a container needs (Nest's Fastify adapter would listen on localhost only).
  await app.listen(config.port, '0.0.0.0');
  const stop = gracefulShutdown(app);
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`Start-up failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
