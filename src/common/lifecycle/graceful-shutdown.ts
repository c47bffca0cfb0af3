import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { JobRunner } from '../jobs/job-runner.js';

/** The process exits by then whatever happens: a margin under the contract's 10 s (API-CONVENTIONS §1). */
export const SHUTDOWN_DEADLINE_MS = 8_000;
/** Requests still running then are cut, so that the database pool and Redis still close before the deadline. */
export const DRAIN_DEADLINE_MS = 6_000;
/**
 * How long a connection without a request in progress is left open after SIGTERM: a request may be on
 * its way on it (a connection just accepted, or a kept-alive one the client has just reused).
 */
export const IDLE_GRACE_MS = 500;

export interface ShutdownOptions {
  exit?: (code: number) => void;
  deadlineMs?: number;
}

/**
 * SIGTERM/SIGINT handling (API-CONVENTIONS §1): stop accepting connections and claiming jobs, let
 * in-flight requests and jobs finish (a job gives itself back at its next step), close the
 * database pool, exit 0, and never take longer than the deadline.
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
        // Background work stops beside the requests: jobs stop at their next safe point, and what has
        // not ended within its grace is given back for another instance to resume at once.
        await Promise.all([stopAccepting(app.getHttpServer() as Server), app.get(JobRunner).stop()]);
        // Only now close the rest (database pool, Redis): no request or job is left that needs them.
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

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Takes in the connections the kernel has already accepted and queued on the listening socket (closing
 * it resets them): node takes in one of them per turn of the event loop, so this turns until a turn
 * takes in none, for at most `limitMs` (a flood of new connections does not delay the shutdown).
 */
async function takeInQueued(server: Server, limitMs: number): Promise<void> {
  let accepted = 0;
  const count = () => accepted++;
  server.on('connection', count);
  const until = Date.now() + limitMs;
  try {
    // The first turn ends in the same turn as the signal's handler, before the loop polls again.
    await nextTurn();
    do {
      accepted = 0;
      await nextTurn();
    } while (accepted > 0 && Date.now() < until);
  } finally {
    server.off('connection', count);
  }
}

/**
 * Stops listening and resolves once every request accepted before has been answered and its
 * connection closed.
 *
 * - First the connections the kernel has already accepted and queued are taken in (takeInQueued).
 * - The listening socket closes as net.Server's close does: http.Server's close() would also destroy
 *   every connection without a request in progress at once, among them one whose request has arrived
 *   but is not read yet (the client got a connection reset).
 * - Every answer from now on says `Connection: close` (app.factory's onSend hook), so a kept-alive
 *   client does not send its next request on a connection that is about to close, and every busy
 *   connection closes after its answer: clients that keep sending cannot hold the process open.
 * - Connections without a request in progress are closed after IDLE_GRACE_MS, then as they become idle.
 */
async function stopAccepting(server: Server, drainMs = DRAIN_DEADLINE_MS): Promise<void> {
  if (!server.listening) return;
  await takeInQueued(server, IDLE_GRACE_MS);
  let sweep: NodeJS.Timeout | undefined;
  const grace = setTimeout(() => {
    server.closeIdleConnections();
    sweep = setInterval(() => server.closeIdleConnections(), 100);
  }, IDLE_GRACE_MS);
  const cut = setTimeout(() => server.closeAllConnections(), drainMs);
  await new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
  clearTimeout(grace);
  clearInterval(sweep);
  clearTimeout(cut);
}
