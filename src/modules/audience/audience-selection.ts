import type { Dialect } from '../../common/persistence/sql.js';
import type { Condition as SqlCondition } from '../../common/persistence/keyset.js';
import type { ReadableTable, TenantReads } from '../../common/persistence/tables.js';
import { quote } from '../../common/persistence/table-gateway.js';
import { CustomerEvent, CustomerEventName } from '../tracking/entities/customer-event.entity.js';
import { AUDIENCE_RULES_TABLE, Audience, AudienceRule, CampaignAudience } from './entities/audience.entity.js';
import { parseSegment, type ConditionTree } from './rules/condition-tree.js';
import {
  DEFAULT_MATCH,
  evaluableConditions,
  isMatchMode,
  type Condition,
  type MatchMode,
  type RuleInput,
} from './rules/rule-grammar.js';
import {
  MATCH_NOBODY,
  and,
  compileRules,
  compileSegment,
  impliedLowerBound,
  or,
  type BehaviourTables,
  type CompileOptions,
  type ScopedTableRef,
  type SqlFragment,
  type SqlParam,
} from './rules/sql-compiler.js';

/** The alias every compiled filter uses for the customers table. */
export const CUSTOMER_ALIAS = 'c';

/**
 * Which customers of the tenant something selects (an audience, a sub-audience, a campaign's
 * eligible customers), as one SQL condition over `customers c`, evaluated at `now`.
 */
export interface Selection {
  filter: SqlFragment;
  /** False when nothing can be evaluated (no rule names a field): the selection is empty. */
  evaluable: boolean;
  /**
   * The created_at (SQL text, as the compiler writes it) that every selected customer reaches,
   * when the rules imply one: member scans turn it into an id floor (rules/README.md).
   */
  since: string | null;
  /**
   * It counts tracked events (a behaviour node): each statement that evaluates it reads them once,
   * so a scan reads the customers in one statement rather than in id ranges side by side.
   */
  behaviour: boolean;
  now: Date;
}

/** What rules are compiled for: the database, and the tenant's tracked events (the behaviour operators). */
export interface RuleScope {
  dialect: Dialect;
  behaviour: BehaviourTables;
}

const tableRef = <E extends { id: number }>(table: ReadableTable<E>): ScopedTableRef => ({
  table: quote(table.spec.table),
  scope: (alias) => {
    const scope: SqlCondition = table.scope(alias);
    return { sql: scope.sql, params: scope.params as SqlParam[] };
  },
});

/** The scope of rules read or evaluated through `reads`: its dialect, and its tenant's events and their names. */
export const ruleScope = (reads: TenantReads): RuleScope => ({
  dialect: reads.dialect,
  behaviour: { events: tableRef(reads.table(CustomerEvent)), names: tableRef(reads.table(CustomerEventName)) },
});

export const compileOptions = (scope: RuleScope, now: Date): CompileOptions => ({
  dialect: scope.dialect,
  alias: CUSTOMER_ALIAS,
  now,
  behaviour: scope.behaviour,
});

const NOBODY = (now: Date): Selection => ({
  filter: MATCH_NOBODY,
  evaluable: false,
  since: null,
  behaviour: false,
  now,
});

const countsEvents = (condition: Condition) => condition.field.kind === 'event';
function treeCountsEvents(tree: ConditionTree): boolean {
  if (tree.kind === 'condition') return countsEvents(tree.condition);
  if (tree.kind === 'not') return treeCountsEvents(tree.child);
  return tree.children.some(treeCountsEvents);
}

/** The selection of rules combined by `match` (stored rules, or a preview's validated ones). */
export function ruleSelection(rules: RuleInput[], match: MatchMode, scope: RuleScope, now: Date): Selection {
  const conditions: Condition[] = evaluableConditions(rules);
  if (conditions.length === 0) return NOBODY(now);
  return {
    filter: compileRules(conditions, match, compileOptions(scope, now)),
    evaluable: true,
    since: impliedLowerBound(conditions, match, 'created_at', now),
    behaviour: conditions.some(countsEvents),
    now,
  };
}

