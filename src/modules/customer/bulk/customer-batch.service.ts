import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../../common/auth/auth-context.js';
import { BULK_WRITE } from '../../../common/events/change-feed.js';
import { Page } from '../../../common/http/page.js';
import { Tables } from '../../../common/persistence/tables.js';
import type { UpsertOutcome, UpsertRow } from '../../../common/persistence/upsert-plan.js';
import type { CustomerBatchCounts, CustomerBatchDto, CustomerBatchResult } from '../dto/customer-batch.dto.js';
import type { Customer } from '../entities/customer.entity.js';
import { checkCustomerItem } from './customer-input.js';
import { CustomerUpserts } from './customer-upserts.js';

/**
 * `POST /api/customers/batch`: up to 1,000 upserts, the valid ones written in one transaction; an
 * item carrying a suppressed value (an erased person's) fails alone, and so do the creates beyond
 * the plan's cap (updates still apply).
 */
@Injectable()
export class CustomerBatchService {
  constructor(
    private readonly tables: Tables,
    private readonly upserts: CustomerUpserts,
  ) {}

  async upsert(auth: AuthContext, dto: CustomerBatchDto): Promise<Page<CustomerBatchResult, CustomerBatchCounts>> {
    const checked = dto.items.map(checkCustomerItem);
    const rows: UpsertRow<Customer>[] = [];
    const positions: number[] = [];
    checked.forEach((item, index) => {
      if (item.ok) {
        rows.push({ values: item.values });
        positions.push(index);
      }
    });
    const written: UpsertOutcome[] = rows.length
      ? await this.tables.writeWithBookkeeping(
          auth,
          (tx, bookkeeping) => this.upserts.upsert(tx, bookkeeping, rows),
          BULK_WRITE,
        )
      : [];
    const outcomes: UpsertOutcome[] = checked.map((item) =>
      item.ok ? (undefined as unknown as UpsertOutcome) : { status: 'failed', errors: item.errors },
    );
    positions.forEach((index, n) => (outcomes[index] = written[n]));

    const counts: CustomerBatchCounts = { created: 0, updated: 0, unchanged: 0, failed: 0 };
    const results = outcomes.map((outcome, index): CustomerBatchResult => {
      counts[outcome.status]++;
      return outcome.status === 'failed'
        ? { index, status: 'failed', id: null, errors: outcome.errors }
        : { index, status: outcome.status, id: outcome.id };
    });
    return new Page(results, counts);
  }
}
