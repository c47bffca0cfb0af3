import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../../common/auth/auth-context.js';
import { RecordNotFound } from '../../../common/http/api-exception.js';
import { Page } from '../../../common/http/page.js';
import { pageRequest } from '../../../common/persistence/keyset.js';
import { Tables } from '../../../common/persistence/tables.js';
import type { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import {
  toCustomerSuppressionResponse,
  type CustomerSuppressionResponse,
} from '../dto/customer-suppression.response.js';
import { CustomerSuppression } from '../entities/customer-suppression.entity.js';

const SORTS = {} as const;

/** `GET /api/suppressions` and `DELETE /api/suppressions/{id}`: the list as its entries' kinds and dates, and lifting one. */
@Injectable()
export class SuppressionsService {
  constructor(private readonly tables: Tables) {}

  async list(auth: AuthContext, query: ListQueryDto): Promise<Page<CustomerSuppressionResponse>> {
    const { rows, meta } = await this.tables
      .read(auth)
      .table(CustomerSuppression)
      .page(pageRequest(query, SORTS), [], false);
    return new Page(rows.map(toCustomerSuppressionResponse), meta);
  }

  /** Lifts an entry (the person came back and consented): logged as its deletion, with the caller as causer. */
  lift(auth: AuthContext, id: number): Promise<null> {
    return this.tables.write(auth, async (tx) => {
      const table = tx.table(CustomerSuppression);
      const entry = await table.findById(id, { lock: true });
      if (!entry || !(await table.remove(entry))) throw new RecordNotFound('suppression');
      return null;
    });
  }
}
