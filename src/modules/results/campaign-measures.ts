import type { SqlValue } from '../../common/persistence/sql-text.js';
import { quote } from '../../common/persistence/table-gateway.js';
import type { TenantReads } from '../../common/persistence/tenant-reads.js';
import { parseWhere, type PropertyCondition } from '../audience/rules/rule-grammar.js';
import { numericProperty, propertyConditions } from '../audience/rules/sql-compiler.js';
import type { CustomerGoal, TreatmentGroup } from '../marketing/entities/campaign-children.entity.js';
import { receivesNothing } from '../runs/run-counts.js';
import { CampaignRun, CampaignRunMember, CampaignRunRecipient } from '../runs/entities/campaign-run.entity.js';
import { CustomerEvent, CustomerEventName } from '../tracking/entities/customer-event.entity.js';

/**
 * The counts behind a campaign's results (docs/campaign-results.md#how-conversions-are-counted),
 * computed from the rows as they are at the moment of the call (no precomputed table):
 *
 * - A campaign's members are the customers its runs (dry runs left out) put in a treatment group,
 *   each in the first run that did, with that run's group.
 * - A member's window starts at its first delivery in that run (`delivered_at` of its delivered
 *   recipients); a member of a group that receives nothing (control, holdout), and one with no
 *   delivery, from the run's `snapshot_at`.
 * - It converts on a goal at its first event of the goal's name matching the goal's `where` with
 *   `start < timestamp <= start + window_days`; `value_sum` adds the goal's `value_property` (a
 *   JSON number) over every such event.
 *
 * One statement counts the members and deliveries per group, one per measurable goal its
 * conversions and values per group: each reads the members with their start once, and probes the
 * events by (tenant, name, customer, timestamp).
 */

const DAY_MS = 86_400_000;

interface SqlPart {
  sql: string;
  params: SqlValue[];
}

export interface GroupTally {
  members: number;
  delivered: number;
}

export interface GoalTally {
  converted: number;
  valueSum: number;
}

/**
 * A whole number written into the statement rather than bound: MariaDB 10.11 answered a prepared
 * statement of this shape (a derived table of members, its window starts from bound values, joined
 * to the events) differently on its second execution than on its first (fewer conversions; the
 * test of the window's edges caught it). With the run ids, snapshots, group ids and window as
 * literals every execution answers the same; they are numbers of rows just read, never text.
 */
function literal(value: number | string | null): string {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`Not a whole number: ${String(value)}`);
  return String(n);
}

/** A goal measured by events: its name, conditions, window and summed property. */
export interface EventMeasure {
  event: string;
  where: PropertyCondition[];
  windowDays: number;
  valuePath: string[] | null;
}

/** How a goal is measured, or null when it is not measurable (descriptive, or measured by state: not done yet). */
export function eventMeasure(goal: CustomerGoal): EventMeasure | null {
  if (!goal.event) return null;
  const parsed = parseWhere(goal.conditions === null ? null : JSON.parse(goal.conditions));
  // Checked on write, so a stored one parses; a stored one that no longer would is not measured.
  if ('error' in parsed) return null;
  const valuePath = goal.value_property ? goal.value_property.replace(/^properties\./, '').split('.') : null;
  return { event: goal.event, where: parsed.where, windowDays: Number(goal.window_days), valuePath };
}

/** The runs whose members count: not dry runs, with their members recorded. */
export async function measuredRuns(reads: TenantReads, campaignId: number): Promise<CampaignRun[]> {
  const runs = await reads.table(CampaignRun).findWhere({ campaign_id: campaignId });
  return runs.filter((run) => !run.dry_run && run.snapshot_at !== null);
}

/**
 * The members of the campaign (of one run: the members whose first run it is) with their group,
 * their first delivery and the start of their window, as a derived table.
 */
