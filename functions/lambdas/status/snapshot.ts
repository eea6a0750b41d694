/**
 * The status snapshot: what the page and status.json say, built from the payload (display names, regions
 * counted, maintenance) and each target's history (gather.ts). Pure: no I/O and an injected clock, so every
 * state the page can show is a unit test. Only display names enter it; `metric` (the target's config name)
 * stays behind, since a target with a display name may have a name its owner would rather not publish.
 */
import type { StatusPayload } from '../../base/config/schema/status-page.ts';
import { causeWords, dayOf, incidentWords, maintenanceWords } from './words.ts';
import { openings } from '../../io/history/maintenance-windows.ts';

/** What a person reads off a target: its state now, or a day's worst. */
export const State = { up: 'up', degraded: 'degraded', down: 'down', maintenance: 'maintenance', noData: 'no_data' } as const;
export type State = (typeof State)[keyof typeof State];
/**
 * Worst first, for the page's overall state: one service without data leaves the page unable to say all
 * are working, so no data ranks above up.
 */
const SEVERITY: readonly State[] = ['down', 'degraded', 'maintenance', 'no_data', 'up'];

/** A stretch of one state, by the paging rule (quorum, N in a row): the history reader's answer, run-length. */
export interface Segment {
  readonly start: number;
  readonly end: number;
  readonly state: 'up' | 'degraded' | 'down';
}
export interface HistoryIncident {
  readonly kind: 'outage' | 'degraded';
  readonly start: number;
  /** Null while it is open. */
  readonly end: number | null;
  /** The most regions failing at once, of `regions`; null when the history cannot tell (a point of several runs). */
  readonly failedRegions: number | null;
  /** The most regions not healthy at once (failing, degraded, inconclusive or warned); null likewise. */
  readonly unhealthyRegions: number | null;
  readonly regions: number;
  readonly failureClass?: string;
  /** When the rule paged (outages): the runs before it name the failure class (causes.ts). Not shown. */
  readonly pagedAt?: number;
}
/** One shown target's history, keyed by its metric name. Time with no segment had no data. */
export interface TargetHistory {
  readonly metric: string;
  readonly segments: readonly Segment[];
  readonly incidents: readonly HistoryIncident[];
}

