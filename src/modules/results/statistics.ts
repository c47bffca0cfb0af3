import chisquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';

/**
 * The statistics of a campaign's results (docs/campaign-results.md): pure functions of counts, no
 * database. Every function is O(groups) per goal except `benjaminiHochberg`, which sorts the
 * campaign's (goal, group) pairs once, O(pairs · log pairs), a few hundred at most.
 */

/** A p-value below this, after Benjamini–Hochberg, is `significant`. */
export const SIGNIFICANCE_LEVEL = 0.05;
/** A sample-ratio p-value below this is a `mismatch` (GrowthBook's threshold). */
export const SRM_THRESHOLD = 0.001;
/** The two-sided 95 % normal quantile, z₀.₉₇₅ ≈ 1.959964. */
const Z_95 = normalQuantile(0.975, 0, 1);

/**
 * What was counted for one treatment group on one goal. The caller guarantees whole numbers with
 * 0 ≤ converted ≤ members, and a finite valueSum.
 */
export interface GroupCounts {
  members: number;
  converted: number;
  valueSum: number;
}

export type Interval = [low: number, high: number];

export interface VsControl {
  absolute_lift: number;
  /** Null when the control's rate is 0 (a lift over nothing has no size). */
  relative_lift: number | null;
  relative_lift_ci: Interval | null;
  p_value: number;
  significant: boolean;
}

export interface GroupStatistics {
  rate: number;
  /** Null when the group has no members. */
  rate_ci: Interval | null;
  value_per_member: number;
  /** Null for the control itself, without a control, and when either side has no members. */
  vs_control: VsControl | null;
}

/** One measurable goal: its groups' counts, and which of them is the control. */
export interface GoalCounts {
  groups: readonly GroupCounts[];
  /** Index of the control group in `groups`; null when the campaign has none. */
  control: number | null;
}

export interface GroupAllocation {
  members: number;
  allocationPercentage: number;
}

export interface SampleRatio {
  /** Null when fewer than two groups with an allocation above 0 %, or none of them has members. */
  p_value: number | null;
  mismatch: boolean;
}

type Proportion = Pick<GroupCounts, 'members' | 'converted'>;

/**
 * Every group of every goal, each compared with its goal's control. `significant` is decided after
 * Benjamini–Hochberg over every comparison passed in, so pass every measurable goal of the campaign
 * and narrow the answer afterwards: a filter narrows the answer, not the correction.
 */
export function campaignStatistics(goals: readonly GoalCounts[]): GroupStatistics[][] {
  const comparisons = goals.map((goal) => goal.groups.map((group, index) => comparisonOf(goal, index, group)));
  const measured = comparisons.flat().filter((comparison) => comparison !== null);
  const adjusted = benjaminiHochberg(measured.map((comparison) => comparison.p_value));
  const significant = new Map(measured.map((comparison, i) => [comparison, adjusted[i] < SIGNIFICANCE_LEVEL]));
  return goals.map((goal, goalIndex) =>
    goal.groups.map((group, groupIndex) => {
      const comparison = comparisons[goalIndex][groupIndex];
      const vs_control = comparison && { ...comparison, significant: significant.get(comparison)! };
      return { ...describeGroup(group), vs_control };
    }),
  );
}

function comparisonOf(goal: GoalCounts, index: number, group: GroupCounts): Omit<VsControl, 'significant'> | null {
  if (goal.control === null || goal.control === index) return null;
  return compareWithControl(group, goal.groups[goal.control]);
}

/** A group on its own: a group with no members answers zeros and a null interval. */
export function describeGroup(group: GroupCounts): Omit<GroupStatistics, 'vs_control'> {
  return {
    rate: conversionRate(group),
    rate_ci: wilsonInterval(group),
    value_per_member: group.members === 0 ? 0 : group.valueSum / group.members,
  };
}

export function conversionRate(group: Proportion): number {
  return group.members === 0 ? 0 : group.converted / group.members;
}

/**
 * The Wilson score interval (Wilson 1927; Newcombe 1998, method 3), for p̂ = x/n and z = z₀.₉₇₅:
 *   (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n).
 * Exactly, 0 ≤ low ≤ p̂ ≤ high ≤ 1; the clamps only undo rounding (at x = 0 or x = n).
 */
export function wilsonInterval(group: Proportion): Interval | null {
  const n = group.members;
  if (n === 0) return null;
  const rate = group.converted / n;
  const zSquaredOverN = (Z_95 * Z_95) / n;
  const centre = (rate + zSquaredOverN / 2) / (1 + zSquaredOverN);
  const halfWidth = (Z_95 / (1 + zSquaredOverN)) * Math.sqrt((rate * (1 - rate)) / n + zSquaredOverN / (4 * n));
  return [clamp(centre - halfWidth, 0, rate), clamp(centre + halfWidth, rate, 1)];
}

/**
 * The group against the control, or null when either has no members. The p-value is the pooled
 * two-proportion z test; the relative lift and its interval are null when the control's rate is 0.
 */
export function compareWithControl(group: Proportion, control: Proportion): Omit<VsControl, 'significant'> | null {
  const p_value = twoProportionPValue(group, control);
  if (p_value === null) return null;
  const absolute_lift = conversionRate(group) - conversionRate(control);
  const controlRate = conversionRate(control);
  return {
    absolute_lift,
    relative_lift: controlRate === 0 ? null : absolute_lift / controlRate,
    relative_lift_ci: relativeLiftInterval(group, control),
    p_value,
  };
}

