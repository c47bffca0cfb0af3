import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where the kernel starts handing out ports for `listen(0)` and outgoing connections (Linux's default when unreadable). */
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Number(low) || 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether a server could listen on 127.0.0.1:`port` now. */
export const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });

/**
 * A port free now for a server a test starts as its own process (the service, redis-server), chosen
 * just below the kernel's ephemeral range. A port from `listen(0)` is free only until the kernel
 * hands it out again, and the suite's other workers open listeners and connections all the time;
 * below the range only a server that names the port can take it, so it stays free until the test's
 * server listens on it, and across that server's restarts.
 */
export async function freeFixedPort(): Promise<number> {
  const top = ephemeralRangeStart() - 1;
  const bottom = Math.max(1_024, top - 2_000);
  for (let tries = 0; tries < 50; tries++) {
    const port = bottom + Math.floor(Math.random() * (top - bottom + 1));
    if (await portFree(port)) return port;
  }
  throw new Error(`no free port between ${bottom} and ${top}`);
}
