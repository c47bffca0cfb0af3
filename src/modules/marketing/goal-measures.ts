import type { FieldErrors } from '../../common/http/api-exception.js';
import type { TenantReads } from '../../common/persistence/tables.js';
import type { CampaignKpiResponse } from './dto/marketing.responses.js';
import type { CampaignKpi } from './entities/campaign-children.entity.js';

/** A goal's measurement, as its body sends it. */
export interface GoalMeasureInput {
  event?: string | null;
  where?: unknown;
}

/**
 * What the results module (docs/campaign-results.md) adds to goals and KPIs: it reads the rule
 * grammar and the tracked events, which live in modules above this one, so the composition root
 * provides it (src/app.module.ts) and this module only declares it. Without it, a goal's `event`
 * and `where` are stored unchecked and a KPI answers `measured_value: null`.
 */
export interface GoalMeasures {
  /** The errors of a goal's `event` and `where` (keyed `event`, `where`, `where.0.value`, ...); none: {}. */
  check(input: GoalMeasureInput): FieldErrors;
  /** Fills `measured_value` and `measured_at` of the answers of these KPIs (rows and answers in one order). */
  measure(reads: TenantReads, rows: readonly CampaignKpi[], answers: CampaignKpiResponse[]): Promise<void>;
}

export const GOAL_MEASURES = Symbol('GOAL_MEASURES');
