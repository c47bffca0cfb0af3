/** The queue of campaign runs' jobs (src/background-work.ts). */
export const RUN_QUEUE = 'campaign-run';

/** A run plans in its tenant's plan lane: one run of a tenant at a time, so the frequency caps count every other run. */
export const PLAN_LANE_PREFIX = 'plan:';
export const planLane = (tenantId: number): string => `${PLAN_LANE_PREFIX}${tenantId}`;

/**
 * What a job of the run queue was queued for (its payload): a launch's job records the members
 * (`snapshot`, then `exclude`), a plan-lane job plans, a deliver job delivers and finishes (a dry
 * run's last job only finishes). A job that finds its run in a phase not its own ended in a crash
 * after handing the run over, before its outcome was settled: its successor has the run.
 */
export interface RunJobPayload {
  phase: 'snapshot' | 'plan' | 'deliver' | 'finish';
}

export const PHASES_OF_JOB: Record<RunJobPayload['phase'], readonly string[]> = {
  snapshot: ['snapshot', 'exclude'],
  plan: ['plan'],
  deliver: ['deliver', 'finish'],
  finish: ['finish'],
};

/** The queue of campaign schedules' jobs: one per schedule, due at its next tick. */
export const SCHEDULE_QUEUE = 'campaign-schedule';
