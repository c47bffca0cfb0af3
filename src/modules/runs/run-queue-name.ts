/** The queue of campaign runs' jobs (src/background-work.ts). */
export const RUN_QUEUE = 'campaign-run';

/** A run plans in its tenant's plan lane: one run of a tenant at a time, so the frequency caps count every other run. */
export const PLAN_LANE_PREFIX = 'plan:';
export const planLane = (tenantId: number): string => `${PLAN_LANE_PREFIX}${tenantId}`;

/** The queue of campaign schedules' jobs: one per schedule, due at its next tick. */
export const SCHEDULE_QUEUE = 'campaign-schedule';