function membersTable(
  reads: TenantReads,
  runs: readonly CampaignRun[],
  groups: readonly TreatmentGroup[],
  only: CampaignRun | null,
): SqlPart {
  const members = reads.table(CampaignRunMember);
  const recipients = reads.table(CampaignRunRecipient);
  const [M, P, R, D] = ['rm', 'rp', 'rr', 'rd'];
  const mt = quote(members.spec.table);
  const rt = quote(recipients.spec.table);
  // Whole numbers of the rows read above, written into the statement (see `literal`).
  const runList = runs.map((run) => literal(run.id)).join(', ');
  const snapshotAt = `(CASE ${M}.run_id ${runs.map((run) => `WHEN ${literal(run.id)} THEN ${literal(run.snapshot_at)}`).join(' ')} END)`;
  const silent = groups.filter((group) => receivesNothing(group.type)).map((group) => literal(group.id));
  const delivered = silent.length
    ? `CASE WHEN ${M}.treatment_group_id IN (${silent.join(', ')}) THEN NULL ELSE ${D}.first_delivered END`
    : `${D}.first_delivered`;
  const recipientScope = recipients.scope(R);
  const memberScope = members.scope(M);
  const earlierScope = members.scope(P);
  const where: SqlPart[] = [
    memberScope,
    { sql: only ? `${M}.run_id = ${literal(only.id)}` : `${M}.run_id IN (${runList})`, params: [] },
    { sql: `${M}.treatment_group_id IS NOT NULL`, params: [] },
  ];
  // A member of an earlier run of the campaign belongs to that run.
  if (only ? runs.some((run) => run.id < only.id) : runs.length > 1) {
    where.push({
      sql: `NOT EXISTS (SELECT 1 FROM ${mt} ${P} WHERE ${P}.customer_id = ${M}.customer_id AND ${P}.run_id < ${M}.run_id AND ${P}.run_id IN (${runList}) AND ${P}.treatment_group_id IS NOT NULL AND ${earlierScope.sql})`,
      params: earlierScope.params,
    });
  }
  // Each member's first delivery in its run (none for the groups that receive nothing).
  const deliveries = `SELECT ${R}.run_id AS run_id, ${R}.customer_id AS customer_id, MIN(${R}.delivered_at) AS first_delivered
    FROM ${rt} ${R} WHERE ${recipientScope.sql} AND ${R}.run_id IN (${only ? literal(only.id) : runList}) AND ${R}.status = 'delivered'
    GROUP BY ${R}.run_id, ${R}.customer_id`;
  return {
    sql: `SELECT ${M}.customer_id AS customer_id, ${M}.treatment_group_id AS grp, ${delivered} AS delivered_at,
        COALESCE(${delivered}, ${snapshotAt}) AS start_at
      FROM ${mt} ${M} LEFT JOIN (${deliveries}) ${D} ON ${D}.run_id = ${M}.run_id AND ${D}.customer_id = ${M}.customer_id
      WHERE ${where.map((part) => part.sql).join(' AND ')}`,
    params: [...recipientScope.params, ...where.flatMap((part) => part.params)],
  };
}

/** Members and deliveries per group id. */
export async function tallyGroups(
  reads: TenantReads,
  runs: readonly CampaignRun[],
  groups: readonly TreatmentGroup[],
  only: CampaignRun | null,
): Promise<Map<number, GroupTally>> {
  const tallies = new Map<number, GroupTally>();
  if (runs.length === 0) return tallies;
  const members = membersTable(reads, runs, groups, only);
  const rows = await reads.select<{ grp: number | string; members: number | string; delivered: number | string }>(
    `SELECT m.grp AS grp, COUNT(*) AS members, COUNT(m.delivered_at) AS delivered FROM (${members.sql}) m GROUP BY m.grp`,
    members.params,
  );
  for (const row of rows)
    tallies.set(Number(row.grp), { members: Number(row.members), delivered: Number(row.delivered) });
  return tallies;
}

/** Conversions and values per group id for one goal measured by events. */
export async function tallyGoal(
  reads: TenantReads,
  runs: readonly CampaignRun[],
  groups: readonly TreatmentGroup[],
  only: CampaignRun | null,
  measure: EventMeasure,
): Promise<Map<number, GoalTally>> {
  const tallies = new Map<number, GoalTally>();
  const converting = await convertingMembers(reads, runs, groups, only, measure);
  if (!converting) return tallies;
  const rows = await reads.select<{
    grp: number | string;
    converted: number | string;
    value_sum: number | string | null;
  }>(
    `SELECT x.grp AS grp, COUNT(*) AS converted, SUM(x.value) AS value_sum FROM (${converting.sql}) x GROUP BY x.grp`,
    converting.params,
  );
  for (const row of rows)
    tallies.set(Number(row.grp), { converted: Number(row.converted), valueSum: Number(row.value_sum ?? 0) });
  return tallies;
}

/** One row per converting member: its group, its first matching event in the window, the value of its events there. */
async function convertingMembers(
  reads: TenantReads,
  runs: readonly CampaignRun[],
  groups: readonly TreatmentGroup[],
  only: CampaignRun | null,
  measure: EventMeasure,
): Promise<SqlPart | null> {
  if (runs.length === 0) return null;
  const names = reads.table(CustomerEventName);
  const [name] = await names.findWhere({ name: measure.event });
  // A name never tracked: no event can match.
  if (!name) return null;
  const events = reads.table(CustomerEvent);
  const E = 'ge';
  const et = quote(events.spec.table);
  const members = membersTable(reads, runs, groups, only);
  const scope = events.scope(E);
  const conditions = propertyConditions(E, measure.where, { dialect: reads.dialect, alias: 'c', now: new Date() });
  const value = measure.valuePath ? `SUM(${numericProperty(E, measure.valuePath, reads.dialect)})` : '0';
  const on = [
    scope,
    { sql: `${E}.name_id = ?`, params: [name.id] },
    { sql: `${E}.customer_id = m.customer_id`, params: [] },
    { sql: `${E}.occurred_at > m.start_at`, params: [] },
    { sql: `${E}.occurred_at <= m.start_at + ${literal(measure.windowDays * DAY_MS)}`, params: [] },
    ...conditions,
  ];
  return {
    sql: `SELECT m.grp AS grp, m.customer_id AS customer_id, MIN(${E}.occurred_at) AS converted_at, ${value} AS value
      FROM (${members.sql}) m JOIN ${et} ${E} ON ${on.map((part) => part.sql).join(' AND ')}
      GROUP BY m.grp, m.customer_id`,
    params: [...members.params, ...on.flatMap((part) => part.params as SqlValue[])],
  };
}
