/**
 * Replays runs through the synthesized alarms with CloudWatch's real timing, the way the first
 * release's replay did not: a datapoint counts only once it has ARRIVED.
 *
 * - Each region's run k is scheduled at the start of period k; Scheduler starts it at some second of
 *   that minute ("60 second precision"); it publishes when it ends, `runSeconds` later. Its datapoint is
 *   stamped with the period it was scheduled for (what the run does, functions/lambdas/run/event.ts).
 * - CloudWatch evaluates every minute, 5–15 s after the minute closes (AWS's alarm-event example
 *   evaluates the 11:25:00 point at 11:26:05), over the periods that have closed by then, using only
 *   the datapoints that have arrived by then. The evaluation range is EvaluationPeriods + 2 periods
 *   (the guide's example: 5 points for 3).
 * - The alarm starts in INSUFFICIENT_DATA when created; each evaluation applies the guide's
 *   missing-data rules (cloudwatch-alarm.ts); every state change runs that state's actions.
 *
 * - What AWS documents beyond that, each optional in a Timing: a run delivered more than once (Scheduler
 *   and Lambda's asynchronous queue are at-least-once; a duplicate has timing of its own), a start
 *   delayed by throttling (Lambda keeps the event up to its maximum event age, 60 s), a put whose answer
 *   was lost (stored or not, nobody can tell), a throttled put (certainly not stored, retried), and a
 *   batch-mate that holds the invocation for its whole budget.
 * - What the canary does with them is a CanaryBehaviour: the shipped one (the run ledger, puts retried
 *   only when certainly not stored, datapoints in waves), or the one before this round.
 *
 * Times are seconds from the scheduled start of scenario run 1. Baseline runs (healthy, before run 1)
 * let an alarm settle first; with no baseline the alarm is new ("created at run 1").
 */
import { parseAlarmDescription } from '../../../functions/base/common/alarm-words.ts';
import { certainlyNotStored, PUBLISH_BASE_DELAY_MS, runData } from '../../../functions/io/publish/metrics.ts';
import { RUN_RECORD_MESSAGE, type RunRecord } from '../../../functions/base/common/run-record.ts';
import type { Outcome, Verdict } from '../../../functions/base/common/verdict.ts';
import { render, type AlarmProps } from './cfn.ts';
import {
  evaluateExpression,
  evaluateRange,
  type AlarmRule,
  type AlarmState,
  type Comparison,
  type Series,
  type Treatment,
} from './cloudwatch-alarm.ts';

/**
 * One character per run: H healthy, W healthy with a warning, D degraded, I inconclusive (the canary could
 * not judge: its own credential read or config failed), F failed; and three ways a region goes silent:
 * `-` no run at all, L the run ledger could not record the claim (the run is skipped, "unclaimed":
 * functions/lambdas/run/run.ts), P the run judged but its PutMetricData failed for good (logged as
 * "publish failed", nothing stored). The alarms see the three alike: no datapoint.
 */
export const RUN_CODES: Readonly<Record<string, { outcome: Outcome; warnings: number } | null>> = {
  H: { outcome: 'healthy', warnings: 0 },
  W: { outcome: 'healthy', warnings: 1 },
  D: { outcome: 'degraded', warnings: 0 },
  I: { outcome: 'inconclusive', warnings: 0 },
  F: { outcome: 'failed', warnings: 0 },
  '-': null,
  L: null,
  P: null,
};

/** The CloudWatch guide's example: 5 points fetched for an alarm with 3 evaluation periods. */
export const EVALUATION_RANGE_EXTRA = 2;

export interface Timing {
  /** Second of its minute at which the region's run k starts: [0, 60). */
  startSecond(region: string, run: number): number;
  /** How long the run takes until its datapoint is published: [1, run budget]. */
  runSeconds(region: string, run: number): number;
  /** How long after the minute closes CloudWatch evaluates: [5, 15]. */
  evaluationDelay(minute: number): number;
  /** Throttling: seconds the run starts after Scheduler invoked it, [0, maximum event age]. @default 0 */
  startDelay?(region: string, run: number): number;
  /** Further deliveries of the same run, each timed on its own. @default none */
  duplicates?(region: string, run: number): readonly Delivery[];
  /** What happens to the put of delivery `d` (0: the first) of the run. @default 'stored' */
  put?(region: string, run: number, d: number): PutOutcome;
  /** Seconds the slowest target of the run's batch takes (≥ runSeconds). @default runSeconds */
  slowestInBatch?(region: string, run: number): number;
}

