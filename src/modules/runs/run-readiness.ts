import type { FieldErrors } from '../../common/http/api-exception.js';
import { quote } from '../../common/persistence/table-gateway.js';
import type { TenantReads } from '../../common/persistence/tables.js';
import type { Campaign } from '../marketing/entities/campaign.entity.js';
import { CampaignValidationRule } from '../marketing/entities/campaign-validation-rule.entity.js';
import { ValidationRule } from '../validation/entities/validation-rule.entity.js';
import { ruleCondition } from './validation-rule-filter.js';

/** An attached active validation rule, as a run evaluates it: the campaign's override when set. */
export interface AttachedRule {
  id: number;
  name: string;
  definition: string;
}

/** The active validation rules attached to a campaign, each with the definition that applies to it. */
export async function activeValidationRules(reads: TenantReads, campaignId: number): Promise<AttachedRule[]> {
  const [links, rules] = [reads.table(CampaignValidationRule), reads.table(ValidationRule)];
  const [l, r] = [quote(links.spec.table), quote(rules.spec.table)];
  const [ls, rs] = [links.scope(l), rules.scope(r)];
  const rows = await reads.select<{ id: number | string; name: string; definition: string; override: string | null }>(
    `SELECT ${r}.id AS id, ${r}.name AS name, ${r}.rule_definition AS definition, ${l}.rule_override AS override
       FROM ${l} JOIN ${r} ON ${r}.id = ${l}.validation_rule_id
      WHERE ${l}.campaign_id = ? AND ${ls.sql} AND ${rs.sql} AND ${r}.is_active = ?
      ORDER BY ${r}.id`,
    [campaignId, ...ls.params, ...rs.params, true],
  );
  return rows.map((row) => ({ id: Number(row.id), name: row.name, definition: row.override ?? row.definition }));
}

/** The day of an instant, as `YYYY-MM-DD` in UTC. */
const day = (instant: Date) => instant.toISOString().slice(0, 10);

/**
 * Why a campaign cannot run now, every reason at once (a launch answers them in one 422): its
 * status is not `active`; today is outside its dates; an attached active validation rule cannot be
 * evaluated. (The destinations' reasons are added by the caller.)
 */
export async function campaignRefusals(reads: TenantReads, campaign: Campaign, now: Date): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  if (campaign.status !== 'active') {
    errors.status = [`The campaign's status is ${campaign.status}: only an active campaign runs.`];
  }
  const [start, end] = [day(new Date(campaign.start_date)), day(new Date(campaign.end_date))];
  if (day(now) < start || day(now) > end) {
    errors.dates = [`Today (${day(now)}) is outside the campaign's dates, ${start} to ${end}.`];
  }
  const unreadable = (await activeValidationRules(reads, campaign.id))
    .map((rule) => ({ rule, parsed: ruleCondition(rule.definition) }))
    .filter(({ parsed }) => !parsed.ok)
    .map(
      ({ rule, parsed }) => `The rule "${rule.name}" cannot be evaluated: ${(parsed as { reason: string }).reason}.`,
    );
  if (unreadable.length) errors.validation_rules = unreadable;
  return errors;
}
