/** Driver error codes that mean "the database cannot be reached", not "the query was wrong". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_ACCESS_DENIED_ERROR',
  'POOL_NONEONLINE', // mysql2's PoolCluster: every node of the pool is marked offline for now
  'ER_UNKNOWN_COM_ERROR', // 1047, a Galera node outside the primary component: "WSREP has not yet prepared node"
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
]);

const UNAVAILABLE_ERROR_NAMES = new Set(['CannotExecuteNotConnectedError', 'ConnectionIsNotSetError']);

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  const e = error as { code?: unknown; name?: unknown; driverError?: unknown; cause?: unknown; message?: unknown };
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  if (typeof e.name === 'string' && UNAVAILABLE_ERROR_NAMES.has(e.name)) return true;
  if (typeof e.message === 'string' && /Pool is closed|connect ETIMEDOUT|Connection lost/i.test(e.message)) return true;
  return isDatabaseUnavailable(e.driverError, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1);
}

/** An error text fit to show a client: the database password never appears in it. */
export function scrubSecret(text: string, secret?: string): string {
  if (!secret) return text;
  return text.split(secret).join('********').split(encodeURIComponent(secret)).join('********');
}

interface DriverError {
  code?: string;
  errno?: number;
  message?: string;
  sqlMessage?: string;
}

function driverErrorOf(error: unknown): DriverError | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const e = error as { driverError?: DriverError } & DriverError;
  return e.driverError ?? e;
}

/** The column a unique-constraint violation is about (`users_email_unique` / `users.email` → `email`), if any. */
export function uniqueViolationField(error: unknown): string | null | undefined {
  const e = driverErrorOf(error);
  if (!e) return undefined;
  const text = e.sqlMessage ?? e.message ?? '';
  if (e.code === 'ER_DUP_ENTRY') {
    const key = /for key '(?:[^'.]+\.)?([^']+)'/.exec(text)?.[1];
    return key ? (/^[a-z]+_(.+)_unique$/.exec(key)?.[1] ?? null) : null;
  }
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    // "UNIQUE constraint failed: customers.tenant_id, customers.external_id": the scope comes first.
    const columns = /UNIQUE constraint failed: (.+)$/
      .exec(text)?.[1]
      .split(',')
      .map((c) => c.trim().split('.').pop());
    // A sort key's index (tenants.name_key) is about its column (sort-key.ts).
    return columns?.[columns.length - 1]?.replace(/_key$/, '') ?? null;
  }
  return undefined;
}

/** A delete refused by a foreign key: other rows still reference the record. */
export function isReferencedRowViolation(error: unknown): boolean {
  const e = driverErrorOf(error);
  return (
    e?.code === 'ER_ROW_IS_REFERENCED_2' ||
    e?.code === 'ER_ROW_IS_REFERENCED' ||
    (e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' && /DELETE/i.test(String((error as { query?: string }).query ?? '')))
  );
}

/** MySQL/MariaDB error numbers a transaction may lose to a concurrent one; running it again can succeed. */
const RETRYABLE_ERRNOS = new Set([
  1213, // ER_LOCK_DEADLOCK: a deadlock, or a Galera certification conflict
  1205, // ER_LOCK_WAIT_TIMEOUT
]);

/**
 * Thrown inside a transaction that lost a race the database did not abort it for (another writer
 * created a key it was about to create, or moved one between two of its reads): Database runs the
 * transaction again, under the same policy as a deadlock.
 */
export class RetryTransaction extends Error {
  constructor(reason: string) {
    super(`The transaction is run again: ${reason}`);
  }
}

/** The server's error number of a driver error (or TypeORM's wrapping of one). */
export function errnoOf(error: unknown): number | undefined {
  return driverErrorOf(error)?.errno;
}

/** A transaction the database aborted because of a concurrent one (never a client's mistake). */
export function isRetryableConflict(error: unknown): boolean {
  const e = driverErrorOf(error);
  return typeof e?.errno === 'number' && RETRYABLE_ERRNOS.has(e.errno);
}

/** The MESSAGE_TEXT of a user-defined SIGNAL (MariaDB's ER_SIGNAL_EXCEPTION), if `error` is one. */
export function signalledMessage(error: unknown): string | undefined {
  const e = driverErrorOf(error);
  return e?.errno === 1644 ? e.sqlMessage : undefined;
}
