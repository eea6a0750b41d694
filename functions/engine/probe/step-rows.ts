/**
 * Pure: what a failed step showed → its fault, as rows asked in order, the first that recognizes the
 * failure deciding. The request rows (classify.ts) class one request; these rows know the step around
 * it — the era the session spoke, the step's earlier rounds, the streams the SDK tried to resume, the
 * server's own requests — and take precedence, then decorate what the request rows say.
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import { oneLine } from '../../base/common/redact.ts';
import type { Fault } from '../../base/common/step.ts';
import { FailureClass, Revision } from '../../base/common/verdict.ts';
import type { Exchange } from '../../base/net/wire.ts';
import { classifyRequest, firstRow, requestFailure, type RequestFailure, type Rows } from './classify.ts';
import { classifyRounds, roundsSoFar } from './rounds.ts';
import { LEGACY_WORDS } from './rpc-error.ts';

/** A failed step, normalized: the request's failure, and what the attempt knows around it. */
export interface StepFailure extends RequestFailure {
  /** The era the session spoke, and its revision as negotiated. */
  readonly era: Revision;
  readonly revision: string;
  /** Every exchange of the attempt so far, in order. */
  readonly exchanges: readonly Exchange[];
  /** This step's own exchanges (its request and its rounds), in order. */
  readonly calls: readonly Exchange[];
  /** The attempt's `server/discover` exchange, when there was one. */
  readonly discover: Exchange | undefined;
  /** Whether the run's budget is spent. */
  readonly budgetSpent: boolean;
}

export type StepRow = (f: StepFailure) => Fault | null;

export function stepFailure(
  what: string,
  error: unknown,
  exchanges: readonly Exchange[],
  rpcMethod: string,
  session: { readonly era: Revision; readonly revision: string },
  budgetSpent: boolean,
): StepFailure {
  const calls = exchanges.filter((x) => x.rpcMethod === rpcMethod);
  return {
    ...requestFailure(what, error, calls.at(-1)),
    era: session.era,
    revision: session.revision,
    exchanges,
    calls,
    discover: exchanges.findLast((x) => x.rpcMethod === 'server/discover'),
    budgetSpent,
  };
}

/**
 * Discover said 2026-07-28, and a later call was answered the way a 2025 server answers a client that
 * never initialized (HTTP 400 with "Server not initialized", "no valid session ID"): two
 * eras behind one endpoint — a fleet mid-rollout behind one load balancer. `revision`, with both
 * answers. The server's own words are evidence here: a 2025 server has no code of its own for it.
 */
export const eraFlipRow: StepRow = ({ what, exchange: x, era, revision, discover }) => {
  if (era !== Revision.modern || !x || x.status !== 400) return null;
  const words = x.rpcError?.message ?? x.serverWords ?? '';
  // The words, not the code: -32000 is the first code every server may use for its own errors (a tool
  // whose upstream is down answers `400 -32000 "upstream down"`), and only the 2025 SDKs' words name a session.
  if (!LEGACY_WORDS.test(words)) return null;
  const offered = discover?.supportedVersions?.length ? discover.supportedVersions.join(', ') : revision;
  return {
    failure: FailureClass.revision,
    retryable: false,
    detail: `${what}: the server answered like an uninitialized 2025 server (HTTP ${x.status}: ${JSON.stringify(oneLine(words, 160))}) though its discover offered ${offered} — two protocol eras behind one endpoint (a rollout in progress?)`,
  };
};

/** 2026-07-28 multi-round-trip results, by `SdkErrorCode` (rounds.ts). */
export const roundsRow: StepRow = ({ what, error, calls, budgetSpent }) => classifyRounds(what, error, calls, budgetSpent);

/**
 * SEP-1699: the server closed the answer's stream after an event id and the resumptions (GET with
 * Last-Event-ID) never brought the answer: say so, with what the last GET got, rather than only "timeout".
 */
