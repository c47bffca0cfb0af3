import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../../common/auth/auth-context.js';
import { RecordNotFound } from '../../../common/http/api-exception.js';
import { Tables } from '../../../common/persistence/tables.js';
import { toCustomerErasureResponse, type CustomerErasureResponse } from '../dto/customer-erasure.response.js';
import { CustomerErasure } from '../entities/customer-erasure.entity.js';
import { Customer } from '../entities/customer.entity.js';
import { survivingCustomer } from '../merge/customer-merge.service.js';
import { historyIds } from '../merge/merge-history.js';
import { SuppressionList } from '../suppression/suppression-list.js';
import { ErasureJobs } from './erasure-jobs.js';

/**
 * `POST /api/customers/{id}/erase`: in the request's transaction the customer is deleted (its
 * activity entry says only `{"erased": true}`; its tombstone `reason: "erased"`), its e-mail
 * address and external id go on the suppression list, and a job is queued that scrubs the traces
 * the service keeps (ErasureProcessor). From the answer on, nothing can write the person back.
 */
@Injectable()
export class CustomerErasuresService {
  constructor(
    private readonly tables: Tables,
    private readonly suppressions: SuppressionList,
    private readonly erasures: ErasureJobs,
  ) {}

  async request(auth: AuthContext, customerId: number): Promise<CustomerErasureResponse> {
    const answer = await this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      const customer = await survivingCustomer(tx, customerId, true);
      await this.suppressions.add(tx, bookkeeping, customer, auth.user.id || null);
      await tx.table(Customer).remove(customer, { forget: true, tombstone: { reason: 'erased' } });
      const job = await tx.table(CustomerErasure).insert({
        customer_id: customer.id,
        subject_ids: JSON.stringify(await historyIds(tx, customer.id)),
        status: 'queued',
        batch_uuid: auth.requestId,
        requested_by: auth.user.id || null,
      });
      await this.erasures.enqueue(bookkeeping, job);
      const answer = toCustomerErasureResponse(job);
      await tx.keepAnswer(answer);
      return answer;
    });
    this.erasures.nudge();
    return answer;
  }

  async get(auth: AuthContext, id: number): Promise<CustomerErasureResponse> {
    const job = await this.tables.read(auth).table(CustomerErasure).findById(id);
    if (!job) throw new RecordNotFound('erasure');
    return toCustomerErasureResponse(job);
  }
}
