/**
 * The figures of a timeline: availability, error budget, time to resolve. Pure arithmetic over
 * timeline.ts's intervals and incidents, so a report, a status page and a test read the same numbers.
 *
 * Availability counts only time the canary could judge outside maintenance: (up + degraded) / (up +
 * degraded + down). Degraded is available (agents could use the endpoint), and shown on its own.
 */
import type { Incident, Interval, IntervalState, Timeline } from './timeline.ts';

export interface Availability {
  readonly upMs: number;
  readonly degradedMs: number;
  readonly downMs: number;
  readonly maintenanceMs: number;
  readonly noDataMs: number;
  /** up + degraded + down: the denominator. */
  readonly judgedMs: number;
  /** 0..1; null when nothing in the window was judged. */
  readonly availability: number | null;
}

export function availabilityOf(t: Pick<Timeline, 'intervals'>): Availability {
  const ms: Record<IntervalState, number> = { up: 0, down: 0, degraded: 0, maintenance: 0, 'no-data': 0 };
  for (const i of t.intervals) ms[i.state] += i.endMs - i.startMs;
  const judgedMs = ms.up + ms.degraded + ms.down;
  return {
    upMs: ms.up,
    degradedMs: ms.degraded,
    downMs: ms.down,
    maintenanceMs: ms.maintenance,
    noDataMs: ms['no-data'],
    judgedMs,
    availability: judgedMs === 0 ? null : (ms.up + ms.degraded) / judgedMs,
  };
}

export interface ErrorBudget {
  /** Percent, e.g. 99.9. */
  readonly objective: number;
  /** (1 − objective) × judged time. */
  readonly allowedDownMs: number;
  readonly downMs: number;
  /** allowed − down; negative once the budget is spent. */
  readonly leftMs: number;
  /** left / allowed (1: untouched, 0: spent, < 0: overspent); null when nothing was judged. */
  readonly leftFraction: number | null;
  /** How fast the budget burned: (down / judged) / (1 − objective); 1 spends exactly the budget. */
  readonly burnRate: number | null;
}

export function errorBudget(a: Pick<Availability, 'downMs' | 'judgedMs'>, objective: number): ErrorBudget {
  const allowed = (1 - objective / 100) * a.judgedMs;
  return {
    objective,
    allowedDownMs: allowed,
    downMs: a.downMs,
    leftMs: allowed - a.downMs,
    leftFraction: allowed > 0 ? (allowed - a.downMs) / allowed : null,
    burnRate: a.judgedMs > 0 ? a.downMs / a.judgedMs / (1 - objective / 100) : null,
  };
}

export interface TimeToResolve {
  /** Incidents with time outside maintenance. */
  readonly incidents: number;
  readonly open: number;
  /** Over incidents that began and were resolved in the window; null when none. */
  readonly meanMs: number | null;
  readonly maxMs: number | null;
}

/** Incidents wholly inside maintenance are shown but not counted. */
export function countedIncidents(incidents: readonly Incident[]): Incident[] {
  return incidents.filter((i) => i.maintenance !== 'inside');
}

export function timeToResolve(incidents: readonly Incident[]): TimeToResolve {
  const counted = countedIncidents(incidents);
  // Only an outage that began and ended in the window has a time to resolve: one already open at its
  // start has only its tail inside, and would read as resolved faster than it was.
  const resolved = counted.filter((i) => i.endMs !== null && !i.startedBeforeWindow).map((i) => i.durationMs);
  return {
    incidents: counted.length,
    open: counted.filter((i) => i.endMs === null).length,
    meanMs: resolved.length ? resolved.reduce((a, b) => a + b, 0) / resolved.length : null,
    maxMs: resolved.length ? Math.max(...resolved) : null,
  };
}

/** The intervals inside [fromMs, toMs), cut at its edges. */
export function clip(intervals: readonly Interval[], fromMs: number, toMs: number): Interval[] {
  return intervals
    .filter((i) => i.endMs > fromMs && i.startMs < toMs)
    .map((i) => ({ state: i.state, startMs: Math.max(i.startMs, fromMs), endMs: Math.min(i.endMs, toMs) }));
}

/** One Availability per UTC day the timeline touches, oldest first (uptime bars). */
export function perDay(t: Pick<Timeline, 'intervals' | 'startMs' | 'endMs'>): Array<Availability & { readonly dayMs: number }> {
  const DAY = 86_400_000;
  const out: Array<Availability & { dayMs: number }> = [];
  for (let day = Math.floor(t.startMs / DAY) * DAY; day < t.endMs; day += DAY) {
    out.push({ dayMs: day, ...availabilityOf({ intervals: clip(t.intervals, day, day + DAY) }) });
  }
  return out;
}
