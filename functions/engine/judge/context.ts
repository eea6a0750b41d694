/**
 * The run context, built once per run from the target and the judge's dependencies, and passed
 * unchanged to every attempt, the token step and the posture checks: Node's fetch (or a test's) with
 * the trace-context middleware, the clocks, and the budget — a timer that aborts the run's signal when
 * `target.budgetMs` is spent.
 */
import { CanaryError, CanaryErrorCode } from '../../base/common/errors.ts';
import type { FetchLike, FetchMiddleware, Reach, RunContext } from '../../base/common/run-context.ts';
import { newTraceId } from '../../base/common/trace.ts';
import type { Target } from '../../base/config/schema/target.ts';
import { withTraceContext } from '../../base/net/trace-context.ts';

export interface ContextDeps {
  /** @default - Node's fetch, on a connection pool of each attempt's own */
  readonly fetch?: FetchLike | undefined;
  /** The target's client certificate, private CAs and proxy, as read (functions/io/secrets/). @default - none */
  readonly reach?: Reach | undefined;
  /** Monotonic ms. @default - performance.now */
  readonly now?: (() => number) | undefined;
  /** Wall-clock ms (token and certificate expiry). @default - Date.now */
  readonly wallNow?: (() => number) | undefined;
  /** Waits between attempts. @default - a timer, cut short when the budget is spent */
  readonly sleep?: ((ms: number, signal: AbortSignal) => Promise<void>) | undefined;
  /** Sees every request as sent, `traceparent` included (functions/io/telemetry's request log). @default - none */
  readonly observe?: FetchMiddleware | undefined;
}

/** A run's context, and `end()`, which clears its budget timer once the verdict is made. */
export function startRun(target: Target, deps: ContextDeps): { readonly ctx: RunContext; end(): void } {
  const now = deps.now ?? (() => performance.now());
  const deadline = now() + target.budgetMs;
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(new CanaryError(CanaryErrorCode.budgetSpent, "the run's budget ran out")), target.budgetMs);
  // One trace per run, made first: every request of every attempt carries it in `traceparent`.
  const traceId = newTraceId();
  const sleep = deps.sleep ?? abortableSleep;
  const traceContext = withTraceContext({ traceId });
  const ctx: RunContext = {
    fetch: deps.fetch,
    reach: deps.reach,
    // The observer sits inside the trace context, so it sees each request's own traceparent.
    middleware: deps.observe ? (next) => traceContext(deps.observe!(next)) : traceContext,
    traceId,
    now,
    wallNow: deps.wallNow ?? Date.now,
    signal: budget.signal,
    deadline,
    remainingMs: () => Math.max(0, deadline - now()),
    sleep: (ms) => sleep(ms, budget.signal),
  };
  return { ctx, end: () => clearTimeout(timer) };
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
