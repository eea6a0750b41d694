/**
 * Each shown target's history for the page, from functions/io/history: its reader (`readVerdicts`) and its
 * replay of the paging rule (`buildTimeline`), so the page counts incidents exactly as on-call was paged.
 *
 * Read in CloudWatch's retention tiers, each at the finest period it still holds: the last 15 days run by
 * run (exact: incident times to the minute), 15–63 days at 5 minutes, 63–90 days at 1 hour (approximate,
 * as functions/io/history/resolution.ts says). GetMetricData is billed per metric requested (2 per target
 * per tier), not per datapoint, and all but the last 2 days move by at most one point an hour: a warm
 * function keeps those tiers for an hour (`TierCache`) and reads only the last 2 days, so a 5-minute page
 * costs about 2.5 metrics per target per run instead of 8 (docs/reports-and-status.md, "Cadence and cost").
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { StatusPayload } from '../../base/config/schema/status-page.ts';
import { readVerdicts, type MetricCost } from '../../io/history/metrics-reader.ts';
import { perRun, resolutionFor, ruleAt, type Resolution } from '../../io/history/resolution.ts';
import { mostAtOnce } from '../../io/history/regions.ts';
import { buildTimeline, EVALUATION_RANGE_EXTRA, type PeriodSample } from '../../io/history/timeline.ts';
import type { HistoryIncident, Segment, TargetHistory } from './snapshot.ts';

const DAY_MS = 86_400_000;
/**
 * [from days ago, to days ago): each tier's reach, at the period CloudWatch keeps for its oldest point.
 * The 1-minute data is split at 2 days: every run reads only the last 2 days (a few thousand points per
 * target), the heavy 13 days behind them come from the hourly cache like the coarse tiers.
 */
export const TIERS = [
  // An hour more than 2 days: a cached tier behind it ended up to an hour ago (OLD_TIER_TTL_MS), and the
  // overlap is cut from the older tier when they are joined, so no stretch is missing or counted twice.
  { fromDays: 2 + 1 / 24, toDays: 0 },
  { fromDays: 15, toDays: 2 },
  { fromDays: 63, toDays: 15 },
  { fromDays: 90, toDays: 63 },
] as const;
/** Targets read together: bounds the samples held in memory at once (a target's 13 days are ~19,000 points). */
export const TARGETS_PER_READ = 50;
/** How long a warm function reuses the two older tiers. */
export const OLD_TIER_TTL_MS = 3_600_000;

type PayloadTarget = StatusPayload['targets'][number];
interface TierRead {
  readonly target: string;
  /** Where this read starts: an older read counts only before it. */
  readonly startMs: number;
  /**
   * How far past its start an incident of this read may begin and still be the continuation of one open
   * at the older read's end: its rule's N points plus CloudWatch's 2 more of evaluation range, the most
   * the alarm can take to breach again on an outage that never stopped.
   */
  readonly joinWithinMs: number;
  readonly segments: Segment[];
  readonly incidents: HistoryIncident[];
}
/** The older tiers as last read, by tier index, with when; module scope in the handler. */
export type TierCache = Map<number, { readonly atMs: number; readonly key: string; readonly reads: readonly TierRead[] }>;

export interface GatherDeps {
  readonly cloudwatch: CloudWatchClient;
  readonly now: number;
  /** @default - no reuse */
  readonly cache?: TierCache;
}

export async function gatherHistories(payload: StatusPayload, deps: GatherDeps): Promise<{ histories: TargetHistory[]; cost: MetricCost }> {
  const cost: MetricCost = { requests: 0, metrics: 0, datapoints: 0 };
  const key = JSON.stringify(payload.targets);
  const tiers: TierRead[][] = [];
  for (const [index, tier] of TIERS.entries()) {
    if (tier.toDays >= payload.days) continue;
    const cached = index > 0 ? deps.cache?.get(index) : undefined;
    if (cached && cached.key === key && deps.now - cached.atMs < OLD_TIER_TTL_MS) {
      tiers.push([...cached.reads]);
      continue;
    }
    const reads = await readTier(payload, deps, Math.min(tier.fromDays, payload.days), tier.toDays, cost);
    if (index > 0) deps.cache?.set(index, { atMs: deps.now, key, reads });
    tiers.push(reads);
  }
  const histories = payload.targets.map((t) =>
    joined(
      t.metric,
      tiers.flatMap((reads) => reads.filter((r) => r.target === t.metric)),
    ),
  );
  return { histories, cost };
}

/**
 * One target's reads, newest first, as one history: each older read cut where the newer one starts. Each
 * read replays the rule on its own points, so an outage across a cut is seen twice: as an incident open at
 * the older read's end (or past the cut) and as one the newer read opens at its start (give or take its
 * first undetermined points). Those two are one outage, joined here: one outage, one incident.
 */
