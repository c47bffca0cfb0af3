import { Injectable } from '@nestjs/common';
import { systemAuth, type AuthContext } from '../../../common/auth/auth-context.js';
import { RecordNotFound } from '../../../common/http/api-exception.js';
import { wholeSecondNow } from '../../../common/persistence/columns.js';
import { Tables } from '../../../common/persistence/tables.js';
import { Customer } from '../entities/customer.entity.js';
import { UnsubscribeTokens } from './unsubscribe-tokens.js';

/**
 * One-click unsubscribe (docs/destinations/email.md#unsubscribe): a genuine token unsubscribes its
 * customer at once (`unsubscribed_at`, a change of the customer like any other: in the activity log
 * and the change feed), and every later e-mail delivery leaves that customer out. A token of an
 * address the customer no longer has, or of a customer who is gone, changes nothing: no more mail
 * goes to that address anyway. A manager resubscribes a customer.
 */
@Injectable()
export class UnsubscribeService {
  constructor(
    private readonly tables: Tables,
    private readonly tokens: UnsubscribeTokens,
  ) {}

  /** 404 for a token that is not genuine; otherwise the customer is (or already was) unsubscribed. */
  async unsubscribe(token: string, requestId: string): Promise<{ unsubscribed: true }> {
    const claim = this.tokens.verify(token);
    if (!claim) throw new RecordNotFound('unsubscribe link');
    await this.tables.write(systemAuth(claim.tenantId, requestId), async (tx) => {
      const customer = await tx.table(Customer).findById(claim.customerId, { lock: true });
      if (!customer || customer.unsubscribed_at || !this.tokens.names(claim, customer.email)) return;
      await tx.table(Customer).update(customer, { unsubscribed_at: wholeSecondNow() });
    });
    return { unsubscribed: true };
  }

  /** Whether the token is genuine (the page shows its button; it unsubscribes nobody). */
  isGenuine(token: string): boolean {
    return this.tokens.verify(token) !== undefined;
  }

  /** DELETE /api/customers/{id}/unsubscribe: e-mail deliveries include the customer again. */
  resubscribe(auth: AuthContext, customerId: number): Promise<null> {
    return this.tables.write(auth, async (tx) => {
      const customer = await tx.table(Customer).findById(customerId, { lock: true });
      if (!customer) throw new RecordNotFound('customer');
      if (customer.unsubscribed_at) await tx.table(Customer).update(customer, { unsubscribed_at: null });
      return null;
    });
  }
}
