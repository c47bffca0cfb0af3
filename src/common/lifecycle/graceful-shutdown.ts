import type { INestApplication } from '@nestjs/common';

export const SHUTDOWN_DEADLINE_MS = 10_000;

export interface ShutdownOptions {
  exit?: (code: number) => void;
  deadlineMs?: number;
}

/**
 * SIGTERM/SIGINT handling (API-CONVENTIONS §1): stop accepting connections, let in-flight
 * requests finish, close the database pool, exit 0, and never take longer than the deadline.
 * (Nest's own shutdown hooks re-raise the signal, which would end the process with 143, not 0.)
 */
export function gracefulShutdown(app: INestApplication, options: ShutdownOptions = {}) {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping: Promise<void> | undefined;
  return (signal: string): Promise<void> => {
    stopping ??= (async () => {
      const deadline = setTimeout(() => exit(0), options.deadlineMs ?? SHUTDOWN_DEADLINE_MS);
      deadline.unref();
      try {
        await app.close();
      } catch (error) {
        console.error(
          `Shutdown on ${signal} did not finish cleanly: ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        clearTimeout(deadline);
        exit(0);
      }
    })();
    return stopping;
  };
}