export const unresumedRow: StepRow = (f) => {
  const x = f.exchange;
  if (!x?.resumeFrom) return null;
  const c = classifyRequest(f);
  if (c.failure !== FailureClass.timeout) return null;
  const gets = f.exchanges.slice(f.exchanges.indexOf(x) + 1).filter((g) => g.httpMethod === 'GET');
  const last = gets.at(-1);
  const got = last ? (last.error ? last.error.code : `HTTP ${last.status}`) : 'none was started within the budget';
  return {
    ...c,
    detail: `${f.what}: the server closed the answer's stream after event ${JSON.stringify(oneLine(x.resumeFrom, 40))}; ${gets.length} resumption(s) with Last-Event-ID brought no answer (last: ${oneLine(got, 80)})`,
  };
};

/** A timeout: the request rows' words, with the rounds it had got through and what the server was waiting for. */
export const timeoutRow: StepRow = (f) => {
  const c = classifyRequest(f);
  return c.failure === FailureClass.timeout ? { ...c, detail: `${c.detail}${roundsSoFar(f.calls)}${pendingRequests(f.exchange)}` } : null;
};

/**
 * The SDK's own ProtocolError on tools/call — no JSON-RPC error, no failed status, no wire error: it
 * checks structuredContent against the listed outputSchema, and that is an answer check. Before the
 * call went out (no tools/call on the wire), the schema itself could not be compiled.
 */
function sdkAnswerCheck(f: StepFailure): boolean {
  const x = f.exchange;
  if (f.what !== 'tools/call' || !(f.error instanceof ProtocolError) || x?.rpcError || x?.error || f.status !== undefined) return false;
  return classifyRequest(f).failure === FailureClass.protocol;
}

export const outputSchemaUnusableRow: StepRow = (f) =>
  sdkAnswerCheck(f) && f.calls.length === 0
    ? {
        failure: FailureClass.assertion,
        detail: `tools/call: the tool's outputSchema cannot be used to check its answer (${oneLine(errorWords(f.error), 200)}); a network $ref is never fetched (SEP-2106)`,
        retryable: false,
      }
    : null;

export const structuredContentRow: StepRow = (f) =>
  sdkAnswerCheck(f) && f.calls.length > 0
    ? {
        failure: FailureClass.assertion,
        detail: `tools/call: structuredContent does not match the tool's outputSchema (${oneLine(errorWords(f.error), 160)})`,
        retryable: false,
      }
    : null;

/** Whatever else: the request rows' words, and what the server was waiting for. Always recognizes. */
export const requestRow: StepRow = (f) => {
  const c = classifyRequest(f);
  return { ...c, detail: `${c.detail}${pendingRequests(f.exchange)}` };
};

export const STEP_ROWS: Rows<StepFailure> = [
  ['era flip', eraFlipRow],
  ['multi-round-trip results', roundsRow],
  ['stream never resumed', unresumedRow],
  ['timeout', timeoutRow],
  ['outputSchema unusable', outputSchemaUnusableRow],
  ['structuredContent mismatch', structuredContentRow],
  ['request', requestRow],
];

export function classifyStep(f: StepFailure): Fault {
  return firstRow(STEP_ROWS, f);
}

/**
 * What the server was waiting for: on 2025-11-25 a tool asks the client for input with a request on the
 * call's own stream (`elicitation/create`); the canary declares no capabilities, so its client refuses,
 * and a server that waits on regardless answers nothing until the timeout.
 */
function pendingRequests(x: Exchange | undefined): string {
  const asked = [...new Set((x?.serverRequests ?? []).filter((m) => m !== 'ping'))];
  if (asked.length === 0) return '';
  return ` — the server had asked the client for ${asked.join(', ')} on this call's stream, which the canary refused (it declares no client capabilities; a canary tool must answer unattended)`;
}

/** The thrower's own words, quoted in a detail (never read to decide). */
function errorWords(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
