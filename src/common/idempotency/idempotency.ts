import { createHash, randomBytes } from 'node:crypto';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { uniqueViolationField } from '../persistence/database-errors.js';
import { Database, type Sql } from '../persistence/database.js';
import { ApiException, ValidationFailed } from '../http/api-exception.js';
import { envelopeMessage } from '../http/envelope.js';
import { WithMeta } from '../http/page.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_FIELD = 'Idempotency-Key';
export const REPLAYED_HEADER = 'idempotent-replayed';
/** How long the first answer is kept and replayed. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** The lease of a running request's claim; renewed while it runs, so only a crashed instance's claim lapses. */
export const IDEMPOTENCY_LEASE_MS = 30_000;
const LEASE_RENEWAL_MS = IDEMPOTENCY_LEASE_MS / 3;
/** One claim in this many also sweeps the keys past their 24 hours. */
const SWEEP_ONE_IN = 100;

/** 1 to 255 printable ASCII characters (Node has already trimmed surrounding spaces). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** Answers a repeat with the first request's stored answer (the exception filter sends it as is). */
export class IdempotentReplay extends ApiException {
  constructor(
    status: number,
    readonly payload: string,
  ) {
    super(status, { message: 'Replayed' }, { [REPLAYED_HEADER]: 'true' });
  }
}

interface KeyRow {
  id: number | string;
  request_hash: string;
  owner: string;
  status_code: number | string | null;
  response_body: string | null;
  locked_until: number | string | null;
  expires_at: number | string;
}

/** A key with sorted object keys: two bodies that differ only in key order are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    return `{${Object.keys(object)
      .sort()
      .filter((key) => object[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What makes two requests "the same": method, path with query, and body. A streamed upload (CSV)
 * is compared by its content type and length, since its bytes are read only by the handler.
 */
export function requestFingerprint(request: FastifyRequest): string {
  const hash = createHash('sha256').update(`${request.method} ${request.url}\n`);
  if (request.routeOptions.config?.streamedBody) {
    hash.update(`${request.headers['content-type'] ?? ''}\n${request.headers['content-length'] ?? ''}`);
  } else {
    hash.update(canonicalJson(request.body ?? {}));
  }
  return hash.digest('hex');
}

export function parseIdempotencyKey(header: string | string[]): string {
  if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
    throw ValidationFailed.field(
      IDEMPOTENCY_FIELD,
      'The Idempotency-Key header must be one value of 1 to 255 printable ASCII characters.',
    );
  }
  return header;
}

/**
 * This request's hold on (caller, key). The answer is stored in the write's own transaction where
 * the service can do so (`complete`, see ResourceService.create), else right after the handler
 * (`finish`, from the onSend hook); an error answer releases the key, since it changed nothing.
 */
export class IdempotencyClaim {
  private renewal?: NodeJS.Timeout;
  /** The answer `complete` stored inside the write's transaction. */
  private storedInTransaction = false;
  private finished = false;

  constructor(
    private readonly db: Database,
    readonly id: number,
    readonly owner: string,
    /** The status and message of the route's success answer. */
    private readonly status: number,
    private readonly message: string,
  ) {
    this.renewal = setInterval(() => void this.renew(), LEASE_RENEWAL_MS);
    this.renewal.unref();
  }

  /**
   * Stores the success answer in the write's transaction. When this request lost its claim (its
   * lease lapsed and another request took the key over), the write is rolled back: 409.
   */
  async complete(sql: Sql, answer: unknown): Promise<void> {
    const { status: code, message } = this;
    const body = JSON.stringify(
      answer instanceof WithMeta
        ? { code, message, data: answer.data, meta: answer.meta }
        : { code, message, data: answer },
    );
    const { affected } = await sql.run(
      `UPDATE idempotency_keys SET status_code = ?, response_body = ?, locked_until = NULL, updated_at = ?
        WHERE id = ? AND owner = ?`,
      [this.status, body, new Date(), this.id, this.owner],
    );
    if (affected !== 1) throw inProgress();
    this.storedInTransaction = true;
  }

  /** The answer is going out: keep a success (unless stored already), release the key otherwise. */
  async finish(statusCode: number, payload: unknown): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    clearInterval(this.renewal);
    if (statusCode >= 200 && statusCode < 300 && typeof payload === 'string') {
      if (this.storedInTransaction) return;
      await this.db.run(
        `UPDATE idempotency_keys SET status_code = ?, response_body = ?, locked_until = NULL, updated_at = ?
          WHERE id = ? AND owner = ?`,
        [statusCode, payload, new Date(), this.id, this.owner],
      );
    } else {
      await this.db.run('DELETE FROM idempotency_keys WHERE id = ? AND owner = ?', [this.id, this.owner]);
    }
  }

  private async renew(): Promise<void> {
    await this.db
      .run('UPDATE idempotency_keys SET locked_until = ? WHERE id = ? AND owner = ? AND status_code IS NULL', [
        Date.now() + IDEMPOTENCY_LEASE_MS,
        this.id,
        this.owner,
      ])
      .catch(() => undefined);
  }
}

const inProgress = () =>
  new ApiException(409, {
    message: 'A request with this Idempotency-Key is still being processed. Retry once it has finished.',
  });

