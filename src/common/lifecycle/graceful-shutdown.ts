import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';

export const SHUTDOWN_DEADLINE_MS = 10_000;

export interface ShutdownOptions {
  exit?: (code: number) => void;
  deadlineMs?: number;
}

/**
 * SIGTERM/SIGINT handling (API-CONVENTIONS §1): stop accepting connections, let in-flight
 * requests finish, close the database pool, exit 0, and never take longer than the deadline.
 * Nest's own shutdown hooks close the database before the HTTP server (in-flight requests would
 * fail) and re-raise the signal (exit code 143), hence this.
 */
export function gracefulShutdown(app: INestApplication, options: ShutdownOptions = {}) {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping: Promise<void> | undefined;
  return (signal: string): Promise<void> => {
    stopping ??= (async () => {
      const deadline = setTimeout(() => exit(0), options.deadlineMs ?? SHUTDOWN_DEADLINE_MS);
      deadline.unref();
      try {
        await stopAccepting(app.getHttpServer() as Server);
        // Only now close the rest (database pool, Redis): no request is left that needs them.
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

/** Stops listening and resolves once every in-flight request has been answered. */
function stopAccepting(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    // Keep-alive connections that finish their request after close() would otherwise linger idle.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
  });
}
