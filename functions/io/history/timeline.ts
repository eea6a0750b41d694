/**
 * A target's history as the alarms saw it, rebuilt from its `Verdict` metric after the fact: the page
 * (critical) and ticket (warning) rules of infra/constructs/target-alarms.ts replayed over every period,
 * with the determination of infra/constructs/alarm-math.ts and CloudWatch's `ignore` evaluation. Pure:
 * no clock, no AWS; the reader (read.ts) fetches the samples, decoded (run-record.ts `decodeVerdicts`).
 *
 * - down: from the first failing period of the N in a row that paged until the first period in which a
 *   quorum of failures was no longer possible (the page's OK). A canary that is silent or cannot judge
 *   keeps an open page open, as the alarm does, so those periods stay down.
 * - degraded: the ticket rule open (some region not healthy N in a row) and no page open. Like the page,
 *   it ends only at a later period that proves it over (every region reported, none unhealthy): a silent
 *   period, or a newest one whose runs have not all arrived yet, keeps it open, as the alarm does. A period
 *   in which every region that reported could not judge is no-data even then: the ticket is the canary's
 *   own (inconclusive), not the endpoint's.
 * - maintenance: a configured window overlaps the period; shown, and left out of availability.
 * - no-data: no region judged the period (none reported, or every one that did was inconclusive) and no
 *   rule open; left out of availability too: a period nobody could judge is neither up nor down.
 * - up: everything else. A blip shorter than N runs is up: it paged no one, by the rule.
 */

export type IntervalState = 'up' | 'down' | 'degraded' | 'maintenance' | 'no-data';

/**
 * One period of the target's `Verdict` metric, decoded: regions that reported (SampleCount), failed, and
 * could not judge. A coarse point (resolution.ts `perRun`) holds its runs' averages.
 */
export interface PeriodSample {
  /** Regions whose run failed. */
  readonly failing: number;
  /** Regions that reported a run. */
  readonly reports: number;
  /** Regions whose run could not judge (inconclusive). @default 0 */
  readonly inconclusive?: number;
  /** Some region needed a ticket (failed, inconclusive, degraded, warned): Sum > 0. @default - failing > 0 */
  readonly ticket?: boolean;
  /** Regions worth a ticket but not failed (degraded, warned, inconclusive). @default 0 */
  readonly ticketed?: number;
}

export interface Interval {
  readonly state: IntervalState;
  /** Epoch ms, inclusive. */
  readonly startMs: number;
  /** Epoch ms, exclusive. */
  readonly endMs: number;
}

export interface Incident {
  /** Start of the first failing period of the streak that paged. */
  readonly startMs: number;
  /** Start of the period that resolved it; null while still open at the window's end. */
  readonly endMs: number | null;
  /** When the rule paged: the end of the N-th failing period (CloudWatch sends it seconds later). */
  readonly pagedAtMs: number;
  /** end (or the window's end) − start. */
  readonly durationMs: number;
  /** Of that, the time outside maintenance windows: what availability counts. */
  readonly countedMs: number;
  readonly maintenance: 'none' | 'partly' | 'inside';
  /** The failure class of the runs that paged, when the reader could learn it; null otherwise. */
  readonly failureClass: string | null;
  /**
   * Already open when the window began (its page came from the periods before it): start is the window's
   * start, and duration the part inside the window, not the outage's whole length.
   */
  readonly startedBeforeWindow: boolean;
}

/** The rule as the timeline applies it (resolution.ts's PagingRule, possibly coarsened there). */
export interface TimelineRule {
  readonly regions: number;
  readonly quorum: number;
  readonly runsInARow: number;
  readonly periodSeconds: number;
}

export interface TimelineInput {
  readonly rule: TimelineRule;
  /** Start of period 0, epoch ms. */
  readonly startMs: number;
  /** `samples[i]` is the period starting at startMs + i·period; undefined: no region reported. */
  readonly samples: ReadonlyArray<PeriodSample | undefined>;
  /** Maintenance windows of this target, epoch ms [start, end). */
  readonly maintenance?: ReadonlyArray<{ readonly startMs: number; readonly endMs: number }>;
  /**
   * Where the window begins (a whole number of periods after startMs): the samples before it only seed
   * the rule, as the alarm's own evaluation range holds them, so an outage that began before the window
   * is down from its first minute and marked as such. @default - startMs: no lookback
   */
  readonly windowStartMs?: number;
}

export interface Timeline {
  readonly startMs: number;
  readonly endMs: number;
  readonly periodSeconds: number;
  /** Run-length intervals covering [startMs, endMs) with no gaps. */
  readonly intervals: readonly Interval[];
  readonly incidents: readonly Incident[];
}

type Point = 'breach' | 'ok' | undefined;

/**
 * alarm-math.ts `failingRegions`: breaching once a quorum's share of the regions that may judge the period
 * failed (F·R ≥ k·(R − I), some failed); not breaching once more than R − k regions judged it not failing;
 * else undetermined. (F > 0 rather than FLOOR's F ≥ 1: the same on exact points, and a coarse point's
 * average of runs with a failure in them still counts them.)
 */
export function pagePoint(s: PeriodSample | undefined, regions: number, quorum: number): Point {
  if (!s) return undefined;
  const inconclusive = s.inconclusive ?? 0;
  if (s.failing > 0 && s.failing * regions >= quorum * (regions - inconclusive)) return 'breach';
  if (s.reports - s.failing - inconclusive > regions - quorum) return 'ok';
  return undefined;
}

