/**
 * The product's shared words. They reach `--json` output, logs, metric values and pages, so they are
 * plain lowercase strings kept in one place: a new failure class is added here and nowhere else.
 */

/** Why a run did not end healthy. One list, used by the CLI, the Lambda result, the metrics and the page. */
export const FailureClass = {
  /** DNS did not resolve, the connection was refused or reset. */
  unreachable: 'unreachable',
  /** The TLS handshake failed: self-signed, expired or mismatched certificate. Never silently accepted. */
  tls: 'tls',
  /** A request got no complete answer within its timeout, or the run ran out of budget. */
  timeout: 'timeout',
  /** An HTTP status that is neither success nor an auth wall (404, 429, 5xx…). */
  httpStatus: 'http_status',
  /**
   * 401 or 403: the credentials the canary sends are missing, expired or not allowed; or tools/list shrank
   * to authentication tools and the canary tool vanished (the server hides its tools until it is
   * authenticated again).
   */
  auth: 'auth',
  /**
   * The answer is not valid MCP / JSON-RPC (wrong content type, broken JSON, wrong id, an answer that cannot
   * carry the response), or the server refused the request itself as it arrived (`-32700`, `-32600`, the
   * 2026-07-28 header mismatch `-32020`): nothing ran. Any other JSON-RPC error is a valid answer, classed
   * by its meaning and step.
   */
  protocol: 'protocol',
  /** A 2025-11-25 session was forgotten by the server and a fresh one was forgotten too. */
  sessionLost: 'session_lost',
  /**
   * Evidence about revisions only: the revision negotiated, `-32022`, an answer of the other era (to a
   * pinned revision, or two eras behind one endpoint).
   */
  revision: 'revision',
  /**
   * The server answered discover, initialize or tools/list with a JSON-RPC error of its own (`-32603
   * "fetch failed"` from a gateway whose backend is down): the MCP server, or what is behind it, failed;
   * or it refused tools/call itself before the tool ran (`-32601`, `-32602` to arguments its listing
   * allows, the server-defined `-32000…-32099`).
   */
  serverError: 'server_error',
  /** `tools/list` does not name the canary tool. */
  toolMissing: 'tool_missing',
  /**
   * A flow step needs a capability the server does not advertise (`resources`, `prompts`): the step is
   * not sent, since a client never calls what the server does not offer.
   */
  capabilityMissing: 'capability_missing',
  /**
   * The canary tool answered `isError`, or a JSON-RPC error of its own execution (`-32603` or an
   * application-defined code: an expired upstream key shows up here, GitLab's `-32603 "GitLab API error:
   * 401 Unauthorized"`), or asked for input the canary cannot give.
   */
  toolError: 'tool_error',
  /** The tool answered, but not what the target expects (text, JSON path, outputSchema). */
  assertion: 'assertion',
  /** The canary tool is not annotated read-only, so the canary refuses to call it. */
  unsafeTool: 'unsafe_tool',
  /**
   * The canary's own delegated credential (`auth.authorizationCode`) gives no usable access token: the grant
   * was refused (revoked, expired, consent withdrawn) or was never stored. Always `inconclusive`: the fix is
   * `mcp-canary login <url>` again, for the canary owner; the endpoint's owner is never paged for it.
   */
  canaryCredential: 'canary_credential',
  /**
   * A gateway's backend that was not judged: the gateway's own run failed (or could not judge) before the
   * backends were reached. Always `inconclusive`: the gateway's verdict pages once, never each backend.
   */
  gatewayDown: 'gateway_down',
} as const;
export type FailureClass = (typeof FailureClass)[keyof typeof FailureClass];
export const failureClasses: readonly FailureClass[] = Object.values(FailureClass);

/**
 * - `healthy`: every probe passed within the degraded threshold.
 * - `degraded`: the endpoint works for agents, but slowly or only after recovering a lost session.
 * - `failed`: the endpoint does not work for agents; the failure class says how.
 * - `inconclusive`: the canary could not judge (its own config or credentials, or an unsafe tool).
 */
export const Outcome = {
  healthy: 'healthy',
  degraded: 'degraded',
  failed: 'failed',
  inconclusive: 'inconclusive',
} as const;
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

/** The two protocol revisions the canary asks for: one per era. */
export const Revision = { modern: '2026-07-28', legacy: '2025-11-25' } as const;
export type Revision = (typeof Revision)[keyof typeof Revision];

/**
 * Every revision a run can report: the two the canary asks for, and the older ones a 2025-era server
 * may answer `initialize` with (the client accepts them; such a server is healthy, and labelled so).
 */
export const NegotiatedRevisions = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;
export type NegotiatedRevision = (typeof NegotiatedRevisions)[number];

/**
 * The steps of a run, in order. `auth` (obtaining an OAuth token) comes first when the target uses
 * OAuth; `discover` or `initialize` depending on the era that answered.
 */
export type ProbeName =
  | 'auth'
  | 'health'
  | 'discover'
  | 'initialize'
  | 'tools/list'
  | 'tools/call'
  | 'resources/list'
  | 'resources/read'
  | 'prompts/list'
  | 'prompts/get';

/** A flow step's place: 1-based, and its id when it has one. */
export interface StepPlace {
  readonly index: number;
  readonly id?: string;
}