export function joined(metric: string, newestFirst: readonly TierRead[]): TargetHistory {
  const segments: Segment[] = [];
  const incidents: HistoryIncident[] = [];
  let cut = Number.POSITIVE_INFINITY;
  let newerJoinWithinMs = 0;
  for (const r of newestFirst) {
    for (const s of r.segments) if (s.start < cut) segments.push({ ...s, end: Math.min(s.end, cut) });
    for (const i of r.incidents) {
      if (i.start >= cut) continue;
      const reachesCut = i.end === null || i.end >= cut;
      const goesOn = reachesCut
        ? incidents.findIndex((n) => n.kind === i.kind && n.start >= cut && n.start <= cut + newerJoinWithinMs)
        : -1;
      const older = goesOn < 0 ? undefined : incidents[goesOn];
      if (older) {
        const failureClass = older.failureClass ?? i.failureClass;
        incidents[goesOn] = {
          ...older,
          start: i.start,
          ...(i.pagedAt === undefined ? {} : { pagedAt: i.pagedAt }),
          failedRegions: most(older.failedRegions, i.failedRegions),
          unhealthyRegions: most(older.unhealthyRegions, i.unhealthyRegions),
          ...(failureClass ? { failureClass } : {}),
        };
      } else incidents.push(reachesCut && Number.isFinite(cut) ? { ...i, end: cut } : i);
    }
    cut = Math.min(cut, r.startMs);
    newerJoinWithinMs = r.joinWithinMs;
  }
  return { metric, segments: segments.sort((a, b) => a.start - b.start), incidents: incidents.sort((a, b) => a.start - b.start) };
}

/** The most of two counts; unknown when either part's is (a coarse tier's): a count is said only when it is known. */
function most(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : Math.max(a, b);
}

async function readTier(payload: StatusPayload, deps: GatherDeps, fromDays: number, toDays: number, cost: MetricCost): Promise<TierRead[]> {
  const plans = payload.targets.map((t) => {
    const resolution = resolutionFor(fromDays, t.periodSeconds);
    const p = resolution.periodSeconds * 1000;
    // Counted back from the last whole period, as functions/io/history/read.ts counts `report --days N`: the
    // page's last N days start on the same period as the report's (test/integration/lambdas/status/agreement.test.ts).
    const base = Math.floor(deps.now / p) * p;
    const endMs = Math.floor((base - toDays * DAY_MS) / p) * p;
    const startMs = Math.ceil((base - fromDays * DAY_MS) / p) * p;
    return { target: t, resolution, startMs, endMs };
  });
  const reads: TierRead[] = [];
  for (let first = 0; first < plans.length; first += TARGETS_PER_READ) {
    const batch = plans.slice(first, first + TARGETS_PER_READ);
    const samples = await readVerdicts(
      deps.cloudwatch,
      payload.namespace,
      batch.map((x) => ({ target: x.target.metric, periodSeconds: x.resolution.periodSeconds, startMs: x.startMs, endMs: x.endMs })),
      cost,
    );
    for (const x of batch)
      reads.push(tierRead(x.target, payload.failureThreshold, x.resolution, x.startMs, samples.get(x.target.metric) ?? [], toDays === 0));
  }
  return reads;
}

export function tierRead(
  t: PayloadTarget,
  runsInARow: number,
  resolution: Resolution,
  startMs: number,
  raw: ReadonlyArray<PeriodSample | undefined>,
  recent: boolean,
): TierRead {
  const samples = raw.map((s) => (s ? perRun(s, resolution) : undefined));
  const rule = ruleAt({ regions: t.regions, quorum: t.quorum, runsInARow, periodSeconds: t.periodSeconds }, resolution);
  // No maintenance passed: the page shows what happened during a window and leaves it out of uptime itself.
  const timeline = buildTimeline({ rule, startMs, samples });
  const period = resolution.periodSeconds * 1000;
  /** The most regions failing, and not healthy, at once in [from, to), from the raw points; null at a coarse tier. */
  const counted = (from: number, to: number) => {
    const c = mostAtOnce(raw, { startMs, resolution, regions: t.regions }, from, to);
    return { failedRegions: c?.failed ?? null, unhealthyRegions: c?.notHealthy ?? null };
  };
  const segments = timeline.intervals.flatMap((iv): Segment[] =>
    iv.state === 'up' || iv.state === 'down' || iv.state === 'degraded' ? [{ start: iv.startMs, end: iv.endMs, state: iv.state }] : [],
  );
  // Only the recent tier reaches now: what is still open at an older tier's end goes on in the next tier.
  const endOf = (end: number | null) => (end !== null && end < timeline.endMs ? end : recent ? null : timeline.endMs);
  const outages = timeline.incidents.map((i): HistoryIncident => ({
    kind: 'outage',
    start: i.startMs,
    end: endOf(i.endMs),
    ...counted(i.startMs, i.endMs ?? timeline.endMs),
    regions: t.regions,
    pagedAt: i.pagedAtMs,
    ...(i.failureClass ? { failureClass: i.failureClass } : {}),
  }));
  // Degraded stretches (the ticket rule open, no page) are incidents of their own kind on the page. One still
  // open runs to the read's end (timeline.ts keeps the rule open through periods whose runs have not arrived).
  const degraded = timeline.intervals
    .filter((iv) => iv.state === 'degraded')
    .map((iv): HistoryIncident => ({
      kind: 'degraded',
      start: iv.startMs,
      end: endOf(iv.endMs),
      ...counted(iv.startMs, iv.endMs),
      regions: t.regions,
    }));
  const joinWithinMs = (rule.runsInARow + EVALUATION_RANGE_EXTRA) * period;
  return { target: t.metric, startMs, joinWithinMs, segments, incidents: [...outages, ...degraded] };
}