/** alarm-math.ts `ticketRegions`: any region needing a ticket breaches; none is known only once every region reported. */
export function ticketPoint(s: PeriodSample | undefined, regions: number): Point {
  if (!s) return undefined;
  if (s.ticket ?? s.failing > 0) return 'breach';
  if (s.reports >= regions) return 'ok';
  return undefined;
}

/** No region judged the period: none reported, or all that did could not judge. */
function unjudged(s: PeriodSample | undefined): boolean {
  return !s || s.reports - (s.inconclusive ?? 0) <= 0;
}

/**
 * Regions reported and every one could not judge. The ticket alarm opens on it (inconclusive is worth a
 * ticket), but nothing was degraded for agents: the period is no-data, not degraded. A silent period is not
 * this: it keeps an open stretch open.
 */
function cannotJudge(s: PeriodSample | undefined): boolean {
  return s !== undefined && s.reports > 0 && unjudged(s);
}

/** An alarm's open spell, in period indexes: [first, end), alarmed after period `alarmAt`. */
export interface Episode {
  readonly first: number;
  readonly alarmAt: number;
  /** The period whose point resolved it; null when still open. */
  readonly end: number | null;
}

/** CloudWatch's evaluation range: EvaluationPeriods + 2 periods (the User Guide's example: 5 for 3). */
export const EVALUATION_RANGE_EXTRA = 2;

/**
 * The alarm's ALARM spells over determined points, by the `ignore` rules (EvaluationPeriods =
 * DatapointsToAlarm = N): with ≥ N existing points in the range, the newest N decide; with fewer, only
 * breaching ones keep the state and any non-breaching one means OK.
 */
export function episodes(points: readonly Point[], n: number): Episode[] {
  const out: Episode[] = [];
  let open: { first: number; alarmAt: number } | null = null;
  for (let k = 0; k < points.length; k++) {
    const existing: number[] = [];
    for (let i = Math.max(0, k - n - EVALUATION_RANGE_EXTRA + 1); i <= k; i++) if (points[i] !== undefined) existing.push(i);
    let alarm: boolean | null; // null: keep the state
    if (existing.length >= n) alarm = existing.slice(-n).every((i) => points[i] === 'breach');
    else if (existing.every((i) => points[i] === 'breach')) alarm = null;
    else alarm = false;
    if (alarm === true && !open) open = { first: existing[existing.length - n]!, alarmAt: k };
    if (alarm === false && open) {
      out.push({ ...open, end: k });
      open = null;
    }
  }
  if (open) out.push({ ...open, end: null });
  return out;
}

export function buildTimeline(input: TimelineInput): Timeline {
  const { rule, startMs, samples } = input;
  const p = rule.periodSeconds * 1000;
  const count = samples.length;
  const endMs = startMs + count * p;
  const k0 = input.windowStartMs === undefined ? 0 : Math.max(0, Math.min(count, Math.round((input.windowStartMs - startMs) / p)));
  const fromMs = startMs + k0 * p;
  const pages = episodes(
    samples.map((s) => pagePoint(s, rule.regions, rule.quorum)),
    rule.runsInARow,
  );
  const tickets = episodes(
    samples.map((s) => ticketPoint(s, rule.regions)),
    rule.runsInARow,
  );
  const windows = input.maintenance ?? [];
  const inMaintenance = (i: number) => windows.some((w) => w.startMs < startMs + (i + 1) * p && w.endMs > startMs + i * p);

  const down = new Uint8Array(count);
  const ticket = new Uint8Array(count);
  for (const e of pages) down.fill(1, e.first, e.end ?? count);
  for (const e of tickets) ticket.fill(1, e.first, e.end ?? count);

  // An open rule outranks silence: a period with no data yet does not end what only a determined period can.
  const states: IntervalState[] = samples.map((s, i) =>
    inMaintenance(i) ? 'maintenance' : down[i] ? 'down' : ticket[i] && !cannotJudge(s) ? 'degraded' : unjudged(s) ? 'no-data' : 'up',
  );
  const intervals: Interval[] = [];
  states.forEach((state, i) => {
    if (i < k0) return;
    const last = intervals[intervals.length - 1];
    if (last && last.state === state) intervals[intervals.length - 1] = { ...last, endMs: startMs + (i + 1) * p };
    else intervals.push({ state, startMs: startMs + i * p, endMs: startMs + (i + 1) * p });
  });

  const incidents = pages
    .filter((e) => (e.end ?? count) > k0)
    .map((e): Incident => {
      const first = Math.max(e.first, k0);
      const stop = e.end ?? count;
      let muted = 0;
      for (let i = first; i < stop; i++) if (inMaintenance(i)) muted++;
      const periods = stop - first;
      return {
        startMs: startMs + first * p,
        endMs: e.end === null ? null : startMs + e.end * p,
        pagedAtMs: startMs + (e.alarmAt + 1) * p,
        durationMs: periods * p,
        countedMs: (periods - muted) * p,
        maintenance: muted === 0 ? 'none' : muted === periods ? 'inside' : 'partly',
        failureClass: null,
        startedBeforeWindow: e.first < k0,
      };
    });
  return { startMs: fromMs, endMs, periodSeconds: rule.periodSeconds, intervals, incidents };
}
