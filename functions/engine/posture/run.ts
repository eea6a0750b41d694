/**
 * Posture for one run: when the target opts in, the run reached the server (its era is known) and the
 * hour since the last posture run of this target in this process is up, runs the selected checks
 * concurrently inside what is left of the run's budget. Results go into the verdict (`posture`, and
 * so the run record); each failed check is also a `posture` warning (ticket tier). The outcome is
 * never touched.
 */
import type { RunContext } from '../../base/common/run-context.ts';
import { WarningKind, type PostureResult, type Revision, type Warning } from '../../base/common/verdict.ts';
import type { Target } from '../../base/config/schema/target.ts';
import { Connections } from '../../base/net/connections.ts';
import { runCheck } from './checks.ts';
import { processCadence, type PostureCadence } from './cadence.ts';
import { selectedChecks } from '../../base/config/schema/posture.ts';

/**
 * The results, or null when posture did not run this time (not opted in, not due, no era, no budget).
 * `cadence`: when checks are due (@default - the warm process's hourly cadence).
 */
export async function runPosture(
  target: Target,
  revision: Revision | null,
  ctx: RunContext,
  cadence: PostureCadence = processCadence,
): Promise<PostureResult[] | null> {
  const checks = selectedChecks(target.posture);
  if (checks.length === 0 || revision === null) return null;
  const key = `${target.name} ${target.url}`;
  const remainingMs = ctx.remainingMs();
  // A check needs a whole request; the slot stays unclaimed so the next run with time tries again.
  if (!cadence.due(key) || remainingMs < Math.min(target.timeoutMs, 1_000)) return null;
  cadence.claim(key);
  const timeoutMs = Math.min(target.timeoutMs, remainingMs);
  // A pool of their own, closed with every socket when the checks end: nothing outlives the verdict.
  // Every check's request carries the run's trace context, as the run's own requests do.
  const connections = new Connections(timeoutMs, ctx.fetch, ctx.reach);
  const checkCtx = {
    url: target.url,
    headers: target.headers,
    revision,
    fetch: connections.fetch(ctx.middleware),
    timeoutMs,
    budget: ctx.signal,
    wallNow: () => cadence.wallNow(),
    delegated: target.auth?.authorizationCode !== undefined,
  };
  try {
    return await Promise.all(checks.map((c) => runCheck(c, checkCtx)));
  } finally {
    await connections.close();
  }
}

export function postureWarnings(results: readonly PostureResult[] | null): Warning[] {
  return (results ?? [])
    .filter((r) => r.status === 'fail')
    .map((r) => ({ kind: WarningKind.posture, detail: `posture ${r.check}: ${r.detail}` }));
}