/** The selections of audiences read through the tenant scope, their rules read in one query. */
export async function audienceSelections(
  tx: TenantReads,
  audiences: Pick<Audience, 'id' | 'match'>[],
  now: Date,
): Promise<Map<number, Selection>> {
  const rules = await tx
    .children(
      AudienceRule,
      'audience_id',
      audiences.map((a) => a.id),
    )
    .list();
  return new Map(
    audiences.map((audience) => [
      audience.id,
      ruleSelection(
        rules.filter((rule) => rule.audience_id === audience.id),
        isMatchMode(audience.match) ? audience.match : DEFAULT_MATCH,
        ruleScope(tx),
        now,
      ),
    ]),
  );
}

/**
 * A selection narrowed by a segment_definition / segment_override text: a condition tree keeps
 * the customers that also match it; any other JSON (or none) narrows nothing. Texts are checked
 * when written; one stored before trees existed that uses the tree keys without being a valid
 * tree selects nobody (it cannot be evaluated, and selecting everybody would be the worse guess).
 */
export function narrowed(selection: Selection, segment: string | null, scope: RuleScope): Selection {
  if (segment === null || !selection.evaluable) return selection;
  const parsed = parseSegment(segment);
  if (!parsed.ok) return NOBODY(selection.now);
  const narrowing = compileSegment(parsed.segment, compileOptions(scope, selection.now));
  if (!narrowing) return selection;
  const behaviour = selection.behaviour || (parsed.segment.kind === 'tree' && treeCountsEvents(parsed.segment.tree));
  return { ...selection, filter: and(selection.filter, narrowing), behaviour };
}

/** Customers selected by any of these; the created_at floor survives when each has one. */
export function anyOf(selections: Selection[], now: Date): Selection {
  const live = selections.filter((s) => s.evaluable);
  if (live.length === 0) return NOBODY(now);
  const sinces = live.map((s) => s.since);
  return {
    filter: or(...live.map((s) => s.filter)),
    evaluable: true,
    since: sinces.every((s) => s !== null) ? (sinces as string[]).sort()[0] : null,
    behaviour: live.some((s) => s.behaviour),
    now,
  };
}

/** One of a campaign's audience links, as eligibility needs it. */
export interface CampaignLink {
  segment: string | null;
  match: MatchMode;
  rules: RuleInput[];
}

/**
 * A campaign's audience links with their audiences' match and rules, in one query (an assignment
 * lookup reads them at most once per change of the campaign: CampaignDefinitions).
 */
export async function readCampaignLinks(tx: TenantReads, campaignId: number): Promise<CampaignLink[]> {
  const links = tx.table(CampaignAudience);
  const audiences = tx.table(Audience);
  const [l, a, r] = [quote(links.spec.table), quote(audiences.spec.table), quote(AUDIENCE_RULES_TABLE)];
  const [linkScope, audienceScope] = [links.scope(l), audiences.scope(a)];
  const rows = await tx.select<{
    link_id: number | string;
    segment_override: string | null;
    match: string;
    rule_type: string | null;
    rule_value: string | null;
    field: string | null;
    operator: string | null;
  }>(
    `SELECT ${l}.id AS link_id, ${l}.segment_override AS segment_override, ${a}.${quote('match')} AS ${quote('match')},
            ${r}.rule_type AS rule_type, ${r}.rule_value AS rule_value, ${r}.field AS field, ${r}.operator AS operator
       FROM ${l} JOIN ${a} ON ${a}.id = ${l}.audience_id
       LEFT JOIN ${r} ON ${r}.audience_id = ${a}.id
      WHERE ${l}.campaign_id = ? AND ${linkScope.sql} AND ${audienceScope.sql}
      ORDER BY ${l}.id, ${r}.id`,
    [campaignId, ...linkScope.params, ...audienceScope.params],
  );
  const linked = new Map<string, CampaignLink>();
  for (const row of rows) {
    const key = String(row.link_id);
    let link = linked.get(key);
    if (!link) {
      link = { segment: row.segment_override, match: isMatchMode(row.match) ? row.match : DEFAULT_MATCH, rules: [] };
      linked.set(key, link);
    }
    if (row.rule_type !== null) {
      const { rule_type, rule_value, field, operator } = row;
      link.rules.push({ rule_type, rule_value, field, operator });
    }
  }
  return [...linked.values()];
}

/** The customers eligible for a campaign: members of any of its audiences, each narrowed by the link's segment_override. */
export function campaignEligibility(links: readonly CampaignLink[], scope: RuleScope, now: Date): Selection {
  return anyOf(
    links.map((link) => narrowed(ruleSelection(link.rules, link.match, scope, now), link.segment, scope)),
    now,
  );
}
