/**
 * Which period to read a window at. CloudWatch keeps 1-minute datapoints 15 days, 5-minute 63 days and
 * 1-hour 455 days, and GetMetricData refuses a finer period than the window's oldest point still has
 * ("Period": a multiple of 60 within 15 days, of 300 within 63, of 3600 beyond). A target is read at its
 * own run period when CloudWatch still holds it (exact: the paging rule replays run by run); otherwise at
 * the least multiple of both, each bucket taken as its runs' average and N scaled to buckets (stated
 * in the output as not exact).
 */
import type { PeriodSample, TimelineRule } from './timeline.ts';

/**
 * A target's paging rule at its run period, as history counts it: R (a count), k, N and the period, read
 * from the rule that pages (functions/base/config/schema/target-rule.ts), so history replays that rule
 * and not a second one.
 */
export interface PagingRule {
  /** Probe regions of the target: R. */
  readonly regions: number;
  /** Regions that must fail in the same period: k. */
  readonly quorum: number;
  /** Determined periods in a row before a page (and before a ticket): N. */
  readonly runsInARow: number;
  /** One run per region per period. */
  readonly periodSeconds: number;
}

export const MIN_DAYS = 1;
export const MAX_DAYS = 90;

/** CloudWatch's retention by resolution (CloudWatch User Guide, "Metrics retention"). */
export const RETENTION: ReadonlyArray<{ readonly periodSeconds: number; readonly keptDays: number }> = [
  { periodSeconds: 60, keptDays: 15 },
  { periodSeconds: 300, keptDays: 63 },
  { periodSeconds: 3600, keptDays: 455 },
];

export interface Resolution {
  /** The GetMetricData period. */
  readonly periodSeconds: number;
  /** Runs per period: 1 when exact. */
  readonly runsPerPeriod: number;
  readonly exact: boolean;
  /** One sentence for the output. */
  readonly note: string;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** The finest period CloudWatch still holds for points `ageDays` old. */
export function retainedPeriod(ageDays: number): number {
  const tier = RETENTION.find((r) => ageDays <= r.keptDays);
  if (!tier) throw new RangeError(`CloudWatch keeps no datapoints older than ${RETENTION[RETENTION.length - 1]!.keptDays} days`);
  return tier.periodSeconds;
}

/** `ageDays`: how old the window's oldest point is (the window may end before now). @default days */
export function resolutionFor(days: number, runPeriodSeconds: number, ageDays = days): Resolution {
  const floor = retainedPeriod(ageDays);
  const periodSeconds = (runPeriodSeconds / gcd(runPeriodSeconds, floor)) * floor;
  const runsPerPeriod = periodSeconds / runPeriodSeconds;
  const kept = RETENTION.find((r) => r.periodSeconds === floor)!;
  const exact = runsPerPeriod === 1;
  const note = exact
    ? `read run by run (${periodSeconds} s points): the paging rule replayed exactly`
    : `a window reaching ${Math.ceil(ageDays)} days back reaches data CloudWatch keeps only at ${kept.periodSeconds} s or coarser (1-minute data 15 days, 5-minute 63 days, 1-hour 455 days), so it is read at ${periodSeconds} s, ${runsPerPeriod} runs per point averaged and N in a row counted in points: approximate`;
  return { periodSeconds, runsPerPeriod, exact, note };
}

/** The paging rule at a resolution: N in a row becomes ⌈N / runs per point⌉ points. */
export function ruleAt(rule: PagingRule, r: Resolution): TimelineRule {
  return {
    regions: rule.regions,
    quorum: rule.quorum,
    runsInARow: Math.max(1, Math.ceil(rule.runsInARow / r.runsPerPeriod)),
    periodSeconds: r.periodSeconds,
  };
}

/** A coarse point as its runs' average period (an exact one unchanged): decoded first, so the counts are exact before they are averaged. */
export function perRun(s: PeriodSample, r: Resolution): PeriodSample {
  const m = r.runsPerPeriod;
  return m === 1
    ? s
    : {
        failing: s.failing / m,
        reports: s.reports / m,
        inconclusive: (s.inconclusive ?? 0) / m,
        ...(s.ticket === undefined ? {} : { ticket: s.ticket }),
      };
}
