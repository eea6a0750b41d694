/**
 * SLO burn alarms, planned (pure; infra/constructs/burn-alarms.ts renders them): the multi-window,
 * multi-burn-rate alerts of Google's SRE workbook ("Alerting on SLOs", the table of budget spent per
 * window), adapted to a canary and to CloudWatch.
 *
 * The SLI is the paging alarm's own per-period test on the same `Verdict` metric (alarm-math.ts
 * `failingRegions`): a period is bad when at least a quorum of regions failed in it. Each window is one
 * metric alarm that counts bad periods, an "M out of N" alarm (N = the window in periods, M = the bad
 * periods that burn the budget at the tier's rate), and each tier is the AND of its long and short
 * window, as a composite alarm, so a burn that has stopped resets within the short window.
 *
 * | tier      | budget spent | long window | short window | burn rate (30-day SLO) | tells   |
 * | fast      | 2 %          | 1 h         | 5 min        | 14.4×                  | pages   |
 * | fast      | 5 %          | 6 h         | 30 min       | 6×                     | pages   |
 * | slow      | 10 %         | 1 day       | 2 h          | 3×                     | tickets |
 *
 * Adapted: the workbook's ticket tier is 10 % over 3 days (1×). CloudWatch allows an alarm with a period
 * under an hour to evaluate at most one day (PutMetricAlarm: Period × EvaluationPeriods ≤ 86,400 s, or
 * ≤ 604,800 s for periods of an hour or more), and a bad period is only known at the run period, so the
 * slow tier spends the same 10 % over one day (3× for 30 days) with a 2 h short window (1/12, as the
 * workbook's). Burn rates scale with the SLO's `windowDays` (the share of budget is what is kept).
 *
 * Never less evidence than the page: M is at least N-in-a-row (the fleet's failureThreshold), so a blip
 * shorter than the paging rule fires no burn alarm either. What the burn alarms add is the flapping
 * endpoint: failures that never last N runs in a row (so never page) but spend the budget all the same.
 * M is at most the window (a burn rate the window cannot reach alarms when every period is bad).
 */
import { alarmWindowLimit } from './checks.ts';
import type { FleetNames } from './names.ts';

export type BurnSeverity = 'page' | 'ticket';

export interface BurnTier {
  readonly id: 'fast-1h' | 'fast-6h' | 'slow-1d';
  readonly severity: BurnSeverity;
  /** Share of the SLO window's error budget the long window spends at the tier's rate. */
  readonly budgetShare: number;
  readonly longSeconds: number;
  readonly shortSeconds: number;
}

export const BURN_TIERS: readonly BurnTier[] = [
  { id: 'fast-1h', severity: 'page', budgetShare: 0.02, longSeconds: 3600, shortSeconds: 300 },
  { id: 'fast-6h', severity: 'page', budgetShare: 0.05, longSeconds: 6 * 3600, shortSeconds: 1800 },
  { id: 'slow-1d', severity: 'ticket', budgetShare: 0.1, longSeconds: 86_400, shortSeconds: 7200 },
];

/** The burn rate at which a tier's long window spends its share: share × SLO window / long window. */
export function burnRate(tier: BurnTier, windowDays: number): number {
  return (tier.budgetShare * windowDays * 86_400) / tier.longSeconds;
}

export interface BurnWindow {
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
}

/** One window of a tier as an M-of-N alarm over bad periods. */
export function burnWindow(o: {
  readonly periodSeconds: number;
  readonly windowSeconds: number;
  readonly rate: number;
  readonly objective: number;
  readonly runsInARow: number;
}): BurnWindow {
  const n = Math.max(1, Math.ceil(o.windowSeconds / o.periodSeconds));
  // The tolerance keeps 14.4 × 0.001 × 60 = 0.864 from becoming 0.8640000000000001 and one more period.
  const bad = Math.ceil(o.rate * (1 - o.objective / 100) * n - 1e-9);
  return { evaluationPeriods: n, datapointsToAlarm: Math.min(n, Math.max(1, o.runsInARow, bad)) };
}

export interface BurnAlarmPlan {
  readonly tier: BurnTier;
  readonly rate: number;
  readonly long: BurnWindow & { readonly name: string };
  readonly short: BurnWindow & { readonly name: string };
}

export interface TargetBurnPlan {
  readonly target: string;
  /** The composite alarm that pages (fast tiers) and the one that tickets (slow tier). */
  readonly pageName: string;
  readonly ticketName: string;
  readonly tiers: readonly BurnAlarmPlan[];
  /** The paging rule's N in a row, which the page composite waits out for the critical alarm (burn-alarms.ts). */
  readonly runsInARow: number;
}

/** `<fleet>/<target>/slo-burn-page`: the last segment is no AlarmKind, so the brief and parseAlarmName leave it alone. */
export function burnAlarmNames(names: FleetNames, target: string): { readonly page: string; readonly ticket: string } {
  return { page: `${names.fleet}/${target}/slo-burn-page`, ticket: `${names.fleet}/${target}/slo-burn-ticket` };
}

export function planBurn(
  names: FleetNames,
  t: { readonly name: string; readonly periodSeconds: number },
  slo: { readonly objective: number; readonly windowDays: number },
  runsInARow: number,
): TargetBurnPlan {
  const { page, ticket } = burnAlarmNames(names, t.name);
  const tiers = BURN_TIERS.map((tier): BurnAlarmPlan => {
    const rate = burnRate(tier, slo.windowDays);
    // A period that does not divide a day (rate(7 minutes)) gets the whole periods that fit the limit.
    const limit = Math.floor(alarmWindowLimit(t.periodSeconds) / t.periodSeconds) * t.periodSeconds;
    const at = (windowSeconds: number) =>
      burnWindow({
        periodSeconds: t.periodSeconds,
        windowSeconds: Math.min(windowSeconds, limit),
        rate,
        objective: slo.objective,
        runsInARow,
      });
    return {
      tier,
      rate,
      long: { ...at(tier.longSeconds), name: `${names.fleet}/${t.name}/slo-burn-${tier.id}-long` },
      short: { ...at(tier.shortSeconds), name: `${names.fleet}/${t.name}/slo-burn-${tier.id}-short` },
    };
  });
  return { target: t.name, pageName: page, ticketName: ticket, tiers, runsInARow };
}
