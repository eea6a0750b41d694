/**
 * Posture for one run: when the target opts in, the run reached the server (its era is known) and the
 * hour since the last posture run of this target in this process is up, runs the selected checks
 * concurrently inside what is left of the run's budget. Results go into the verdict (`posture`, and
 * so the run record); each failed check is also a `posture` warning (ticket tier). The outcome is
 * never touched.
 */
import type { Target } from '../config/target.ts';
import { Connections, type FetchLike } from '../net/wire.ts';
import { WarningKind, type PostureResult, type Revision, type Warning } from '../common/verdict.ts';
import { runCheck } from './checks.ts';
import { processCadence, type PostureCadence } from './cadence.ts';
import { selectedChecks } from '../config/posture.ts';

export interface PostureDeps {
  /** @default - the global fetch */
  readonly fetch?: FetchLike | undefined;
  /** Wraps every posture request (trace context, User-Agent), as the run's own requests are. */
  readonly middleware?: ((next: FetchLike) => FetchLike) | undefined;
  readonly budget: AbortSignal;
  /** What is left of the run's budget, ms. */
  readonly remainingMs: number;
  /** @default - the warm process's hourly cadence */
  readonly cadence?: PostureCadence | undefined;
}

/** The results, or null when posture did not run this time (not opted in, not due, no era, no budget). */
export async function runPosture(target: Target, revision: Revision | null, deps: PostureDeps): Promise<PostureResult[] | null> {
  const checks = selectedChecks(target.posture);
  if (checks.length === 0 || revision === null) return null;
  const cadence = deps.cadence ?? processCadence;
  const key = `${target.name} ${target.url}`;
  // A check needs a whole request; the slot stays unclaimed so the next run with time tries again.
  if (!cadence.due(key) || deps.remainingMs < Math.min(target.timeoutMs, 1_000)) return null;
  cadence.claim(key);
  const timeoutMs = Math.min(target.timeoutMs, deps.remainingMs);
  const base: FetchLike = deps.fetch ?? ((u, i) => fetch(u, i));
  const wrapped = deps.middleware ? deps.middleware(base) : base;
  // A pool of their own, closed with every socket when the checks end: nothing outlives the verdict.
  const connections = new Connections(timeoutMs, deps.fetch);
  const ctx = {
    url: target.url,
    headers: target.headers,
    revision,
    fetch: ((u, i) => connections.send(wrapped, u, i ?? {})) as FetchLike,
    timeoutMs,
    budget: deps.budget,
    wallNow: () => cadence.wallNow(),
  };
  try {
    return await Promise.all(checks.map((c) => runCheck(c, ctx)));
  } finally {
    await connections.close();
  }
}

export function postureWarnings(results: readonly PostureResult[] | null): Warning[] {
  return (results ?? [])
    .filter((r) => r.status === 'fail')
    .map((r) => ({ kind: WarningKind.posture, detail: `posture ${r.check}: ${r.detail}` }));
}
