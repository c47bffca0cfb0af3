import { RecordNotFound, ValidationFailed, type FieldErrors } from '../../common/http/api-exception.js';
import type { TenantReads } from '../../common/persistence/tenant-reads.js';
import { parseWhere } from '../audience/rules/rule-grammar.js';
import type { CampaignKpiResponse } from '../marketing/dto/marketing.responses.js';
import { CampaignKpi, CustomerGoal, TreatmentGroup } from '../marketing/entities/campaign-children.entity.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import type { GoalMeasureInput, GoalMeasures } from '../marketing/goal-measures.js';
import type { CampaignRun } from '../runs/entities/campaign-run.entity.js';
import { receivesNothing } from '../runs/run-counts.js';
import { isEventName } from '../tracking/track-input.js';
import {
  eventMeasure,
  measuredRuns,
  tallyGoal,
  tallyGroups,
  type GoalTally,
  type GroupTally,
} from './campaign-measures.js';
import type { CampaignResultsResponse, GoalResultResponse, KpiResultResponse } from './dto/results.dto.js';
import { campaignStatistics, srm, type GoalCounts } from './statistics.js';

/** The KPI types measured, and whether they need a goal. */
const MEASURED_KPIS: Record<string, { needsGoal: boolean }> = {
  conversions: { needsGoal: true },
  conversion_rate: { needsGoal: true },
  value: { needsGoal: true },
  delivered: { needsGoal: false },
};

const isControl = (group: TreatmentGroup) => group.type.toLowerCase() === 'control';

/** What was counted for a campaign: per group, and per measurable goal per group. */
interface CampaignTallies {
  groups: TreatmentGroup[];
  members: Map<number, GroupTally>;
  goals: Map<number, Map<number, GoalTally>>;
}

async function tallyCampaign(
  reads: TenantReads,
  campaignId: number,
  goals: readonly CustomerGoal[],
  only: CampaignRun | null,
  runs?: CampaignRun[],
): Promise<CampaignTallies> {
  const groups = await reads.table(TreatmentGroup).findWhere({ campaign_id: campaignId });
  const measured = runs ?? (await measuredRuns(reads, campaignId));
  // One statement per goal and one for the members, side by side on the pool (SQLite takes them in turn).
  const measurable = goals.flatMap((goal) => {
    const measure = eventMeasure(goal);
    return measure ? [{ goal, measure }] : [];
  });
  const [members, ...goalTallies] = await Promise.all([
    tallyGroups(reads, measured, groups, only),
    ...measurable.map(({ measure }) => tallyGoal(reads, measured, groups, only, measure)),
  ]);
  const tallies = new Map(measurable.map(({ goal }, i) => [goal.id, goalTallies[i]]));
  return { groups, members, goals: tallies };
}

/** A KPI's measured value over the non-control members, or null when it is not measured. */
function measuredValue(kpi: CampaignKpi, tallies: CampaignTallies): number | null {
  const kind = MEASURED_KPIS[kpi.kpi_type];
  if (!kind) return null;
  const treated = tallies.groups.filter((group) => !receivesNothing(group.type));
  const members = treated.reduce((sum, group) => sum + (tallies.members.get(group.id)?.members ?? 0), 0);
  if (kpi.kpi_type === 'delivered')
    return treated.reduce((sum, group) => sum + (tallies.members.get(group.id)?.delivered ?? 0), 0);
  const goal = kpi.goal_id === null ? undefined : tallies.goals.get(Number(kpi.goal_id));
  if (!goal) return null;
  const converted = treated.reduce((sum, group) => sum + (goal.get(group.id)?.converted ?? 0), 0);
  if (kpi.kpi_type === 'conversions') return converted;
  if (kpi.kpi_type === 'conversion_rate') return members === 0 ? 0 : converted / members;
  return treated.reduce((sum, group) => sum + (goal.get(group.id)?.valueSum ?? 0), 0);
}

/**
 * GET /api/campaigns/{id}/results (docs/campaign-results.md). `goal_id` narrows the answer to one
 * goal; `run_id` counts the members whose first run of the campaign it is. The correction for many
 * comparisons is over every measurable (goal, group) pair of what is counted, whatever `goal_id`.
 */
