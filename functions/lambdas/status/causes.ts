/**
 * Each outage's failure class, so the page can say its cause in plain words (words.ts). The `Verdict`
 * metric does not carry it; the run records the probe regions logged do: functions/io/history's
 * `failureClassOf` reads them (FilterLogEvents over the runs that paged, one call per region), as
 * `mcp-canary report` does, so the page and the report name the same class.
 *
 * Bounded and cached: a class never changes once its paging runs are logged, so a warm function keeps it
 * (`CauseCache`, module scope in the handler) and a page every 5 minutes re-reads no old incident; each
 * run looks up at most `MAX_LOG_CALLS_PER_RUN` (newest incidents first), so a cold start over 90 days of
 * incidents fills in over a few runs instead of one burst of calls. A lookup that found nothing (a log
 * not yet delivered, throttled, or expired) is tried again after `RETRY_UNKNOWN_MS`.
 */
import type { StatusPayload } from '../../base/config/schema/status-page.ts';
import { failureClassOf, runLogGroupName, type RunLogSource } from '../../io/history/run-log.ts';
import { causeWords } from './words.ts';
import type { HistoryIncident, TargetHistory } from './snapshot.ts';

/** FilterLogEvents calls per run at most (two incidents of a 3-region target); a target probed from more regions still gets one. */
export const MAX_LOG_CALLS_PER_RUN = 6;
/** An incident whose class was not found is looked up again after this long. */
export const RETRY_UNKNOWN_MS = 3_600_000;

/** By target and incident start: the class found (null: none), and when it was looked up. */
export type CauseCache = Map<string, { readonly failureClass: string | null; readonly atMs: number }>;

export interface CauseDeps {
  readonly logs: RunLogSource['logs'];
  readonly now: number;
  /** @default - no reuse */
  readonly cache?: CauseCache;
}

const keyOf = (metric: string, i: HistoryIncident) => `${metric}\n${i.start}`;

export async function withCauses(
  payload: StatusPayload,
  histories: readonly TargetHistory[],
  deps: CauseDeps,
  cost: { logCalls: number },
): Promise<TargetHistory[]> {
  const cache: CauseCache = deps.cache ?? new Map();
  const source: RunLogSource = { logs: deps.logs, logGroupName: runLogGroupName(payload.fleet) };
  const regionsOf = new Map(payload.targets.map((t) => [t.metric, t.probeRegions ?? []]));
  const outages = histories
    .flatMap((h) => h.incidents.filter((i) => i.kind === 'outage' && !i.failureClass).map((i) => ({ metric: h.metric, i })))
    .sort((a, b) => b.i.start - a.i.start);
  const live = new Set(outages.map(({ metric, i }) => keyOf(metric, i)));
  for (const key of cache.keys()) if (!live.has(key)) cache.delete(key);

  let calls = 0;
  for (const { metric, i } of outages) {
    const key = keyOf(metric, i);
    const known = cache.get(key);
    if (known && (known.failureClass !== null || deps.now - known.atMs < RETRY_UNKNOWN_MS)) continue;
    const regions = regionsOf.get(metric) ?? [];
    if (regions.length === 0 || (calls > 0 && calls + regions.length > MAX_LOG_CALLS_PER_RUN)) continue;
    calls += regions.length;
    const toMs = Math.min(i.pagedAt ?? i.end ?? deps.now, i.end ?? deps.now, deps.now);
    const found = await failureClassOf(source, { target: metric, regions, fromMs: i.start, toMs: Math.max(toMs, i.start + 1) }, cost);
    cache.set(key, { failureClass: inTaxonomy(found), atMs: deps.now });
  }
  return histories.map((h) => ({
    ...h,
    incidents: h.incidents.map((i) => {
      const failureClass = i.failureClass ?? cache.get(keyOf(h.metric, i))?.failureClass;
      return failureClass ? { ...i, failureClass } : i;
    }),
  }));
}

/** Only a class of the taxonomy: a run log line is the account's, but the page names nothing it has no words for. */
function inTaxonomy(failureClass: string | null): string | null {
  return failureClass !== null && causeWords(failureClass) !== undefined ? failureClass : null;
}
