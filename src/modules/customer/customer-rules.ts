import { Injectable } from '@nestjs/common';
import { ValidationFailed, type FieldErrors } from '../../common/http/api-exception.js';
import type { Sql } from '../../common/persistence/sql.js';
import type { TenantReads, TenantTx } from '../../common/persistence/tables.js';
import type { UpsertOutcome, UpsertRow } from '../../common/persistence/upsert-plan.js';
import { RecordCaps } from '../../common/usage/record-caps.js';
import { Customer } from './entities/customer.entity.js';
import { SuppressionList, type SuppressibleValues } from './suppression/suppression-list.js';

/**
 * The rules every write of customers meets, whatever its path: the fields are CustomerDto's
 * (the single write's validation pipe, and checkCustomerItem for a batch item, an import row or a
 * tracked event's new customer), then here:
 *
 * - a value on the suppression list (an erased person's e-mail address or external id) is refused
 *   on its field: a single write with a 422, an item of many alone;
 * - creates beyond the plan's customer cap are refused: a single write with a 403 (RecordCaps, as
 *   the write records its change), an item of many alone;
 * - a merge's result is checked as a write of its values.
 *
 * Single writes (CustomersService), the batch, an import chunk, a merge, `POST /api/track` and a
 * campaign run's snapshot (its suppressed members) go through here.
 */
@Injectable()
export class CustomerRules {
  constructor(
    private readonly suppressions: SuppressionList,
    private readonly caps: RecordCaps,
  ) {}

  /**
   * For each of many customers' values (a run's eligible members, set-based paths): the errors that
   * refuse them, undefined when none does.
   */
  refusals(reads: TenantReads, values: readonly SuppressibleValues[]): Promise<(FieldErrors | undefined)[]> {
    return this.suppressions.refusals(reads, values);
  }

  /** One customer's values as written (a create, a PUT's values sent anew, a merge's result): 422 on a suppressed field. */
  async check(reads: TenantReads, values: SuppressibleValues): Promise<void> {
    const [refused] = await this.suppressions.refusals(reads, [values]);
    if (refused) throw new ValidationFailed(refused);
  }

  /**
   * Many upserts by external id, as a batch or an import chunk writes them, in the write `tx`
   * (`bookkeeping`: its SQL, for the plan's count): an item with a suppressed value fails alone,
   * and so do the creates beyond the plan's cap; the rest are written. `log: false` writes no
   * activity entry per customer (an import logs one for the job).
   */
  async upsert(
    tx: TenantTx,
    bookkeeping: Sql,
    rows: readonly UpsertRow<Customer>[],
    options: { log?: boolean } = {},
  ): Promise<UpsertOutcome[]> {
    const refusals = await this.suppressions.refusals(
      tx,
      rows.map((row) => row.values),
    );
    const written = await tx.table(Customer).upsertMany(
      rows.filter((_, i) => !refusals[i]),
      {
        key: 'external_id',
        attempt: tx.attempt,
        log: options.log,
        creates: (wanted) => this.caps.createsAllowed(bookkeeping, tx.auth, 'customers', wanted),
      },
    );
    let next = 0;
    return refusals.map((errors): UpsertOutcome => (errors ? { status: 'failed', errors } : written[next++]));
  }
}
