import type { Exclusion } from './entities/campaign-run.entity.js';

/** What one association of a run sends, and what became of it. */
export interface DestinationCounts {
  campaign_destination_id: number;
  destination_id: number;
  add: number;
  update: number;
  remove: number;
  unchanged: number;
  skipped: number;
  delivered: number;
  rejected: number;
  failed: number;
  pending: number;
}

/** A treatment group of the run and its members (what is left after the exclusions). */
export interface GroupCounts {
  treatment_group_id: number;
  name: string;
  type: string;
  members: number;
}

/**
 * A run's counts, updated as it goes: `audience` the customers the campaign's audiences select,
 * `eligible` those the allocation gives a group, `excluded` taken out of those, `groups[].members`
 * and `control` what is left (the control group is listed in `groups` too), `destinations` each
 * association's records.
 */
export interface RunCounts {
  audience: number;
  eligible: number;
  excluded: Record<Exclusion, number>;
  control: number;
  groups: GroupCounts[];
  destinations: DestinationCounts[];
}

export const emptyCounts = (): RunCounts => ({
  audience: 0,
  eligible: 0,
  excluded: { inactive: 0, suppressed: 0, invalid: 0, capped: 0 },
  control: 0,
  groups: [],
  destinations: [],
});

export const emptyDestinationCounts = (campaignDestinationId: number, destinationId: number): DestinationCounts => ({
  campaign_destination_id: campaignDestinationId,
  destination_id: destinationId,
  add: 0,
  update: 0,
  remove: 0,
  unchanged: 0,
  skipped: 0,
  delivered: 0,
  rejected: 0,
  failed: 0,
  pending: 0,
});

/** A treatment group that receives nothing and is kept for results: `control` or `holdout`, in any case. */
export const receivesNothing = (type: string): boolean => ['control', 'holdout'].includes(type.toLowerCase());