/** A tool call that ran as a task (SEP-2663): which, how it ended, and how long until it did. */
export interface TaskReport {
  readonly taskId: string;
  /** The last status seen: `completed`, `failed`, `cancelled`, `input_required`, or `working` at the deadline. */
  readonly status: string;
  /** `tasks/get` requests sent. */
  readonly polls: number;
  /** From the call to the terminal status, or null when none was reached. */
  readonly terminalMs: number | null;
}

/**
 * What is about to break, or has drifted, while the endpoint still works. A warning never changes the
 * outcome or the exit code; it reaches the ticket tier, never the pager.
 */
export const WarningKind = {
  /** The endpoint's TLS certificate expires within `certWarningDays`. */
  certificateExpiry: 'certificate_expiry',
  /** A credential the canary was given (a JWT bearer, an OAuth client secret or key) expires soon. */
  credentialExpiry: 'credential_expiry',
  /** The live tool catalog differs from the target's recorded `catalog`. */
  catalogDrift: 'catalog_drift',
  /** A security posture check failed. */
  posture: 'posture',
  /**
   * The canary tool's answer, which nothing but `isError` checks, reads like its upstream refused an
   * expired or revoked credential ("401 Unauthorized", "invalid api key", `{"error":{"code":401}}`).
   */
  upstreamCredential: 'upstream_credential',
  /**
   * The server's MCP Server Card (SEP-2127, `/.well-known/mcp/server-card`) contradicts what it answered
   * (name, version, protocol versions, capabilities, static tools), changed since it was last read, or
   * is served but unreadable.
   */
  serverCard: 'server_card',
} as const;
export type WarningKind = (typeof WarningKind)[keyof typeof WarningKind];

export interface Warning {
  readonly kind: WarningKind;
  /** One line: what expires or changed, and when. Secrets are redacted. */
  readonly detail: string;
  /** ISO 8601, for expiry warnings. */
  readonly expiresAt?: string;
}

/** One security posture check (see functions/engine/posture): run at most hourly, so on some runs only. */
export interface PostureResult {
  /** The check's name, e.g. `origin`, `protocol-version`. */
  readonly check: string;
  readonly status: 'pass' | 'fail' | 'skipped';
  /** One line: what was seen, or why the check does not apply. Secrets are redacted. */
  readonly detail: string;
  /** The `hsts` check records the TLS certificate's days left. */
  readonly certificateDaysLeft?: number;
}

export interface ProbeResult {
  readonly name: ProbeName;
  readonly ok: boolean;
  readonly durationMs: number;
  /** One line: what the probe saw. Secrets are redacted. */
  readonly detail: string;
  readonly failure: FailureClass | null;
  /** The flow step this line is, when the target has a flow. */
  readonly step?: StepPlace;
  /** When the tool ran as a task. */
  readonly task?: TaskReport;
}

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

/** What the canary tool's answer was checked against: `isError` always, the rest when the tool or target has it. */
export type AnswerCheck = 'isError' | 'outputSchema' | 'expectText' | 'expectJson';

/** The result of one run against one target. */
export interface Verdict {
  readonly target: string;
  readonly outcome: Outcome;
  /** The failure class; `null` when healthy, or degraded for slowness or a recovered session. */
  readonly failure: FailureClass | null;
  /** One line for a human: what went wrong, or what was seen. */
  readonly detail: string;
  /** The protocol revision the run spoke, exactly as negotiated, or `null` when no era was established. */
  readonly revision: NegotiatedRevision | null;
  readonly server: ServerInfo | null;
  readonly durationMs: number;
  /** In-run retries used (after `unreachable`, `timeout` or a 5xx only; a JSON-RPC error is an answer, not retried). */
  readonly retries: number;
  readonly probes: readonly ProbeResult[];
  /** Always present; empty when there is nothing to warn about. */
  readonly warnings: readonly Warning[];
  /** The W3C trace id of the run (32 lowercase hex), carried in every request's `traceparent`. */
  readonly traceId: string;
  /** Present on the runs that ran the target's posture checks (at most hourly per warm process). */
  readonly posture?: readonly PostureResult[];
  /** Present when the canary tool was called: what its answer was checked against (only `isError`: unchecked). */
  readonly checked?: readonly AnswerCheck[];
  /** Present on a gateway backend's verdict (`target` is `<gateway>/<backend>`): the gateway target's name. */
  readonly gateway?: string;
}

/** A verdict the canary makes itself, when the engine judged nothing (its own config, a crash, a cut run). */
export function canaryVerdict(
  target: string,
  outcome: Outcome,
  failure: FailureClass | null,
  detail: string,
  durationMs: number,
  traceId: string,
): Verdict {
  return { target, outcome, failure, detail, revision: null, server: null, durationMs, retries: 0, probes: [], warnings: [], traceId };
}

/** Ranks outcomes for "the worst of several": failed > inconclusive > degraded > healthy. */
export function worstOutcome(outcomes: readonly Outcome[]): Outcome {
  const rank: Record<Outcome, number> = { healthy: 0, degraded: 1, inconclusive: 2, failed: 3 };
  return outcomes.reduce<Outcome>((worst, o) => (rank[o] > rank[worst] ? o : worst), Outcome.healthy);
}