/** One delivery of a scheduled run: when it starts in its period (Scheduler's second plus throttling) and how long it runs. */
export interface Delivery {
  readonly startSecond: number;
  readonly startDelay: number;
  readonly runSeconds: number;
}

/**
 * - stored: accepted;
 * - throttled: refused (certainly not stored), retried after a backoff;
 * - ambiguous-stored: stored, but the answer was lost (a timeout, a reset, a 5xx);
 * - ambiguous-lost: the same, but nothing was stored.
 */
export type PutOutcome = 'stored' | 'throttled' | 'ambiguous-stored' | 'ambiguous-lost';

/** How the canary treats AWS's duplicates and a slow batch-mate. */
export interface CanaryBehaviour {
  /** The run ledger: only the delivery that claims the period first judges and publishes. */
  readonly dedup: boolean;
  /** A put whose answer was lost is retried: stored twice when the first attempt was stored. */
  readonly retryAmbiguousPuts: boolean;
  /** 'waves': a datum leaves with its own verdict; 'batch': every datum leaves when the slowest target is done. */
  readonly publish: 'waves' | 'batch';
}

/** What ships: the ledger (functions/lambdas/run/ledger.ts), the publisher's own retry rule, waves. */
export const SHIPPED: CanaryBehaviour = {
  dedup: true,
  retryAmbiguousPuts: certainlyNotStored(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })),
  publish: 'waves',
};
/** Main before this round: every delivery counted, every transient put error retried, one put at the end. */
export const BEFORE_LEDGER: CanaryBehaviour = { dedup: false, retryAmbiguousPuts: true, publish: 'batch' };

/** Every run starts 20 s into its minute, takes 3 s; evaluation 10 s after the minute. */
export const PROMPT: Timing = { startSecond: () => 20, runSeconds: () => 3, evaluationDelay: () => 10 };

export interface TimedScenario {
  /** Per region: one character per run (RUN_CODES); a region not named runs `H` throughout. */
  readonly runs: Readonly<Record<string, string>>;
  readonly timing?: Timing;
  /** @default SHIPPED */
  readonly canary?: CanaryBehaviour;
  /** Healthy runs before run 1 in every region. 0: the alarms are created at run 1. @default - enough to settle */
  readonly baseline?: number;
  /** Evaluate this many periods past the last run (silence at the end). @default 2 */
  readonly tail?: number;
  /**
   * The alarm is created (deployed) at the start of scenario run k, k ≥ 1: the runs before it are history
   * it reads but was not there to evaluate. @default - before the baseline
   */
  readonly createdAtRun?: number;
  /**
   * The probe regions whose runs feed an alarm that names none in its description (a fleet-level alarm
   * of the canary owner's). @default - the regions the scenario names
   */
  readonly regions?: readonly string[];
}

export interface Notification {
  readonly alarm: string;
  readonly state: AlarmState;
  readonly from: AlarmState;
  readonly topics: readonly string[];
  /** Seconds from run 1's scheduled start. */
  readonly at: number;
  /** Runs (periods) of the scenario that had closed when it was sent: "after run N". */
  readonly afterRun: number;
  readonly evaluated: ReadonlyArray<{ value: number | undefined; breaching: boolean }>;
}

/** What an alarm reads, normalized from a single-metric or a metric-math alarm. */
interface Reader {
  readonly periodSeconds: number;
  /** Metric id → the metric (by name) and the statistic read. */
  readonly stats: ReadonlyMap<string, { readonly metric: string; readonly stat: 'Sum' | 'SampleCount' }>;
  /** `undefined`: a single-metric alarm (its one id is the value). */
  readonly expression: string | undefined;
}

