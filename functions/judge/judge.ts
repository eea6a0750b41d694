/**
 * Judges one target the way an agent uses it: health → discover or initialize → tools/list →
 * tools/call, and ends in one Verdict. A failing endpoint is a Verdict, never a throw.
 * No AWS here; fetch and clock are injected.
 */
import { afterAttempt, authFailedVerdict, beforeAttempt, type AuthJudgeDeps } from './token.ts';
import { headerValueProblem, type Target } from '../config/target.ts';
import { redactConsoleWhile, Redactor, secretsOf } from '../common/redact.ts';
import { newTraceId } from '../common/trace.ts';
import { canaryVerdict, Outcome, type ProbeResult, type Verdict } from '../common/verdict.ts';
import { runAttempt, type Attempt } from '../probe/attempt.ts';
import { runExtras, withExtras } from './warnings.ts';
import type { PostureCadence } from '../posture/cadence.ts';
import { withTraceContext } from '../net/trace-context.ts';
import type { FetchLike } from '../net/wire.ts';

export interface JudgeDeps extends AuthJudgeDeps {
  readonly fetch?: FetchLike;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** When posture checks are due. @default - hourly per target in this process */
  readonly postureCadence?: PostureCadence;
}

/** In-run retry delays: 500 ms, doubling, capped. */
export const RETRY_BASE_DELAY_MS = 500;
export const RETRY_MAX_DELAY_MS = 4_000;

export async function judge(target: Target, deps: JudgeDeps = {}): Promise<Verdict> {
  const now = deps.now ?? (() => performance.now());
  const sleep = deps.sleep ?? abortableSleep;
  const started = now();
  const own = configProblem(target);
  if (own) return new Redactor(secretsOf(target)).value(canaryVerdict(target.name, Outcome.inconclusive, null, own, 0, newTraceId()));
  const budget = new AbortController();
  const budgetTimer = setTimeout(() => budget.abort(new Error('run budget spent')), target.budgetMs);
  // One trace per run, made first: every request of every attempt carries it in `traceparent`.
  const traceId = newTraceId();
  const middleware = withTraceContext({ traceId });
  try {
    const deadline = started + target.budgetMs;
    // The OAuth token (the `auth` probe, inside the budget) and expiry warnings: functions/judge/token.ts.
    const prepared = await beforeAttempt(target, deps, { fetch: deps.fetch, now, budget: budget.signal });
    // Every value the canary was given (headers, the URL's query values, path keys and userinfo, the
    // OAuth material) is in the Redactor every output of this run passes through.
    const redactor = new Redactor(secretsOf({ ...target, extra: prepared.secretValues }));
    // What libraries print while this run is judged (the SDK quotes server-supplied tool names) is
    // redacted too: in the scheduled run it would reach the logs.
    return await redactConsoleWhile(redactor, async () => {
      const authFailed = await authFailedVerdict(prepared, target.name, now() - started, traceId);
      if (authFailed) return redactor.value(authFailed);
      target = prepared.target;
      let attempt = await runAttempt(target, { fetch: deps.fetch, now, budget: budget.signal, middleware, deadline });
      const firstFailure = attempt;
      let retries = 0;
      while (attempt.outcome === Outcome.failed && attempt.retryable && retries < target.retries) {
        const delay = Math.min(RETRY_BASE_DELAY_MS * 2 ** retries, RETRY_MAX_DELAY_MS);
        // Only retry when a whole attempt still fits the budget; otherwise the first verdict stands.
        if (target.budgetMs - (now() - started) < delay + target.timeoutMs) break;
        await sleep(delay, budget.signal);
        retries++;
        attempt = await runAttempt(target, { fetch: deps.fetch, now, budget: budget.signal, middleware, deadline });
      }
      // Expiry warnings, and an auth failure named as the MCP server refusing the token it was given.
      const verdict = await afterAttempt(
        prepared,
        finish(target, attempt, retries, retries > 0 ? firstFailure : undefined, now() - started, traceId),
      );
      // Catalog drift and posture: warnings only, after the verdict's timing so they never make it slow.
      const extras = await runExtras(target, attempt, {
        fetch: deps.fetch,
        middleware,
        budget: budget.signal,
        remainingMs: target.budgetMs - (now() - started),
        postureCadence: deps.postureCadence,
      });
      return redactor.value(withExtras(verdict, extras));
    });
  } finally {
    clearTimeout(budgetTimer);
  }
}

/** Turns the last attempt into the run's Verdict: slowness and recovered retries are `degraded`. */
function finish(
  target: Target,
  a: Attempt,
  retries: number,
  firstFailure: Attempt | undefined,
  durationMs: number,
  traceId: string,
): Verdict {
  const { failure } = a;
  let { outcome, detail } = a;
  if (outcome === Outcome.healthy && firstFailure) {
    outcome = Outcome.degraded;
    detail = `healthy after ${retries} retr${retries === 1 ? 'y' : 'ies'}; the first attempt failed: ${firstFailure.detail}`;
  }
  if (outcome === Outcome.healthy && a.durationMs > target.degradedMs) {
    outcome = Outcome.degraded;
    detail = `slow: the run took ${Math.round(a.durationMs)} ms (degraded above ${target.degradedMs} ms)`;
  }
  return {
    target: target.name,
    outcome,
    failure,
    detail,
    revision: a.revision,
    server: a.server,
    durationMs: Math.round(durationMs),
    retries,
    probes: a.probes.map((p: ProbeResult) => ({ ...p, durationMs: Math.round(p.durationMs) })),
    warnings: [],
    traceId,
    ...(a.checked ? { checked: a.checked } : {}),
  };
}

/**
 * A header value fetch cannot send (a character above U+00FF, a line break) is the canary's own config
 * mistake — a secret read at run time can carry one too — never the endpoint's failure: inconclusive.
 */
function configProblem(target: Target): string | null {
  for (const [name, value] of Object.entries(target.headers)) {
    const problem = headerValueProblem(value);
    if (problem) return `headers.${name}: the value ${problem}. This is the canary's configuration, not the endpoint`;
  }
  return null;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
