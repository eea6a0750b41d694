/**
 * How many regions did what, read back from the `Verdict` metric's decoded point (functions/base/common/
 * run-record.ts `decodeVerdicts`: failed, and worth a ticket but not failed), for the sentences that count regions
 * ("failed for agents from 2 of 3 regions"). Apart from timeline.ts's `pagePoint`/`ticketPoint`, which decide
 * the rules: this only counts, and only where a count is exact.
 *
 * Exact only at a target's own run period (one run per region per point): the whole part of Sum is the
 * regions that failed, the fraction the ones worth a ticket (ten regions' weights stay below 1). A coarser
 * point sums several runs per region (and an hour of ticket weights can pass 1), so how many regions failed
 * *at once* is not in it: null, and the sentence names no number rather than a wrong one.
 */
import type { Resolution } from './resolution.ts';
import type { PeriodSample } from './timeline.ts';

export interface RegionCounts {
  /** Regions whose run failed. */
  readonly failed: number;
  /** Regions whose run was not healthy: failed, or worth a ticket (degraded, inconclusive, or a warning). */
  readonly notHealthy: number;
}

const NONE: RegionCounts = { failed: 0, notHealthy: 0 };

/** One exact period's counts, at most `regions` each (a run delivered twice is stored twice). */
export function regionCounts(raw: PeriodSample | undefined, regions: number): RegionCounts {
  if (!raw || raw.reports <= 0) return NONE;
  const failed = Math.floor(raw.failing + 1e-9);
  const ticketed = raw.ticketed ?? 0;
  return { failed: Math.min(regions, failed), notHealthy: Math.min(regions, failed + ticketed) };
}

/**
 * The most regions at once over the points [from, to) of a read (raw: not averaged), each count on its own;
 * null when the read is coarser than one run per point.
 */
export function mostAtOnce(
  raw: ReadonlyArray<PeriodSample | undefined>,
  read: { readonly startMs: number; readonly resolution: Resolution; readonly regions: number },
  fromMs: number,
  toMs: number,
): RegionCounts | null {
  if (read.resolution.runsPerPeriod !== 1) return null;
  const p = read.resolution.periodSeconds * 1000;
  let failed = 0;
  let notHealthy = 0;
  for (let i = Math.max(0, Math.floor((fromMs - read.startMs) / p)); i < raw.length && read.startMs + i * p < toMs; i++) {
    const c = regionCounts(raw[i], read.regions);
    failed = Math.max(failed, c.failed);
    notHealthy = Math.max(notHealthy, c.notHealthy);
  }
  return { failed, notHealthy };
}