export async function campaignResults(
  reads: TenantReads,
  campaignId: number,
  filters: { goal_id?: number; run_id?: number },
): Promise<CampaignResultsResponse> {
  const computedAt = new Date();
  if (!(await reads.table(Campaign).findById(campaignId))) throw new RecordNotFound('campaign');
  const goals = await reads.table(CustomerGoal).findWhere({ campaign_id: campaignId });
  const runs = await measuredRuns(reads, campaignId);
  const errors: FieldErrors = {};
  if (filters.goal_id !== undefined && !goals.some((goal) => goal.id === filters.goal_id))
    errors.goal_id = ['The selected goal id is not a goal of this campaign.'];
  let only: CampaignRun | null = null;
  if (filters.run_id !== undefined) {
    only = runs.find((run) => run.id === filters.run_id) ?? null;
    if (!only) errors.run_id = ['The selected run id is not a run of this campaign with recorded members.'];
  }
  if (Object.keys(errors).length) throw new ValidationFailed(errors);

  const tallies = await tallyCampaign(reads, campaignId, goals, only, runs);
  const { groups } = tallies;
  const control = groups.findIndex(isControl);
  const measurable = goals.filter((goal) => tallies.goals.has(goal.id));
  const counts: GoalCounts[] = measurable.map((goal) => ({
    control: control === -1 ? null : control,
    groups: groups.map((group) => {
      const tally = tallies.goals.get(goal.id)!.get(group.id);
      return {
        members: tallies.members.get(group.id)?.members ?? 0,
        converted: tally?.converted ?? 0,
        valueSum: tally?.valueSum ?? 0,
      };
    }),
  }));
  const statistics = campaignStatistics(counts);

  const goalAnswers: GoalResultResponse[] = goals
    .filter((goal) => filters.goal_id === undefined || goal.id === filters.goal_id)
    .map((goal) => {
      const index = measurable.indexOf(goal);
      return {
        goal_id: goal.id,
        name: goal.name,
        measurable: index !== -1,
        window_days: Number(goal.window_days),
        groups:
          index === -1
            ? []
            : groups.map((group, g) => {
                const tally = tallies.members.get(group.id);
                const counted = counts[index].groups[g];
                return {
                  treatment_group_id: group.id,
                  name: group.name,
                  type: group.type,
                  members: counted.members,
                  delivered: receivesNothing(group.type) ? 0 : (tally?.delivered ?? 0),
                  converted: counted.converted,
                  value_sum: counted.valueSum,
                  ...statistics[index][g],
                };
              }),
      };
    });

  const kpis = await reads.table(CampaignKpi).findWhere({ campaign_id: campaignId });
  const kpiAnswers: KpiResultResponse[] = kpis.map((kpi) => {
    const measured = measuredValue(kpi, tallies);
    return {
      kpi_id: kpi.id,
      name: kpi.name,
      kpi_type: kpi.kpi_type,
      target_value: Number(kpi.target_value),
      measured_value: measured,
      on_track: measured === null ? null : measured >= Number(kpi.target_value),
    };
  });

  return {
    computed_at: computedAt.toISOString(),
    srm: srm(
      groups.map((group) => ({
        members: tallies.members.get(group.id)?.members ?? 0,
        allocationPercentage: Number(group.allocation_percentage),
      })),
    ),
    goals: goalAnswers,
    kpis: kpiAnswers,
  };
}

/** The goals' `event` and `where` checked with the rule grammar, and the KPIs' measured values (GoalMeasures). */
export const RESULTS_GOAL_MEASURES: GoalMeasures = {
  check(input: GoalMeasureInput): FieldErrors {
    const errors: FieldErrors = {};
    if (input.event !== undefined && input.event !== null && !isEventName(input.event))
      errors.event = [
        'The event field must be an event name: 1 to 255 ASCII letters, digits, _ . : - and inner spaces.',
      ];
    if (input.where !== undefined && input.where !== null) {
      const parsed = parseWhere(input.where);
      if ('error' in parsed)
        errors[parsed.error.path] = [`The where field is not valid at ${parsed.error.path}: ${parsed.error.reason}`];
    }
    return errors;
  },

  async measure(reads: TenantReads, rows: readonly CampaignKpi[], answers: CampaignKpiResponse[]): Promise<void> {
    const measuredAt = new Date().toISOString();
    const campaigns = new Set(rows.filter((row) => MEASURED_KPIS[row.kpi_type]).map((row) => Number(row.campaign_id)));
    for (const campaignId of campaigns) {
      const wanted = new Set(
        rows
          .filter((row) => Number(row.campaign_id) === campaignId && row.goal_id !== null)
          .map((row) => Number(row.goal_id)),
      );
      const goals = (await reads.table(CustomerGoal).findWhere({ campaign_id: campaignId })).filter((goal) =>
        wanted.has(goal.id),
      );
      const tallies = await tallyCampaign(reads, campaignId, goals, null);
      rows.forEach((row, i) => {
        if (Number(row.campaign_id) !== campaignId) return;
        const value = measuredValue(row, tallies);
        if (value === null) return;
        answers[i].measured_value = value;
        answers[i].measured_at = measuredAt;
      });
    }
  },
};
