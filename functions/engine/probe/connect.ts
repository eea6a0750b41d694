/**
 * The protocol step: establish the era and a connection, the way the target's `revision` says.
 * `auto` asks 2026-07-28 `server/discover` first and falls back to exactly one 2025-11-25
 * `initialize`; a pinned revision never falls back.
 */
import { ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { z } from 'zod';
import type { RevisionSetting } from '../../base/config/schema/target.ts';
import { FailureClass, Revision, type ProbeName } from '../../base/common/verdict.ts';
import { shownName } from '../../base/common/names.ts';
import { oneLine } from '../../base/common/redact.ts';
import { passed, faulted, type Fault, type StepResult } from '../../base/common/step.ts';
import { classifyError, classifyStatus } from './classify.ts';
import { describeRpcError, LEGACY_WORDS, SPOKEN, supportedOf, type RpcError } from './rpc-error.ts';
import { isTransient } from './transient.ts';
import { closeSession, openSession, recoveredDetail, type Session, type SessionOptions } from './session.ts';
import type { Exchange } from '../../base/net/wire.ts';

/** The protocol step's value: a session of the era that answered. */
export interface Connection {
  readonly session: Session;
  /** Set when the handshake's session was forgotten and a fresh one worked. */
  readonly recovered?: string;
}

/**
 * Not era evidence, and a second attempt would only double the wait (or the lockout): these end the
 * run instead of falling back to 2025-11-25.
 */
const ENDS_NEGOTIATION: ReadonlySet<FailureClass> = new Set([
  FailureClass.auth,
  FailureClass.timeout,
  FailureClass.unreachable,
  FailureClass.tls,
]);

/** The protocol step, reported as `discover` or `initialize` by the era that answered (`as`). */
export async function connect(setting: z.output<typeof RevisionSetting>, o: SessionOptions): Promise<StepResult<Connection>> {
  const mode = setting === 'auto' ? 'auto' : setting === Revision.modern ? 'modern' : 'legacy';
  try {
    const s = await openSession(mode, o);
    if (setting === Revision.legacy && s.revision !== Revision.legacy) {
      // Read at connect (the SDK forgets it on close): the revision the server actually chose.
      await closeSession(s, { sendDelete: true });
      return failed('initialize', {
        failure: FailureClass.revision,
        retryable: false,
        detail: `initialize: the server negotiated ${s.revision}, not the pinned 2025-11-25`,
      });
    }
    return passed({ session: s }, describeEra(s, o.wire.last('server/discover'), mode), nameFor(s.era));
  } catch (e) {
    if (o.wire.last('notifications/initialized')?.status === 404) return reconnectAfterForgottenHandshake(o);
    const initSent = o.wire.last('initialize') !== undefined;
    const step: ProbeName = initSent ? 'initialize' : 'discover';
    const first = classifyError(step, e, o.wire.last(initSent ? 'initialize' : 'server/discover'));
    const stepX = o.wire.last(initSent ? 'initialize' : 'server/discover');
    // Pinned 2026-07-28, discover answered a task: the SDK says only "did not offer the pinned revision".
    if (mode !== 'auto' && !initSent && stepX?.resultType && !stepX.error) return failed(step, unknownDiscoverResult(stepX.resultType));
    if (mode !== 'auto') return failed(step, pinnedFailure(setting, first, stepX));
    if (initSent) {
      // The SDK already fell back and sent the one `initialize`: never send a second. If discover had
      // failed rather than said "legacy", that first failure is the verdict, the initialize's context.
      const discoverX = o.wire.last('server/discover');
      const mixed = erasMixed(discoverX, o.wire.last('initialize'), first);
      if (mixed) return failed(step, mixed);
      const discover = discoverFailure(discoverX);
      // A TLS wall answered in HTTP stands whatever the fallback met: the same wall, again.
      if (discover?.failure === FailureClass.tls) return failed('discover', discover);
      return discover ? failed('discover', bothFailed(discover, first)) : failed(step, first);
    }
    // An answer that is not HTTP (a TLS or SSH port, HTTP/2 only) is no era evidence: the fallback would only repeat it.
    const notHttp = o.wire.last('server/discover')?.error?.kind === 'not_http';
    // Nor is a transient answer (429, 503, …): judged as what it is, before any era reasoning.
    const notNow = isTransient(stepX?.status, stepX?.retryAfter);
    if (first.failure === null || ENDS_NEGOTIATION.has(first.failure) || first.failure === FailureClass.revision || notHttp || notNow)
      return failed(step, first);
    try {
      const s = await openSession('legacy', o);
      return passed({ session: s }, `${s.revision} session (discover failed: ${first.detail})`, 'initialize');
    } catch (e2) {
      return failed('discover', bothFailed(first, classifyError('initialize', e2, o.wire.last('initialize'))));
    }
  }
}

/** A server that fails both eras is judged by the first failure; the second is context. */
function bothFailed(first: Fault, second: Fault): Fault {
  // The same answer twice (a redirect, a wall in front of both) is said once.
  const same = first.detail.replace(/^discover: /, '') === second.detail.replace(/^initialize: /, '');
  if (same) return { ...first, detail: `${first.detail}; the 2025-11-25 initialize met the same` };
  return { ...first, detail: `${first.detail}; the 2025-11-25 initialize also failed: ${second.detail}` };
}

/**
 * JSON-RPC codes a 2025 server answers an unknown pre-initialize request with: "not modern", a normal
 * legacy signal rather than a failure. -32000 is the TypeScript SDK's "Server not initialized", and any
 * server's first code of its own (`-32000 "upstream down"`): a signal only with the 2025 SDKs' words.
 */
const LEGACY_CODES: ReadonlySet<number> = new Set([-32600, -32601, -32602]);

function legacySignal(e: RpcError): boolean {
  return LEGACY_CODES.has(e.code) || (e.code === -32000 && LEGACY_WORDS.test(e.message));
}

/** What the discover probe showed, when it was a failure rather than a legacy signal or success. */
export function discoverFailure(x: Exchange | undefined): Fault | null {
  if (!x) return null;
  // The server offered only revisions the canary does not speak: that, not the fallback's answer, is
  // the cause (a server from the future, or one that dropped 2026-07-28).
  const offered = x.supportedVersions ?? (x.rpcError ? supportedOf(x.rpcError) : null);
  if (offered && offered.length > 0 && !offered.includes(Revision.modern)) {
    return {
      failure: FailureClass.revision,
      retryable: false,
      detail: `discover: the server offers only ${offered.map((v) => oneLine(v, 40)).join(', ')}; the canary speaks ${SPOKEN}`,
    };
  }
  // An event stream that stopped making sense or carried the answer under another event name is what
  // discover met, not a 2025 server's answer: named first, the fallback's failure as context.
  if (x.error?.kind === 'wrong_answer' && x.contentType?.startsWith('text/event-stream')) return classifyError('discover', undefined, x);
  if (x.error) return null;
  // A result of a kind discover never answers (`task`, `input_required`): the SDK reads it as "not a
  // 2026-07-28 server" and falls back, but the server said something first, and on-call needs it.
  if (x.resultType) return unknownDiscoverResult(x.resultType);
  // nginx's client-certificate wall (classify.ts) is a 400 like a 2025 server's, but no era evidence.
  const wall = x.status === 400 ? classifyStatus('discover', 400, x) : null;
  if (wall?.failure === FailureClass.tls) return wall;
  // A 5xx, a redirect or a transient 4xx (429, 408, 425, any with Retry-After) is a failure, not the "I am a 2025 server" a 4xx is.
  if (x.status !== null && (x.status >= 500 || isTransient(x.status, x.retryAfter) || (x.status >= 300 && x.status < 400)))
    return classifyStatus('discover', x.status, x);
  // Any other JSON-RPC error is the server's own failure (server_error in a 2xx, its status class in a 4xx).
  if (x.rpcError && !legacySignal(x.rpcError)) return classifyError('discover', undefined, x);
  return null;
}

/** discover answered a result that is not `complete`: the kind named (escaped: the server chose it). */
function unknownDiscoverResult(resultType: string): Fault {
  const task = resultType === 'task' ? ' (a task: the work goes on and answers later)' : '';
  return {
    failure: FailureClass.protocol,
    retryable: false,
    detail: `discover: the server answered resultType "${shownName(resultType, 40)}"${task}, not the complete result discover must be`,
  };
}

/**
 * A pinned revision fails as `revision` only on evidence about revisions: the class says so already
 * (the revision negotiated, `-32022`), or the answer is one of the other era — to a pinned 2026-07-28
 * discover, the codes a 2025 server answers an unknown pre-initialize request with; to a pinned
 * 2025-11-25 initialize, "method not found" (a server without initialize). Anything else keeps the class
 * auto mode gives the same answer: an outage, a wall, a server error or a broken answer is not the
 * revision's fault (a gateway whose backend is down answers -32603 "fetch failed" to either).
 */
export function pinnedFailure(setting: string, c: Fault, x: Exchange | undefined): Fault {
  if (c.failure === FailureClass.revision) return c;
  const rpc = x?.rpcError;
  if (!rpc || (x.status !== null && (x.status >= 500 || [401, 403].includes(x.status) || isTransient(x.status, x.retryAfter)))) return c;
  const otherEra = setting === Revision.modern ? legacySignal(rpc) : rpc.code === ProtocolErrorCode.MethodNotFound;
  if (!otherEra) return c;
  const like = setting === Revision.modern ? 'a 2025-era server' : 'a server without initialize (2026-07-28 only?)';
  // Its own words, not the class's it replaces ("the MCP server … failed this step" would contradict it).
  const step = x.rpcMethod === 'server/discover' ? 'discover' : (x.rpcMethod ?? 'initialize');
  const status = x.status !== null && x.status !== 200 ? ` in an HTTP ${x.status} answer` : '';
  return {
    ...c,
    failure: FailureClass.revision,
    detail: `${step}: the server answered JSON-RPC error ${describeRpcError(rpc)}${status} — answered like ${like}: the server does not speak the pinned ${setting}`,
  };
}

/**
 * In auto mode, discover answered like a 2025 server and then initialize like a 2026-07-28-only one
 * (`-32022` naming a modern revision, or no initialize at all): two eras behind one endpoint, replicas
 * of a rollout behind one load balancer — not a server that speaks neither.
 */
export function erasMixed(discover: Exchange | undefined, init: Exchange | undefined, first: Fault): Fault | null {
  if (!discover || !init?.rpcError) return null;
  // A transient answer (429, 408, 425, one with Retry-After) said "not now", nothing about the era.
  if (isTransient(discover.status, discover.retryAfter)) return null;
  const legacyDiscover = discover.rpcError
    ? legacySignal(discover.rpcError)
    : discover.status !== null && discover.status >= 400 && discover.status < 500;
  if (!legacyDiscover) return null;
  const modernOnly =
    (init.rpcError.code === ProtocolErrorCode.UnsupportedProtocolVersion && supportedOf(init.rpcError).includes(Revision.modern)) ||
    init.rpcError.code === ProtocolErrorCode.MethodNotFound;
  if (!modernOnly) return null;
  const said = (x: Exchange) =>
    `HTTP ${x.status}${x.rpcError ? `: ${describeRpcError(x.rpcError)}` : x.serverWords ? `: ${JSON.stringify(oneLine(x.serverWords, 160))}` : ''}`;
  return {
    ...first,
    failure: FailureClass.revision,
    detail: `initialize: discover was answered like a 2025 server (${said(discover)}), then initialize like a 2026-07-28-only server (${said(init)}) — two protocol eras behind one endpoint (a rollout in progress?)`,
  };
}

/** The session died between `initialize` and `notifications/initialized`: one fresh handshake. */
async function reconnectAfterForgottenHandshake(o: SessionOptions): Promise<StepResult<Connection>> {
  try {
    const s = await openSession('legacy', o);
    return passed({ session: s, recovered: recoveredDetail('initialize') }, `${s.revision} session (second handshake)`, 'initialize');
  } catch (e) {
    if (o.wire.last('notifications/initialized')?.status === 404) {
      return failed('initialize', {
        failure: FailureClass.sessionLost,
        retryable: false,
        detail:
          'initialize: the server forgot the session between initialize and initialized, twice — sessions do not survive between requests (replicas without shared sessions?)',
      });
    }
    return failed('initialize', classifyError('initialize', e, o.wire.last('initialize')));
  }
}

function failed(as: ProbeName, c: Fault): StepResult<Connection> {
  return faulted(c, as);
}

function nameFor(era: Revision): ProbeName {
  return era === Revision.modern ? 'discover' : 'initialize';
}

function describeEra(s: Session, discover: Exchange | undefined, mode: string): string {
  if (s.era === Revision.modern) return `${s.revision} via server/discover`;
  const older = s.revision !== Revision.legacy ? ` (the server's answer to a ${Revision.legacy} initialize)` : '';
  if (mode !== 'auto' || !discover) return `${s.revision} session${older}`;
  const answer = discover.error
    ? discover.error.code
    : discover.resultType
      ? `resultType "${shownName(discover.resultType, 40)}"`
      : `HTTP ${discover.status}`;
  return `${s.revision} session${older} (discover answered ${oneLine(answer, 80)})`;
}
