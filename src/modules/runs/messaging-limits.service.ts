import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { ValidationFailed } from '../../common/http/api-exception.js';
import { uniqueViolationField } from '../../common/persistence/database-errors.js';
import { Tables, type TenantReads } from '../../common/persistence/tables.js';
import type { MessagingLimitsDto, MessagingLimitsResponse, MessagingRuleResponse } from './dto/schedule.dto.js';
import { MessagingLimits } from './entities/campaign-run.entity.js';

/** One frequency cap: at most `max` deliveries on `channel` (a destination type, or `any`) in `per_days` days. */
export type MessagingRule = MessagingRuleResponse;

/** The tenant's frequency caps (none: an empty list). */
export async function messagingRules(reads: TenantReads): Promise<MessagingRule[]> {
  const [row] = await reads.table(MessagingLimits).findWhere({});
  return row ? (JSON.parse(row.rules) as MessagingRule[]) : [];
}

/**
 * `GET` / `PUT /api/messaging-limits`: the tenant's frequency caps, one row per tenant. A run leaves
 * out, as `capped`, a customer who already received `max` deliveries on a rule's channel in its
 * window (docs/campaign-runs.md#frequency-caps).
 */
@Injectable()
export class MessagingLimitsService {
  constructor(private readonly tables: Tables) {}

  async get(auth: AuthContext): Promise<MessagingLimitsResponse> {
    return { rules: await messagingRules(this.tables.read(auth)) };
  }

  async put(auth: AuthContext, dto: MessagingLimitsDto): Promise<MessagingLimitsResponse> {
    const rules = dto.rules.map(({ channel, max, per_days }) => ({ channel, max, per_days }));
    const twice = rules.findIndex((rule, i) => rules.findIndex((other) => other.channel === rule.channel) !== i);
    if (twice >= 0)
      throw ValidationFailed.field(`rules.${twice}.channel`, `The channel ${rules[twice].channel} has a rule already.`);
    try {
      return await this.save(auth, rules);
    } catch (error) {
      // Two first PUTs of a tenant raced: the loser's insert met the winner's row, which it now updates.
      if (uniqueViolationField(error) === undefined) throw error;
      return this.save(auth, rules);
    }
  }

  private save(auth: AuthContext, rules: MessagingRule[]): Promise<MessagingLimitsResponse> {
    return this.tables.write(auth, async (tx) => {
      const table = tx.table(MessagingLimits);
      const [existing] = await table.findWhere({});
      const text = JSON.stringify(rules);
      if (existing) await table.update(existing, { rules: text });
      else await table.insert({ rules: text });
      const answer = { rules };
      await tx.keepAnswer(answer);
      return answer;
    });
  }
}