function readerOf(a: AlarmProps): Reader {
  if (a.Metrics && a.Metrics.length > 0) {
    const stats = new Map<string, { metric: string; stat: 'Sum' | 'SampleCount' }>();
    let period = 0;
    for (const m of a.Metrics) {
      if (!m.MetricStat) continue;
      stats.set(m.Id, { metric: m.MetricStat.Metric.MetricName, stat: statOf(m.MetricStat.Stat) });
      period = m.MetricStat.Period;
    }
    const expression = a.Metrics.find((m) => m.Expression !== undefined && m.ReturnData !== false)?.Expression;
    return { periodSeconds: period, stats, expression };
  }
  return {
    periodSeconds: a.Period!,
    stats: new Map([['m', { metric: a.MetricName!, stat: statOf(a.Statistic!) }]]),
    expression: undefined,
  };
}

function statOf(s: string): 'Sum' | 'SampleCount' {
  if (s === 'Sum' || s === 'SampleCount') return s;
  throw new Error(`statistic ${s} not modelled`);
}

export function ruleOf(a: AlarmProps): AlarmRule {
  return {
    comparison: a.ComparisonOperator as Comparison,
    threshold: a.Threshold,
    evaluationPeriods: a.EvaluationPeriods,
    datapointsToAlarm: a.DatapointsToAlarm,
    treatMissingData: (a.TreatMissingData ?? 'missing') as Treatment,
  };
}

interface Point {
  readonly metric: string;
  readonly period: number;
  readonly arrivesAt: number;
  readonly value: number;
}

/** The datums the shipped publisher writes for one run (functions/io/publish/metrics.ts), by metric name. */
function datumsOf(code: { outcome: Outcome; warnings: number }, region: string): Array<{ metric: string; value: number }> {
  const verdict = { target: 'modelled', outcome: code.outcome, warnings: Array.from({ length: code.warnings }) } as unknown as Verdict;
  const record: RunRecord = {
    message: RUN_RECORD_MESSAGE,
    target: 'modelled',
    probeRegion: region,
    startedAt: '2026-11-29T22:00:00.000Z',
    scheduledFor: '2026-11-29T22:00:00.000Z',
    verdict,
  };
  // The model matches datums to alarms by metric name; the one rate it replays needs no dimension match.
  // RunDuration (Values/Counts) feeds no alarm.
  return runData([record], '1m').flatMap((d) => (d.Value === undefined ? [] : [{ metric: d.MetricName!, value: d.Value }]));
}

/** A retried put goes out after the publisher's first backoff. */
const RETRY_SECONDS = PUBLISH_BASE_DELAY_MS / 1000;

/** Every delivery of region `region`'s run `run`, the first one first. */
function deliveriesOf(timing: Timing, region: string, run: number): Delivery[] {
  const first = {
    startSecond: timing.startSecond(region, run),
    startDelay: timing.startDelay?.(region, run) ?? 0,
    runSeconds: timing.runSeconds(region, run),
  };
  return [first, ...(timing.duplicates?.(region, run) ?? [])];
}

/**
 * Every datapoint the runs publish: stamped with their scheduled period, arriving when the delivery that
 * ran publishes it. With the ledger only the delivery that starts first runs; without it, each does.
 */
function datapoints(s: TimedScenario, periodSeconds: number, baseline: number): Point[] {
  const timing = s.timing ?? PROMPT;
  const canary = s.canary ?? SHIPPED;
  const points: Point[] = [];
  for (const [region, seq] of Object.entries(s.runs)) {
    const full = 'H'.repeat(baseline) + seq;
    [...full].forEach((ch, i) => {
      if (!(ch in RUN_CODES)) throw new Error(`unknown run "${ch}"`);
      const code = RUN_CODES[ch];
      if (!code) return;
      const run = i - baseline + 1;
      const datums = datumsOf(code, region);
      const all = deliveriesOf(timing, region, run).map((d, index) => ({ ...d, index, at: d.startSecond + d.startDelay }));
      const ran = canary.dedup ? [all.reduce((a, b) => (b.at < a.at ? b : a))] : all;
      for (const d of ran) {
        const took = canary.publish === 'batch' ? Math.max(d.runSeconds, timing.slowestInBatch?.(region, run) ?? 0) : d.runSeconds;
        const sent = (run - 1) * periodSeconds + d.at + took;
        const put = timing.put?.(region, run, d.index) ?? 'stored';
        const arrivals =
          put === 'stored'
            ? [sent]
            : put === 'throttled'
              ? [sent + RETRY_SECONDS]
              : put === 'ambiguous-stored'
                ? canary.retryAmbiguousPuts
                  ? [sent, sent + RETRY_SECONDS]
                  : [sent]
                : canary.retryAmbiguousPuts
                  ? [sent + RETRY_SECONDS]
                  : [];
        for (const arrivesAt of arrivals) for (const d of datums) points.push({ metric: d.metric, period: run, arrivesAt, value: d.value });
      }
    });
  }
  return points;
}