/**
 * Two-sided pooled two-proportion z test (NIST/SEMATECH e-Handbook of Statistical Methods, §7.3.3):
 *   p̂ = (x₁ + x₂)/(n₁ + n₂),  z = (p̂₁ − p̂₂) / √(p̂(1−p̂)(1/n₁ + 1/n₂)),  p = 2·Φ(−|z|).
 * Its z² is Pearson's X² of the 2×2 table without continuity correction. When p̂ is 0 or 1 both
 * groups have the same rate and the standard error is 0: no evidence of a difference, p = 1.
 * Null when either group has no members.
 */
export function twoProportionPValue(a: Proportion, b: Proportion): number | null {
  if (a.members === 0 || b.members === 0) return null;
  const pooled = (a.converted + b.converted) / (a.members + b.members);
  const variance = pooled * (1 - pooled) * (1 / a.members + 1 / b.members);
  if (variance === 0) return 1;
  const z = (conversionRate(a) - conversionRate(b)) / Math.sqrt(variance);
  return Math.min(1, 2 * normalCdf(-Math.abs(z), 0, 1));
}

/**
 * 95 % delta-method interval for the relative lift p̂_t/p̂_c − 1 of two independent proportions
 * (GrowthBook, "Statistical Details", https://docs.growthbook.io/statistics/details; Kohavi, Tang &
 * Xu, Trustworthy Online Controlled Experiments, 2020, ch. 18; Deng, Knoblich & Lu, KDD 2018):
 *   Var ≈ Var(p̂_t)/p̂_c² + p̂_t²·Var(p̂_c)/p̂_c⁴,  Var(p̂) = p̂(1−p̂)/n,  lift ± z₀.₉₇₅·√Var.
 * The groups are disjoint, so the covariance term of the general ratio formula is 0. A lift
 * cannot fall below −100 %, so the lower bound is cut there (it only narrows the interval where
 * the true value cannot be). Null when either group has no members or the control's rate is 0.
 */
export function relativeLiftInterval(group: Proportion, control: Proportion): Interval | null {
  if (group.members === 0 || control.members === 0) return null;
  const treatmentRate = conversionRate(group);
  const controlRate = conversionRate(control);
  if (controlRate === 0) return null;
  const treatmentVariance = (treatmentRate * (1 - treatmentRate)) / group.members;
  const controlVariance = (controlRate * (1 - controlRate)) / control.members;
  const variance = treatmentVariance / controlRate ** 2 + (treatmentRate ** 2 * controlVariance) / controlRate ** 4;
  const lift = (treatmentRate - controlRate) / controlRate;
  const margin = Z_95 * Math.sqrt(variance);
  return [Math.max(-1, lift - margin), lift + margin];
}

/**
 * Benjamini–Hochberg adjusted p-values (Benjamini & Hochberg 1995; the same values as R's
 * p.adjust(p, "BH")), in the order given: for the i-th smallest of m, min over j ≥ i of
 * min(1, m·p₍ⱼ₎/j). A hypothesis is rejected at false discovery rate q when its adjusted value is
 * at most q; the answer's `significant` asks for below 0.05.
 */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const ascending = pValues.map((_, index) => index).sort((a, b) => pValues[a] - pValues[b]);
  const adjusted = new Array<number>(m);
  let smallestAbove = 1;
  for (let rank = m; rank >= 1; rank--) {
    const index = ascending[rank - 1];
    smallestAbove = Math.min(smallestAbove, (pValues[index] * m) / rank);
    // (p·m)/m can round to an ulp below p.
    adjusted[index] = Math.max(pValues[index], smallestAbove);
  }
  return adjusted;
}

/**
 * Sample-ratio mismatch: Pearson's chi-squared goodness of fit of the groups' member counts against
 * their allocation, with k − 1 degrees of freedom, X² = Σ (Oᵢ − Eᵢ)²/Eᵢ, Eᵢ = N·sᵢ.
 * A group at 0 % (or below) is left out, members and all: it expects no one, so (O − 0)²/0 has no
 * value, and a group nobody is assigned to says nothing about how the others were split. The shares
 * sᵢ are the counted groups' percentages over their sum, because allocations may add up to less than
 * 100 (the rest of the audience is held out, in no group) and N counts only members of the groups.
 */
export function srm(groups: readonly GroupAllocation[]): SampleRatio {
  const counted = groups.filter((group) => group.allocationPercentage > 0);
  const totalPercentage = counted.reduce((sum, group) => sum + group.allocationPercentage, 0);
  const totalMembers = counted.reduce((sum, group) => sum + group.members, 0);
  if (counted.length < 2 || totalMembers === 0) return { p_value: null, mismatch: false };
  const statistic = counted.reduce((sum, group) => {
    const expected = (totalMembers * group.allocationPercentage) / totalPercentage;
    return sum + (group.members - expected) ** 2 / expected;
  }, 0);
  const p_value = clamp(1 - chisquareCdf(statistic, counted.length - 1), 0, 1);
  return { p_value, mismatch: p_value < SRM_THRESHOLD };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