export interface DayBar {
  /** YYYY-MM-DD, UTC. */
  readonly date: string;
  readonly state: State;
  /** Percent of the day's judged time (maintenance excluded) that was not down; null with no data. */
  readonly uptime: number | null;
  readonly downMinutes: number;
  readonly degradedMinutes: number;
  readonly maintenanceMinutes: number;
  /** The bar's text equivalent: "1 Dec 2026: down 29 min, 99.98 % up". */
  readonly text: string;
}
export interface TargetStatus {
  readonly name: string;
  readonly state: State;
  /** Percent over the shown days; null with no data at all. */
  readonly uptime: number | null;
  readonly days: readonly DayBar[];
}
export interface IncidentView {
  readonly target: string;
  readonly kind: 'outage' | 'degraded';
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly minutes: number;
  /** The most regions failing at once, of `regions`; null when the history cannot tell (older than 15 days: points of several runs). */
  readonly failedRegions: number | null;
  /** The most regions not healthy at once (failing, degraded, inconclusive or warned): what "degraded … from K of R regions" counts; null likewise. */
  readonly unhealthyRegions: number | null;
  readonly regions: number;
  readonly failureClass: string | null;
  /**
   * How much of it fell in the target's maintenance windows, as the report says it: inside (none of it
   * counts against uptime), partly (countedMinutes of it count) or none.
   */
  readonly maintenance: 'none' | 'partly' | 'inside';
  /** The minutes outside maintenance: what uptime counts. */
  readonly countedMinutes: number;
  /** "Search tools failed for agents from 2 of 3 regions, 14:02–14:31 UTC (29 min)". */
  readonly summary: string;
}
export interface MaintenanceView {
  readonly targets: readonly string[];
  readonly startsAt: string;
  readonly endsAt: string;
  readonly summary: string;
}
export interface StatusSnapshot {
  readonly schema: 'mcp-canary/status@1';
  readonly title: string;
  readonly generatedAt: string;
  /** The worst current state of any shown target. */
  readonly overall: State;
  readonly days: number;
  readonly targets: readonly TargetStatus[];
  readonly incidents: { readonly open: readonly IncidentView[]; readonly past: readonly IncidentView[] };
  readonly maintenance: {
    readonly now: readonly MaintenanceView[];
    readonly upcoming: readonly MaintenanceView[];
    readonly past: readonly MaintenanceView[];
  };
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** CloudWatch's coarsest period the history reads (1 hour, beyond 63 days). */
const COARSEST_PERIOD_MS = 3_600_000;
/** Past incidents listed, newest first: a page, not an archive (status.json carries the same list). */
export const MAX_PAST_INCIDENTS = 50;

export interface SnapshotOptions {
  readonly now: number;
  /** Upcoming maintenance shown this far ahead. */
  readonly upcomingDays: number;
}

export function buildSnapshot(payload: StatusPayload, histories: readonly TargetHistory[], opts: SnapshotOptions): StatusSnapshot {
  const { now } = opts;
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const from = today - (payload.days - 1) * DAY_MS;
  /** The last `days` × 24 h: what uptime and the incident list cover, as `mcp-canary report --days` does. */
  const windowStart = now - payload.days * DAY_MS;
  const byMetric = new Map(histories.map((h) => [h.metric, h]));
  const windows = payload.maintenance.flatMap((w) =>
    merged(openings({ name: 'window', ...w, targets: undefined }, windowStart, now + opts.upcomingDays * DAY_MS)).map((o) => ({
      ...o,
      targets: w.targets,
    })),
  );
  // Two windows of one target may overlap (a weekly deploy and a one-off): their union is its
  // maintenance, so that no minute is left out of uptime twice (dayBar subtracts each window's overlap).
  const ownWindows = (name: string) =>
    merged(windows.filter((w) => w.targets.includes(name)).map((w) => ({ startMs: w.start, endMs: w.end })));
  const targets = payload.targets.map((t) => {
    const history = byMetric.get(t.metric) ?? { metric: t.metric, segments: [], incidents: [] };
    return targetStatus(t.name, t.periodSeconds, history, ownWindows(t.name), { from, today, now, windowStart });
  });
  const incidents = payload.targets.flatMap((t) => {
    const own = ownWindows(t.name);
    return (byMetric.get(t.metric)?.incidents ?? [])
      .filter((i) => (i.end ?? now) > windowStart)
      .map((i) => incidentView(t.name, i, own, now));
  });
  const newest = (a: IncidentView, b: IncidentView) => b.startedAt.localeCompare(a.startedAt);
  const view = (w: Occurrence & { targets: readonly string[] }): MaintenanceView => ({
    targets: w.targets,
    startsAt: new Date(w.start).toISOString(),
    endsAt: new Date(w.end).toISOString(),
    summary: maintenanceWords(w.targets, w.start, w.end, now),
  });
  const byStart = (a: Occurrence, b: Occurrence) => a.start - b.start;
  return {
    schema: 'mcp-canary/status@1',
    title: payload.title,
    generatedAt: new Date(now).toISOString(),
    overall: worst(targets.map((t) => t.state)) ?? State.noData,
    days: payload.days,
    targets,
    incidents: {
      open: incidents.filter((i) => i.endedAt === null).sort(newest),
      past: incidents
        .filter((i) => i.endedAt !== null)
        .sort(newest)
        .slice(0, MAX_PAST_INCIDENTS),
    },
    maintenance: {
      now: windows
        .filter((w) => w.start <= now && now < w.end)
        .sort(byStart)
        .map(view),
      upcoming: windows
        .filter((w) => w.start > now)
        .sort(byStart)
        .map(view),
      past: windows
        .filter((w) => w.end <= now)
        .sort((a, b) => b.start - a.start)
        .map(view),
    },
  };
}

interface Occurrence {
  readonly start: number;
  readonly end: number;
}

/** One window's openings, overlapping or touching ones as one (a cron every 30 minutes lasting an hour is one stretch). */
function merged(open: ReadonlyArray<{ startMs: number; endMs: number }>): Occurrence[] {
  const out: Occurrence[] = [];
  for (const o of [...open].sort((a, b) => a.startMs - b.startMs)) {
    const last = out[out.length - 1];
    if (last && o.startMs <= last.end) out[out.length - 1] = { start: last.start, end: Math.max(last.end, o.endMs) };
    else out.push({ start: o.startMs, end: o.endMs });
  }
  return out;
}

function worst(states: readonly State[]): State | undefined {
  return SEVERITY.find((s) => states.includes(s));
}

interface Span {
  readonly start: number;
  readonly end: number;
}
const overlap = (a: Span, b: Span) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

function targetStatus(
  name: string,
  periodSeconds: number,
  history: TargetHistory,
  windows: readonly Occurrence[],
  at: { from: number; today: number; now: number; windowStart: number },
): TargetStatus {
  const days: DayBar[] = [];
  for (let day = at.from; day <= at.today; day += DAY_MS)
    days.push(dayBar({ start: day, end: Math.min(day + DAY_MS, at.now) }, history.segments, windows).bar);
  // Uptime over the last `days` × 24 h, not the bars' calendar days: the window `mcp-canary report --days N`
  // reads, so the page and the report say the same number (test/integration/lambdas/status/agreement.test.ts).
  // The history itself starts on the report's first period (gather.ts: up to one coarsest period before
  // now − N days, where the report starts too), so its first segment is the window's start.
  const first = history.segments.reduce((m, seg) => Math.min(m, seg.start), at.now);
  const start = Math.max(first, at.windowStart - COARSEST_PERIOD_MS);
  const { judgedMs, downMs } = dayBar({ start, end: at.now }, history.segments, windows);
  return {
    name,
    state: currentState(periodSeconds, history, windows, at.now),
    uptime: judgedMs > 0 ? percent(judgedMs - downMs, judgedMs) : null,
    days,
  };
}

/** A day's minutes by state; maintenance time is neither up nor down (excluded, as the report excludes it). */
function dayBar(
  span: Span,
  segments: readonly Segment[],
  windows: readonly Occurrence[],
): { bar: DayBar; judgedMs: number; downMs: number } {
  const inWindows = (s: Span) => windows.reduce((n, w) => n + overlap(s, w), 0);
  let judgedMs = 0;
  let downMs = 0;
  let degradedMs = 0;
  for (const seg of segments) {
    const part = { start: Math.max(seg.start, span.start), end: Math.min(seg.end, span.end) };
    const ms = Math.max(0, part.end - part.start);
    if (ms === 0) continue;
    const outside = ms - Math.min(ms, inWindows(part));
    judgedMs += outside;
    if (seg.state === 'down') downMs += outside;
    if (seg.state === 'degraded') degradedMs += outside;
  }
  const maintenanceMs = Math.min(span.end - span.start, inWindows(span));
  const state: State =
    downMs > 0
      ? State.down
      : degradedMs > 0
        ? State.degraded
        : maintenanceMs > 0
          ? State.maintenance
          : judgedMs > 0
            ? State.up
            : State.noData;
  const minutes = (ms: number) => Math.round(ms / MINUTE_MS);
  const uptime = judgedMs > 0 ? percent(judgedMs - downMs, judgedMs) : null;
  const date = dayOf(span.start);
  const bar: DayBar = {
    date,
    state,
    uptime,
    downMinutes: minutes(downMs),
    degradedMinutes: minutes(degradedMs),
    maintenanceMinutes: minutes(maintenanceMs),
    text: barText(date, state, uptime, minutes(downMs), minutes(degradedMs), minutes(maintenanceMs)),
  };
  return { bar, judgedMs, downMs };
}

function barText(date: string, state: State, uptime: number | null, down: number, degraded: number, maintenance: number): string {
  const parts = [
    down > 0 ? `down ${down} min` : '',
    degraded > 0 ? `degraded ${degraded} min` : '',
    maintenance > 0 ? `maintenance ${maintenance} min` : '',
  ].filter(Boolean);
  const label = state === State.noData ? 'no data' : parts.length > 0 ? parts.join(', ') : 'no incidents';
  return `${date}: ${label}${uptime === null ? '' : `, ${formatPercent(uptime)} up`}`;
}

/**
 * Now: an open incident says down (or degraded), as the incident list does: it stays open until a later
 * period proves it over, however long the canary has been silent since; a maintenance window says
 * maintenance; otherwise no datapoint in the last three periods says no data (the canary itself is silent:
 * the page must not claim "up").
 */
function currentState(periodSeconds: number, history: TargetHistory, windows: readonly Occurrence[], now: number): State {
  const open = history.incidents.filter((i) => i.end === null);
  if (open.some((i) => i.kind === 'outage')) return State.down;
  if (windows.some((w) => w.start <= now && now < w.end)) return State.maintenance;
  if (open.length > 0) return State.degraded;
  const last = history.segments.reduce<Segment | undefined>((a, s) => (a === undefined || s.end > a.end ? s : a), undefined);
  if (last === undefined || last.end < now - 3 * periodSeconds * 1000) return State.noData;
  if (last.state === 'degraded') return State.degraded;
  return last.state === 'down' ? State.down : State.up;
}

function incidentView(target: string, i: HistoryIncident, windows: readonly Occurrence[], now: number): IncidentView {
  const end = i.end ?? now;
  const whole = end - i.start;
  const inside = Math.min(
    whole,
    windows.reduce((n, w) => n + overlap({ start: i.start, end }, w), 0),
  );
  // The report's rule (functions/io/history/budget.ts): inside when no part of it counts, partly when some does.
  const maintenance = inside <= 0 ? 'none' : inside >= whole ? 'inside' : 'partly';
  return {
    target,
    kind: i.kind,
    startedAt: new Date(i.start).toISOString(),
    endedAt: i.end === null ? null : new Date(i.end).toISOString(),
    minutes: Math.round((end - i.start) / MINUTE_MS),
    failedRegions: i.failedRegions,
    unhealthyRegions: i.unhealthyRegions,
    regions: i.regions,
    // Only a class of the taxonomy, the one the sentence has words for.
    failureClass: i.failureClass !== undefined && causeWords(i.failureClass) ? i.failureClass : null,
    maintenance,
    countedMinutes: Math.round((whole - inside) / MINUTE_MS),
    summary: incidentWords({ target, ...i, maintenanceMs: inside }, now),
  };
}

/** Rounded down to two decimals: 99.999 shows as 99.99, never as a 100 that was not. */
function percent(part: number, whole: number): number {
  return Math.floor((part / whole) * 10_000) / 100;
}

export function formatPercent(p: number): string {
  return `${p.toFixed(2).replace(/\.?0+$/, '')} %`;
}
