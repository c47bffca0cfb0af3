/** The change feed's event when a count or the day's API calls cross a threshold of a limit. */
export const USAGE_THRESHOLD_EVENT = 'tenant.usage_threshold';

/** Percentages of a limit that are announced when crossed. */
export const THRESHOLDS = [80, 100] as const;
export type Threshold = (typeof THRESHOLDS)[number];

/** The thresholds a count moving from `before` to `after` reaches, going up (80 % of 10 is 8: the 8th record). */
export function thresholdsCrossed(before: number, after: number, limit: number): Threshold[] {
  return THRESHOLDS.filter((percentage) => {
    const mark = Math.ceil((limit * percentage) / 100);
    return before < mark && after >= mark;
  });
}

/** The UTC day a usage figure belongs to: the API-call quota resets at its end. */
export const usageDay = (now = new Date()): string => now.toISOString().slice(0, 10);

/** When the UTC day of `now` ends (the quota's reset). */
export function dayEnd(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}