/** Replays one scenario through the given alarms; notifications in time order. */
export function replayTimed(alarms: readonly AlarmProps[], s: TimedScenario): Notification[] {
  const timing = s.timing ?? PROMPT;
  const longest = Math.max(...Object.values(s.runs).map((r) => r.length));
  const out: Notification[] = [];
  for (const alarm of alarms) {
    const reader = readerOf(alarm);
    const p = reader.periodSeconds;
    const rule = ruleOf(alarm);
    const baseline = s.baseline ?? rule.evaluationPeriods + EVALUATION_RANGE_EXTRA + 2;
    // A target alarm's description names its regions; a region the scenario does not name runs healthy.
    const regions = parseAlarmDescription(alarm.AlarmDescription).regions ?? s.regions ?? Object.keys(s.runs);
    const runs = Object.fromEntries(regions.map((r) => [r, s.runs[r] ?? 'H'.repeat(longest)]));
    const points = datapoints({ ...s, runs }, p, baseline);
    // By period, so a long window (a day of minutes) costs a lookup per period, not a scan of every point.
    const byPeriod = new Map<number, Point[]>();
    for (const x of points) byPeriod.set(x.period, [...(byPeriod.get(x.period) ?? []), x]);
    // A period whose every datapoint has arrived has its final value: read once, so a day-long window over
    // days of runs costs a lookup per period per minute.
    const lastArrival = new Map([...byPeriod].map(([period, xs]) => [period, Math.max(...xs.map((x) => x.arrivesAt))]));
    const settled = new Map<number, number | undefined>();
    const createdAt = s.createdAtRun !== undefined ? (s.createdAtRun - 1) * p : -baseline * p;
    const endAt = (longest + (s.tail ?? 2)) * p;
    let state: AlarmState = 'INSUFFICIENT_DATA';
    const cache = new Map<string, number | undefined>();
    // CloudWatch evaluates every minute, whatever the period.
    for (let minute = Math.floor(createdAt / 60) + 1; minute * 60 <= endAt; minute++) {
      const at = minute * 60 + timing.evaluationDelay(minute);
      const closed = Math.floor((minute * 60) / p); // periods 1..closed have ended (period k ends at k·p)
      const size = rule.evaluationPeriods + EVALUATION_RANGE_EXTRA;
      const periods = Array.from({ length: size }, (_, i) => closed - size + 1 + i);
      // Periods before the alarm existed still count if data is there (the guide: data from before creation is read).
      const range = periods.map((period) => {
        const done = (lastArrival.get(period) ?? -Infinity) <= at;
        if (done && settled.has(period)) return settled.get(period);
        const stats = [...reader.stats].map(([id, { metric, stat }]) => {
          const mine = (byPeriod.get(period) ?? []).filter((x) => x.metric === metric && x.arrivesAt <= at);
          return [id, mine.length === 0 ? undefined : stat === 'Sum' ? mine.reduce((sum, x) => sum + x.value, 0) : mine.length] as const;
        });
        const value = pointValue(reader, stats, cache);
        if (done) settled.set(period, value);
        return value;
      });
      const next = evaluateRange(rule, range, state);
      const afterRun = Math.floor((minute * 60) / p);
      // Changes while the baseline settles are not part of the scenario (with no baseline there are none).
      if (next.state !== state && afterRun >= 1) {
        const actions = next.state === 'ALARM' ? alarm.AlarmActions : next.state === 'OK' ? alarm.OKActions : alarm.InsufficientDataActions;
        out.push({
          alarm: alarm.AlarmName,
          state: next.state,
          from: state,
          topics: (actions ?? []).map(render),
          at,
          afterRun,
          evaluated: next.evaluated,
        });
      }
      state = next.state;
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/**
 * The alarm's value for one period from that period's statistics (undefined: no datapoint). Every function
 * the alarms use is per point (arithmetic, comparisons, IF, FLOOR), so a period's value depends on its own
 * statistics alone: computed once per distinct set of them, which keeps a day-long window fast.
 */
function pointValue(
  reader: Reader,
  stats: ReadonlyArray<readonly [string, number | undefined]>,
  cache: Map<string, number | undefined>,
): number | undefined {
  if (reader.expression === undefined) return stats[0]![1];
  const key = stats.map(([, v]) => (v === undefined ? '-' : String(v))).join(',');
  if (!cache.has(key)) {
    const data = new Map<string, Series>(stats.map(([id, v]) => [id, new Map(v === undefined ? [] : [[0, v]])]));
    cache.set(key, evaluateExpression(reader.expression, data).get(0));
  }
  return cache.get(key);
}

/** A seeded generator (mulberry32), so a failing property run can be replayed from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What AWS may do beyond the documented timing, as rates per run (0: never). */
export interface Faults {
  /** A run is delivered a second time, timed on its own. */
  readonly duplicateRate?: number;
  /** Only these regions' runs are duplicated. @default every region */
  readonly duplicatedRegions?: readonly string[];
  /** A put's answer is lost; half of those were stored. */
  readonly ambiguousPutRate?: number;
  /** Of the ambiguous puts, the share that stored nothing. @default 0.5 */
  readonly lostShare?: number;
  /** A put is throttled (retried). */
  readonly throttledPutRate?: number;
  /** A run starts up to this many seconds late (Lambda throttling, bounded by the maximum event age). @default 0 */
  readonly maxStartDelaySeconds?: number;
  /** A run's batch has a target that holds it for the whole run budget. */
  readonly slowBatchRate?: number;
}

/**
 * Random timings: each region starts at a fixed or a jittered second of its minute, runs take from 1 s
 * to `maxRunSeconds` (the whole run budget), CloudWatch evaluates 5–15 s after each minute; and the
 * faults, each drawn independently per run.
 */
export function randomTiming(random: () => number, maxRunSeconds: number, jitter: boolean, faults: Faults = {}): Timing {
  const fixedStart = new Map<string, number>();
  const memo = new Map<string, unknown>();
  const once = <T>(key: string, make: () => T): T => {
    if (!memo.has(key)) memo.set(key, make());
    return memo.get(key) as T;
  };
  const chance = (rate: number | undefined) => (rate ?? 0) > 0 && random() < rate!;
  const startSecond = (region: string, run: number) => {
    if (!jitter) {
      if (!fixedStart.has(region)) fixedStart.set(region, Math.floor(random() * 60));
      return fixedStart.get(region)!;
    }
    return once(`s:${region}:${run}`, () => random() * 59.999);
  };
  const delay = () => ((faults.maxStartDelaySeconds ?? 0) > 0 ? random() * faults.maxStartDelaySeconds! : 0);
  return {
    startSecond,
    runSeconds: (region, run) => once(`r:${region}:${run}`, () => 1 + random() * (maxRunSeconds - 1)),
    evaluationDelay: (minute) => once(`e:${minute}`, () => 5 + random() * 10),
    startDelay: (region, run) => once(`d:${region}:${run}`, delay),
    duplicates: (region, run) =>
      once(`dup:${region}:${run}`, () =>
        (faults.duplicatedRegions === undefined || faults.duplicatedRegions.includes(region)) && chance(faults.duplicateRate)
          ? [{ startSecond: random() * 59.999, startDelay: delay(), runSeconds: 1 + random() * (maxRunSeconds - 1) }]
          : [],
      ),
    put: (region, run, d) =>
      once(`p:${region}:${run}:${d}`, (): PutOutcome => {
        if (chance(faults.ambiguousPutRate)) return random() < (faults.lostShare ?? 0.5) ? 'ambiguous-lost' : 'ambiguous-stored';
        return chance(faults.throttledPutRate) ? 'throttled' : 'stored';
      }),
    slowestInBatch: (region, run) => once(`b:${region}:${run}`, () => (chance(faults.slowBatchRate) ? maxRunSeconds : 0)),
  };
}
