/**
 * What every step of one run shares, built once by the orchestrator (functions/engine/judge/context.ts) and
 * passed unchanged to the attempts, the token step and the posture checks: the way to the network
 * (the fetch and its middleware), the clocks and the budget. One name for time left: `remainingMs()`.
 */

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch middleware in the SDK's own shape (`(next) => fetch`). */
export type FetchMiddleware = (next: FetchLike) => FetchLike;

/** A target's TLS material, checked (functions/base/config/load/tls-material.ts): PEM text, held in memory only. */
export interface TlsMaterial {
  /** The client certificate (and its chain) and key the canary presents when the server asks. */
  readonly cert?: string;
  readonly key?: string;
  readonly passphrase?: string;
  /** Private CAs, trusted beside the public roots. */
  readonly ca?: string;
  /** The client certificate's `notAfter` (ms) and subject, for the `credential_expiry` warning. */
  readonly certNotAfter?: number;
  readonly certSubject?: string;
}

/**
 * The forward proxy requests go out through: the environment's (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`,
 * the CLI), or the fleet's (the run function), its `user:password` read from its reference.
 */
export type ProxyReach =
  { readonly fromEnv: true } | { readonly url: string; readonly noProxy: readonly string[]; readonly credentials?: string | undefined };

/** How the endpoint is reached beside plain TLS: client certificate, private CAs, a proxy. */
export interface Reach {
  readonly tls?: TlsMaterial | undefined;
  readonly proxy?: ProxyReach | undefined;
}

export interface RunContext {
  /**
   * The fetch requests go out through: one injected (tests: a custom CA), or undefined for Node's own,
   * which functions/base/net/ then gives a connection pool of each attempt's own.
   */
  readonly fetch: FetchLike | undefined;
  /** Wraps every MCP and posture request of the run: trace context and User-Agent. */
  readonly middleware: FetchMiddleware;
  /** Client certificate, private CAs and proxy of the target's connections. @default - none */
  readonly reach?: Reach | undefined;
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
