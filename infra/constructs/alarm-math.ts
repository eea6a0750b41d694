/**
 * The metric-math expressions the target alarms watch, over one `Outcome` metric per region (ids are
 * region names, so the expression reads as what it means in the console). Built only from arithmetic,
 * comparisons and IF, whose missing-data rules CloudWatch documents: in `a + b` a missing value counts
 * as 0, and `m >= 3` has no value where `m` has none. MAX/SUM/FILL are avoided: CloudWatch recommends
 * against them in alarms (they act differently when the alarm fetches extra data points), and FILL would
 * fill a late run's period with a guess.
 */
import { OutcomeCode } from '../../functions/publish/schema.ts';
import { Outcome } from '../../functions/verdict.ts';

/** `eu-west-1` → `eu_west_1`: a valid metric id (lowercase first, letters, digits, `_`). */
export function metricId(region: string): string {
  return region.replace(/-/g, '_');
}

/** Number of regions whose worst outcome of the period is `failed`; a region with no run adds 0. */
export function failingRegions(regions: readonly string[]): string {
  return regions.map((r) => `(${metricId(r)} >= ${OutcomeCode[Outcome.failed]})`).join(' + ');
}

/** Number of regions whose worst outcome of the period is not `healthy` (degraded, inconclusive or failed). */
export function unhealthyRegions(regions: readonly string[]): string {
  return regions.map((r) => `(${metricId(r)} >= ${OutcomeCode[Outcome.degraded]})`).join(' + ');
}

/** Number of regions that reported a run in the period, over `Outcome` SampleCount. */
export function reportingRegions(regions: readonly string[]): string {
  return regions.map((r) => `(${metricId(r)} >= 1)`).join(' + ');
}
