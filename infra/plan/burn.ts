/**
 * SLO burn alarms, planned (pure; infra/constructs/burn-alarms.ts renders them): the multiwindow,
 * multi-burn-rate alerts of Google's SRE workbook ("Alerting on SLOs", its recommended parameters and
 * their Prometheus rules), on CloudWatch.
 *
 * The SLI is the paging alarm's own per-period test on the same `Verdict` metric (alarm-math.ts
 * `failingRegions`): a period is bad when at least a quorum of regions failed in it. Each window is one
 * metric alarm that counts bad periods, an "M out of N" alarm: N is the window in periods and M the
 * workbook's threshold as a count, the bad periods at which the window's error ratio reaches the tier's
 * burn rate × the error budget (rate × (1 − objective) × N, rounded up). Each tier is the AND of its long
 * and short window, as a composite alarm: the long window holds the evidence, the short one confirms the
 * burn is still going, so an alert resets within the short window once it stops.
 *
 * | tier    | budget spent | long window | short window | burn rate (30-day SLO) | tells   |
 * | fast-1h | 2 %          | 1 h         | 5 min        | 14.4×                  | pages   |
 * | fast-6h | 5 %          | 6 h         | 30 min       | 6×                     | pages   |
 * | slow-1d | 10 %         | 1 day       | 2 h          | 3×                     | tickets |
 * | slow-3d | 10 %         | 3 days      | 6 h          | 1×                     | tickets |
 *
 * CloudWatch: an alarm with a period under an hour evaluates at most one day (PutMetricAlarm: Period ×
 * EvaluationPeriods ≤ 86,400 s, ≤ 604,800 s from an hour up), and a bad period is only known at the run
 * period, so the 3-day window of a one-minute target reads one day at the same 1× (3.3 % of the budget
 * instead of 10 %; a 1× burn still tickets, a little sooner and on less evidence). Burn rates scale with
 * the SLO's `windowDays` (the share of budget is what is kept).
 *
 * The N-in-a-row floor (the fleet's failureThreshold, what the paging alarm asks) applies to a long window
 * only where one bad period already spends more than the window's share: there the window cannot tell a
 * burn at its rate from a blip (at 99.9 % and one run a minute, one bad minute is 16.7× over an hour, and
 * a steady 14.4× burn brings 0.86 bad minutes an hour), so it asks for what the paging rule asks, N bad
 * periods (not in a row). Everywhere else the workbook's count already asks more than one bad period, and
 * the floor would only raise the tier's rate. It never applies to a short window: a short window only
 * confirms; floored, 3 of 5 minutes is 600× at 99.9 %, and a steady 50× burn never paged (issue 28).
 * M is at most the window (a burn rate the window cannot reach alarms when every period is bad).
 */
import { alarmWindowLimit } from './checks.ts';
import type { FleetNames } from './names.ts';

export type BurnSeverity = 'page' | 'ticket';

export interface BurnTier {
  readonly id: 'fast-1h' | 'fast-6h' | 'slow-1d' | 'slow-3d';
  readonly severity: BurnSeverity;
  /** Share of the SLO window's error budget the long window spends at the tier's rate. */
  readonly budgetShare: number;
  /** The workbook's long window; an alarm reads at most CloudWatch's limit of it (planBurn). */
  readonly longSeconds: number;
  readonly shortSeconds: number;
}

export const BURN_TIERS: readonly BurnTier[] = [
  { id: 'fast-1h', severity: 'page', budgetShare: 0.02, longSeconds: 3600, shortSeconds: 300 },
  { id: 'fast-6h', severity: 'page', budgetShare: 0.05, longSeconds: 6 * 3600, shortSeconds: 1800 },
  { id: 'slow-1d', severity: 'ticket', budgetShare: 0.1, longSeconds: 86_400, shortSeconds: 7200 },
  { id: 'slow-3d', severity: 'ticket', budgetShare: 0.1, longSeconds: 3 * 86_400, shortSeconds: 6 * 3600 },
];

/** The burn rate at which a tier's long window spends its share: share × SLO window / long window. */
export function burnRate(tier: BurnTier, windowDays: number): number {
  return (tier.budgetShare * windowDays * 86_400) / tier.longSeconds;
}

export interface BurnWindow {
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
  /** The workbook's count was one bad period and the N-in-a-row floor raised it (see the header). */
  readonly floored: boolean;
}

/**
 * One window of a tier as an M-of-N alarm over bad periods: M the workbook's threshold as a count, raised
 * to `floor` only where that count is a single bad period (`floor` 0 for a short window: none).
 */
export function burnWindow(o: {
  readonly periodSeconds: number;
  readonly windowSeconds: number;
  readonly rate: number;
  readonly objective: number;
  readonly floor: number;
}): BurnWindow {
  const n = Math.max(1, Math.ceil(o.windowSeconds / o.periodSeconds));
  // The tolerance keeps 14.4 × 0.001 × 60 = 0.864 from becoming 0.8640000000000001 and one more period.
  const bad = Math.max(1, Math.ceil(o.rate * (1 - o.objective / 100) * n - 1e-9));
  const floored = bad === 1 && o.floor > 1;
  return { evaluationPeriods: n, datapointsToAlarm: Math.min(n, floored ? o.floor : bad), floored };
}

export interface BurnAlarmPlan {
  readonly tier: BurnTier;
  readonly rate: number;
  /** The long window as read: the tier's, or CloudWatch's limit when that is shorter. */
  readonly longSeconds: number;
  readonly long: BurnWindow & { readonly name: string };
  readonly short: BurnWindow & { readonly name: string };
}

export interface TargetBurnPlan {
  readonly target: string;
  /** The composite alarm that pages (fast tiers) and the one that tickets (slow tiers). */
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
  // A period that does not divide a day (rate(7 minutes)) gets the whole periods that fit the limit.
  const limit = Math.floor(alarmWindowLimit(t.periodSeconds) / t.periodSeconds) * t.periodSeconds;
  const tiers = BURN_TIERS.map((tier): BurnAlarmPlan => {
    const rate = burnRate(tier, slo.windowDays);
    const at = (windowSeconds: number, floor: number) =>
      burnWindow({ periodSeconds: t.periodSeconds, windowSeconds: Math.min(windowSeconds, limit), rate, objective: slo.objective, floor });
    return {
      tier,
      rate,
      longSeconds: Math.min(tier.longSeconds, limit),
      long: { ...at(tier.longSeconds, runsInARow), name: `${names.fleet}/${t.name}/slo-burn-${tier.id}-long` },
      short: { ...at(tier.shortSeconds, 0), name: `${names.fleet}/${t.name}/slo-burn-${tier.id}-short` },
    };
  });
  return { target: t.name, pageName: page, ticketName: ticket, tiers, runsInARow };
}
