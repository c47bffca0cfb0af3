import { quote } from '../../common/persistence/table-gateway.js';
import type { TenantReads } from '../../common/persistence/tenant-reads.js';
import { propertyConditions } from '../audience/rules/sql-compiler.js';
import { CustomerGoal, TreatmentGroup } from '../marketing/entities/campaign-children.entity.js';
import { CampaignRun, CampaignRunMember, CampaignRunRecipient } from '../runs/entities/campaign-run.entity.js';
import { receivesNothing } from '../runs/run-counts.js';
import { CustomerEvent, CustomerEventName } from '../tracking/entities/customer-event.entity.js';
import type { TimelineEntry, TimelineSource, TimelineSubject } from '../tracking/timeline/timeline-source.js';
import { eventMeasure } from './campaign-measures.js';

const DAY_MS = 86_400_000;

const inList = (column: string, values: readonly number[]) => ({
  sql: `${column} IN (${values.map(() => '?').join(', ')})`,
  params: [...values],
});

/**
 * `conversion`: the customer's conversions on the goals of the campaigns it is a member of, each at
 * its converting event's `timestamp` (docs/campaign-results.md), counted as the results count them:
 * in the first run of each campaign that put the customer (or a customer merged into it) in a
 * group, from its first delivery there (the snapshot for a control or undelivered member). `id` is
 * the converting event's; `position` the goal's (one conversion per goal). A customer is in few
 * campaigns: every conversion is computed, then the page's part taken.
 */
export const CONVERSION_TIMELINE: TimelineSource = {
  kind: 'conversion',

  async read(
    reads: TenantReads,
    subject: TimelineSubject,
    before: { at: number; position: number } | null,
    limit: number,
  ): Promise<TimelineEntry[]> {
    const ids = [...new Set([subject.id, ...subject.historyIds])];
    const members = reads.table(CampaignRunMember);
    const m = quote(members.spec.table);
    const memberships = (
      await members.findBatch(
        [inList(`${m}.customer_id`, ids), { sql: `${m}.treatment_group_id IS NOT NULL`, params: [] }],
        {
          limit: 10_000,
        },
      )
    ).sort((a, b) => a.run_id - b.run_id);
    if (memberships.length === 0) return [];
    const runs = new Map(
      (await reads.table(CampaignRun).findMany([...new Set(memberships.map((row) => row.run_id))]))
        .filter((run) => !run.dry_run && run.snapshot_at !== null)
        .map((run) => [run.id, run]),
    );
    // The first run of each campaign that put the customer in a group.
    const firsts = new Map<number, { run: CampaignRun; groupId: number }>();
    for (const row of memberships) {
      const run = runs.get(row.run_id);
      if (run && !firsts.has(Number(run.campaign_id)))
        firsts.set(Number(run.campaign_id), { run, groupId: Number(row.treatment_group_id) });
    }
    const entries: TimelineEntry[] = [];
    for (const [campaignId, { run, groupId }] of firsts) {
      const goals = (await reads.table(CustomerGoal).findWhere({ campaign_id: campaignId })).flatMap((goal) => {
        const measure = eventMeasure(goal);
        return measure ? [{ goal, measure }] : [];
      });
      if (goals.length === 0) continue;
      const group = await reads.table(TreatmentGroup).findById(groupId);
      let start = Number(run.snapshot_at);
      if (group && !receivesNothing(group.type)) {
        const recipients = reads.table(CampaignRunRecipient);
        const r = quote(recipients.spec.table);
        const scope = recipients.scope(r);
        const ids2 = inList(`${r}.customer_id`, ids);
        const [first] = await reads.select<{ at: number | string | null }>(
          `SELECT MIN(${r}.delivered_at) AS at FROM ${r} WHERE ${scope.sql} AND ${r}.run_id = ? AND ${ids2.sql} AND ${r}.status = 'delivered'`,
          [...scope.params, run.id, ...ids2.params],
        );
        if (first?.at !== null && first?.at !== undefined) start = Number(first.at);
      }
      for (const { goal, measure } of goals) {
        const [name] = await reads.table(CustomerEventName).findWhere({ name: measure.event });
        if (!name) continue;
        const events = reads.table(CustomerEvent);
        const e = 'ce';
        const scope = events.scope(e);
        const where = [
          scope,
          { sql: `${e}.name_id = ?`, params: [name.id] },
          { sql: `${e}.customer_id = ?`, params: [subject.id] },
          { sql: `${e}.occurred_at > ?`, params: [start] },
          { sql: `${e}.occurred_at <= ?`, params: [start + measure.windowDays * DAY_MS] },
          ...propertyConditions(e, measure.where, { dialect: reads.dialect, alias: 'c', now: new Date() }),
        ];
        const [converting] = await reads.select<{ id: number | string; occurred_at: number | string }>(
          `SELECT ${e}.id AS id, ${e}.occurred_at AS occurred_at FROM ${quote(events.spec.table)} ${e}
            WHERE ${where.map((part) => part.sql).join(' AND ')} ORDER BY ${e}.occurred_at, ${e}.id LIMIT 1`,
          where.flatMap((part) => part.params),
        );
        if (!converting) continue;
        entries.push({
          at: Number(converting.occurred_at),
          kind: 'conversion',
          type: goal.name,
          id: Number(converting.id),
          position: goal.id,
          data: {
            campaign_id: campaignId,
            goal_id: goal.id,
            event: measure.event,
            event_id: Number(converting.id),
            run_id: run.id,
            treatment_group_id: groupId,
          },
        });
      }
    }
    return entries
      .filter(
        (entry) => !before || entry.at < before.at || (entry.at === before.at && entry.position < before.position),
      )
      .sort((a, b) => b.at - a.at || b.position - a.position)
      .slice(0, limit);
  },
};
