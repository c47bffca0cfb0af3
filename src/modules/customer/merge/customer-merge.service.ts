import { Inject, Injectable, Optional } from '@nestjs/common';
import type { AuthContext } from '../../../common/auth/auth-context.js';
import { ApiException, RecordNotFound, ValidationFailed } from '../../../common/http/api-exception.js';
import { WithMeta } from '../../../common/http/page.js';
import { Tables, type TenantReads, type TenantTx } from '../../../common/persistence/tables.js';
import { CustomerRules } from '../customer-rules.js';
import { CUSTOMER_TRACES, type CustomerTraces } from '../customer-traces.js';
import { CustomersService } from '../customers.service.js';
import type { CustomerMergeDto, CustomerMergeMeta } from '../dto/customer-merge.dto.js';
import type { CustomerResponse } from '../dto/customer.response.js';
import { CustomerMerge } from '../entities/customer-merge.entity.js';
import { Customer } from '../entities/customer.entity.js';
import { mergedValues } from './merge-plan.js';

export type MergeAnswer = WithMeta<CustomerResponse, CustomerMergeMeta>;

/**
 * `POST /api/customers/{id}/merge`: the sources' values go into the survivor (merge-plan.ts) and
 * the sources are deleted, in one transaction that holds every one of them locked: of two merges
 * over the same records, the second finds a source gone (422) or its survivor merged away (409).
 * `customer_merges` keeps which id went into which, a source once at most.
 */
@Injectable()
export class CustomerMergeService {
  constructor(
    private readonly tables: Tables,
    private readonly customers: CustomersService,
    private readonly rules: CustomerRules,
    @Optional() @Inject(CUSTOMER_TRACES) private readonly traces: readonly CustomerTraces[] = [],
  ) {}

  merge(auth: AuthContext, survivorId: number, dto: CustomerMergeDto): Promise<MergeAnswer> {
    checkSources(survivorId, dto.from);
    const prefer = dto.prefer ?? 'target';
    if (dto.dry_run) {
      return this.preview(this.tables.read(auth), survivorId, dto.from, prefer);
    }
    return this.tables.write(auth, async (tx) => {
      const survivor = await survivingCustomer(tx, survivorId, true);
      const sources = await this.sources(tx, dto.from, true);
      const table = tx.table(Customer);
      // The sources go first: the survivor may take over an external id, which is unique.
      await table.removeMany(sources, {
        tombstone: { reason: 'merged', merged_into: survivorId },
        description: 'merged',
      });
      await tx.table(CustomerMerge).insertMany(
        dto.from.map((sourceId) => ({ survivor_id: survivorId, source_id: sourceId })),
        { log: false },
      );
      // What other modules keep per customer (tracked events) is the survivor's from now on.
      for (const traces of this.traces) await traces.move(tx, dto.from, survivorId);
      const values = mergedValues(survivor, sources, prefer);
      // The survivor's new values are a write like any other: a value suppressed since a source took it is refused.
      await this.rules.check(tx, { email: values.email, external_id: values.external_id });
      // With nothing of its own changed, the survivor was still merged: its entry and event say so.
      const merged = Object.keys(values).length
        ? (await table.update(survivor, values, { description: 'merged' }))!
        : {
            ...survivor,
            updated_at: await table.updateParts(survivor, { merged: dto.from }, {}, { description: 'merged' }),
          };
      const [record] = await this.customers.respond(tx, [merged]);
      const answer = new WithMeta(record, { merged: dto.from });
      await tx.keepAnswer(answer);
      return answer;
    });
  }

  private async preview(reads: TenantReads, survivorId: number, from: number[], prefer: 'target' | 'source') {
    const survivor = await survivingCustomer(reads, survivorId, false);
    const sources = await this.sources(reads, from, false);
    const [record] = await this.customers.respond(reads, [{ ...survivor, ...mergedValues(survivor, sources, prefer) }]);
    return new WithMeta(record, { merged: from });
  }

  /** The sources in the order given, every one of them a live customer of the tenant (422 on `from` otherwise). */
  private async sources(reads: TenantReads | TenantTx, ids: number[], lock: boolean): Promise<Customer[]> {
    const found = new Map((await reads.table(Customer).findMany(ids, { lock })).map((row) => [row.id, row]));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) {
      throw ValidationFailed.field('from', `The selected from is invalid: no customer ${missing.join(', ')}.`);
    }
    return ids.map((id) => found.get(id)!);
  }
}

/** A live customer of the tenant; one merged away answers 409 (naming where it went), any other missing one 404. */
export async function survivingCustomer(reads: TenantReads | TenantTx, id: number, lock: boolean): Promise<Customer> {
  const customer = await reads.table(Customer).findById(id, { lock });
  if (customer) return customer;
  const [merge] = await reads.table(CustomerMerge).findWhere({ source_id: id });
  if (merge) {
    throw new ApiException(409, { message: `The customer was merged into customer ${merge.survivor_id}.` });
  }
  throw new RecordNotFound('customer');
}

function checkSources(survivorId: number, from: number[]): void {
  if (from.includes(survivorId)) {
    throw ValidationFailed.field('from', 'The from field must not list the customer merged into.');
  }
  const twice = from.find((id, i) => from.indexOf(id) !== i);
  if (twice !== undefined) throw ValidationFailed.field('from', `The from field lists customer ${twice} twice.`);
}
