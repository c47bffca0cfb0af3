import { Injectable } from '@nestjs/common';
import type { Sql } from '../../../common/persistence/database.js';
import type { TenantTx } from '../../../common/persistence/tables.js';
import type { UpsertOutcome, UpsertRow } from '../../../common/persistence/upsert-plan.js';
import { RecordCaps } from '../../../common/usage/record-caps.js';
import { Customer } from '../entities/customer.entity.js';
import { SuppressionList } from '../suppression/suppression-list.js';

/**
 * Customers created or updated by external_id, inside a write, by the rules every bulk writer keeps
 * (`POST /api/customers/batch`, and `POST /api/track` for the external ids it does not know): a row
 * carrying a suppressed value (an erased person's) fails alone; the creates beyond the plan's
 * customer cap fail with the cap's message, updates still apply; the rest go through upsertMany.
 * `bookkeeping` is the write's own SQL (RecordCaps counts the creates in it).
 */
@Injectable()
export class CustomerUpserts {
  constructor(
    private readonly suppressions: SuppressionList,
    private readonly caps: RecordCaps,
  ) {}

  async upsert(tx: TenantTx, bookkeeping: Sql, rows: readonly UpsertRow<Customer>[]): Promise<UpsertOutcome[]> {
    const refusals = await this.suppressions.refusals(
      tx,
      rows.map((row) => row.values),
    );
    const allowed = rows.filter((_, i) => !refusals[i]);
    const outcomes = await tx.table(Customer).upsertMany(allowed, {
      key: 'external_id',
      attempt: tx.attempt,
      creates: (wanted) => this.caps.createsAllowed(bookkeeping, tx.auth, 'customers', wanted),
    });
    let next = 0;
    return refusals.map((errors): UpsertOutcome => (errors ? { status: 'failed', errors } : outcomes[next++]));
  }
}