const conflictingRequest = () =>
  ValidationFailed.field(
    IDEMPOTENCY_FIELD,
    'This Idempotency-Key was already used with a different request (method, path or body).',
  );

/**
 * `Idempotency-Key` on authenticated POSTs (Stripe's model): the first request with a key claims
 * it by inserting a row (the unique index decides between racing requests, on every instance);
 * a repeat with the same request replays the stored answer, a different request with the key is
 * a 422, and a repeat while the first still runs is a 409. Only on routes that declare
 * IdempotentReplays; runs after the tenant guard; without the header it costs one property lookup.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  constructor(private readonly db: Database) {}

  /** Synchronous for a request without the header (the database is asked only to claim a key). */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const { config } = request.routeOptions;
    if (!config.idempotent) return true;
    const header = request.headers[IDEMPOTENCY_HEADER];
    const auth = request.auth;
    if (header === undefined || !auth) return true;
    const key = parseIdempotencyKey(header);
    const scope = `${auth.user.id}:${auth.tenantId}`;
    // A POST's success status is 201 unless the route declares another (SuccessStatus).
    const status = config.successStatus ?? 201;
    return this.claim(scope, key, requestFingerprint(request), status, envelopeMessage(request)).then((claim) => {
      auth.idempotency = claim;
      return true;
    });
  }

  private async claim(
    scope: string,
    key: string,
    hash: string,
    status: number,
    message: string,
  ): Promise<IdempotencyClaim> {
    const owner = randomBytes(16).toString('hex');
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = Date.now();
      try {
        // A cluster may abort the insert on a conflict that is not about this key (a node leaving the
        // cluster aborts transactions in flight): it is run again, and a duplicate key lands below.
        const { insertId } = await this.db.retryingConflicts(() =>
          this.db.run(
            `INSERT INTO idempotency_keys
               (scope, idempotency_key, request_hash, owner, locked_until, expires_at, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
            [
              scope,
              key,
              hash,
              owner,
              now + IDEMPOTENCY_LEASE_MS,
              now + IDEMPOTENCY_RETENTION_MS,
              new Date(),
              new Date(),
            ],
          ),
        );
        if (Math.random() * SWEEP_ONE_IN < 1) this.sweep(now);
        return new IdempotencyClaim(this.db, insertId, owner, status, message);
      } catch (error) {
        if (uniqueViolationField(error) === undefined) throw error;
      }
      const [row] = await this.db.query<KeyRow>(
        `SELECT id, request_hash, owner, status_code, response_body, locked_until, expires_at
           FROM idempotency_keys WHERE scope = ? AND idempotency_key = ?`,
        [scope, key],
      );
      if (!row) continue; // released meanwhile: claim it afresh
      const expired = Number(row.expires_at) <= now;
      if (!expired) {
        if (row.request_hash !== hash) throw conflictingRequest();
        if (row.status_code !== null && row.response_body !== null) {
          throw new IdempotentReplay(Number(row.status_code), row.response_body);
        }
        if (Number(row.locked_until ?? 0) > now) throw inProgress();
      }
      // Forgotten (past 24 hours) or abandoned (lease lapsed, no answer): take it over, if no one else did.
      const { affected } = await this.db.run(
        `UPDATE idempotency_keys
            SET request_hash = ?, owner = ?, status_code = NULL, response_body = NULL, locked_until = ?,
                expires_at = ?, created_at = ?, updated_at = ?
          WHERE id = ? AND owner = ?`,
        [
          hash,
          owner,
          now + IDEMPOTENCY_LEASE_MS,
          now + IDEMPOTENCY_RETENTION_MS,
          new Date(),
          new Date(),
          Number(row.id),
          row.owner,
        ],
      );
      if (affected !== 1) throw inProgress();
      return new IdempotencyClaim(this.db, Number(row.id), owner, status, message);
    }
    throw inProgress();
  }

  private sweep(now: number): void {
    this.db.run('DELETE FROM idempotency_keys WHERE expires_at < ?', [now]).catch(() => undefined);
  }
}

/** fastify onSend hook: settles the claim of a request that sent an Idempotency-Key. */
export async function settleIdempotency(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const claim = request.auth?.idempotency;
  if (!claim) return payload;
  try {
    await claim.finish(reply.statusCode, payload);
  } catch (error) {
    request.log.warn({ err: error }, 'could not settle the idempotency key');
  }
  return payload;
}

/**
 * An erasure's step through the kept answers: deletes the tenant's kept answers whose body holds
 * `fragment` (an erased record as its answer begins); a repeat of such a request runs again.
 * Answers how many went. Kept answers live 24 hours, so the scan is short.
 */
export async function forgetKeptAnswers(sql: Sql, tenantId: number, fragment: string): Promise<number> {
  const like = (text: string) => text.replace(/[!%_]/g, (c) => `!${c}`);
  const { affected } = await sql.run(
    `DELETE FROM idempotency_keys WHERE scope LIKE ? ESCAPE '!' AND response_body LIKE ? ESCAPE '!'`,
    [`%:${tenantId}`, `%${like(fragment)}%`],
  );
  return affected;
}
