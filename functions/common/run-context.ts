/**
 * What every step of one run shares, built once by the orchestrator (functions/judge/context.ts) and
 * passed unchanged to the attempts, the token step and the posture checks: the way to the network
 * (the fetch and its middleware), the clocks and the budget. One name for time left: `remainingMs()`.
 */

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch middleware in the SDK's own shape (`(next) => fetch`). */
export type FetchMiddleware = (next: FetchLike) => FetchLike;

export interface RunContext {
  /**
   * The fetch requests go out through: one injected (tests: a custom CA), or undefined for Node's own,
   * which functions/net/ then gives a connection pool of each attempt's own.
   */
  readonly fetch: FetchLike | undefined;
  /** Wraps every MCP and posture request of the run: trace context and User-Agent. */
  readonly middleware: FetchMiddleware;
  /** The run's W3C trace id, in every request's `traceparent` and in the verdict. */
  readonly traceId: string;
  /** Monotonic ms: durations and the deadline. */
  readonly now: () => number;
  /** Wall-clock ms: token, secret and certificate expiry. */
  readonly wallNow: () => number;
  /** Aborts when the run's budget is spent. */
  readonly signal: AbortSignal;
  /** When the budget ends, on `now`. */
  readonly deadline: number;
  /** What is left of the budget, ms (0 once spent). */
  remainingMs(): number;
  /** Waits `ms`, or until the budget is spent, whichever comes first. */
  sleep(ms: number): Promise<void>;
}
