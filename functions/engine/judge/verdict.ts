/**
 * The run's Verdict from its last attempt: slowness and a failure that a retry recovered are `degraded`.
 * Slowness is judged on the run's own reported duration (token step included), so a verdict never
 * shows a duration over `degradedMs` and calls itself healthy.
 */
import type { ProbeResult, Verdict } from '../../base/common/verdict.ts';
import { Outcome } from '../../base/common/verdict.ts';
import type { Target } from '../../base/config/schema/target.ts';
import type { Attempt } from '../probe/attempt.ts';

/** The attempts of a run: the last, how many retries it took, and the first failure when a retry followed it. */
export interface Attempts {
  readonly last: Attempt;
  readonly retries: number;
  readonly firstFailure: Attempt | undefined;
}

export function verdictOf(target: Target, run: Attempts, durationMs: number, traceId: string): Verdict {
  const { last: a, retries, firstFailure } = run;
  const { failure } = a;
  const ms = Math.round(durationMs);
  let { outcome, detail } = a;
  if (outcome === Outcome.healthy && firstFailure) {
    outcome = Outcome.degraded;
    detail = `healthy after ${retries} retr${retries === 1 ? 'y' : 'ies'}; the first attempt failed: ${firstFailure.detail}`;
  }
  if (outcome === Outcome.healthy && ms > target.degradedMs) {
    outcome = Outcome.degraded;
    detail = `slow: the run took ${ms} ms (degraded above ${target.degradedMs} ms)`;
  }
  return {
    target: target.name,
    outcome,
    failure,
    detail,
    revision: a.revision,
    server: a.server,
    durationMs: ms,
    retries,
    probes: a.probes.map((p: ProbeResult) => ({ ...p, durationMs: Math.round(p.durationMs) })),
    warnings: [],
    traceId,
    ...(a.checked ? { checked: a.checked } : {}),
  };
}
