import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import type { FieldErrors } from '../../../common/http/api-exception.js';
import { RetryTransaction, uniqueViolationField } from '../../../common/persistence/database-errors.js';
import type { Sql } from '../../../common/persistence/sql.js';
import type { TenantReads, TenantTx } from '../../../common/persistence/tables.js';
import { CustomerSuppression, type SuppressionKind } from '../entities/customer-suppression.entity.js';

/** The values of a customer write that an erasure can suppress. */
export interface SuppressibleValues {
  email?: string | null;
  external_id?: string | null;
}

interface Key {
  kind: SuppressionKind;
  hash: string;
}

const FIELDS: readonly SuppressionKind[] = ['email', 'external_id'];
const HASHES_PER_READ = 500;

export const suppressedMessage = (kind: SuppressionKind) =>
  `The ${kind.replace(/_/g, ' ')} is suppressed by an erasure request.`;

/**
 * The suppression list: an erased customer's e-mail address (without case) and external id, kept
 * as HMAC-SHA-256 under SUPPRESSION_KEY with the tenant and kind, never in clear. A create, a batch
 * item or an import row that carries one is refused on that field; one read serves a whole batch.
 */
@Injectable()
export class SuppressionList {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  hash(tenantId: number, kind: SuppressionKind, value: string): string {
    const normalized = kind === 'email' ? value.trim().toLowerCase() : value;
    return createHmac('sha256', this.config.suppressionKey)
      .update(`${tenantId}\u0000${kind}\u0000${normalized}`)
      .digest('hex');
  }

  /** For each of `items`: the errors of the fields it carries that are suppressed, or undefined. */
  async refusals(reads: TenantReads, items: readonly SuppressibleValues[]): Promise<(FieldErrors | undefined)[]> {
    // Read with the caller's token: a tenant that never listed a value has nothing to refuse. A
    // value listed while this request ran is the erasure's late arrival (ErasureProcessor).
    if (reads.auth.tenant?.suppressionsListed === 0) return items.map(() => undefined);
    const keys = items.map((item) => this.keysOf(reads.auth.tenantId, item));
    const listed = await this.listed(reads, keys.flat());
    return keys.map((itemKeys) => {
      const refused = itemKeys.filter((key) => listed.has(key.hash));
      if (refused.length === 0) return undefined;
      return Object.fromEntries(refused.map((key) => [key.kind, [suppressedMessage(key.kind)]]));
    });
  }

  /**
   * Puts a customer's e-mail address and external id on the list (those not on it yet), in the
   * write `tx`, and counts them on the tenant (`bookkeeping`: the same transaction's SQL).
   */
  async add(tx: TenantTx, bookkeeping: Sql, values: SuppressibleValues, createdBy: number | null): Promise<void> {
    const keys = this.keysOf(tx.auth.tenantId, values);
    const listed = await this.listed(tx, keys);
    const missing = keys.filter((key) => !listed.has(key.hash));
    try {
      await tx
        .table(CustomerSuppression)
        .insertMany(missing.map((key) => ({ kind: key.kind, value_hash: key.hash, created_by: createdBy })));
    } catch (error) {
      // Another erasure listed the same value first: run again, and find it.
      if (uniqueViolationField(error) !== undefined) throw new RetryTransaction('a suppression was listed meanwhile');
      throw error;
    }
    if (missing.length) {
      await bookkeeping.run('UPDATE tenants SET suppressions_listed = suppressions_listed + ? WHERE id = ?', [
        missing.length,
        tx.auth.tenantId,
      ]);
    }
  }

  private keysOf(tenantId: number, values: SuppressibleValues): Key[] {
    const keys: Key[] = [];
    for (const kind of FIELDS) {
      const value = values[kind];
      if (typeof value === 'string') keys.push({ kind, hash: this.hash(tenantId, kind, value) });
    }
    return keys;
  }

  /** Which of these hashes the tenant's list holds. */
  private async listed(reads: TenantReads, keys: readonly Key[]): Promise<Set<string>> {
    const table = reads.table(CustomerSuppression);
    const scope = table.scope('s');
    const listed = new Set<string>();
    // One kind and at most HASHES_PER_READ hashes a read, so that the unique index
    // (tenant_id, kind, value_hash) finds each hash with one lookup: without the kind, or with 1,000
    // values or more in the list (MariaDB then turns it into a subquery), every read examined the
    // tenant's whole list; with both kinds named, it looked each hash up under both.
    for (const kind of FIELDS) {
      const hashes = [...new Set(keys.filter((key) => key.kind === kind).map((key) => key.hash))];
      for (let start = 0; start < hashes.length; start += HASHES_PER_READ) {
        const slice = hashes.slice(start, start + HASHES_PER_READ);
        const rows = await reads.select<{ value_hash: string }>(
          `SELECT s.value_hash FROM customer_suppressions s
            WHERE ${scope.sql} AND s.kind = ? AND s.value_hash IN (${slice.map(() => '?').join(', ')})`,
          [...scope.params, kind, ...slice],
        );
        for (const row of rows) listed.add(row.value_hash);
      }
    }
    return listed;
  }
}
