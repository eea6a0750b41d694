/**
 * The protocol step: establish the era and a connection, the way the target's `revision` says.
 * `auto` asks 2026-07-28 `server/discover` first and falls back to exactly one 2025-11-25
 * `initialize`; a pinned revision never falls back.
 */
import type { z } from 'zod';
import type { RevisionSetting } from '../config/target.ts';
import { FailureClass, Revision, type ProbeName } from '../verdict.ts';
import { oneLine } from '../redact.ts';
import { classifyError, classifyStatus, SPOKEN, type Classified } from './classify.ts';
import { closeSession, openSession, recoveredDetail, type Session, type SessionOptions } from './session.ts';
import type { Exchange } from './wire.ts';

/** A connection, or the failure that ended the protocol step: never both. */
export type Connected =
  | {
      readonly session: Session;
      readonly probeName: ProbeName;
      readonly detail: string;
      readonly failure?: undefined;
      /** Set when the handshake's session was forgotten and a fresh one worked. */
      readonly recovered?: string;
    }
  | { readonly session?: undefined; readonly probeName: ProbeName; readonly detail: string; readonly failure: Classified };

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

export async function connect(setting: z.output<typeof RevisionSetting>, o: SessionOptions): Promise<Connected> {
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
    return { session: s, probeName: nameFor(s.era), detail: describeEra(s, o.wire.last('server/discover'), mode) };
  } catch (e) {
    if (o.wire.last('notifications/initialized')?.status === 404) return reconnectAfterForgottenHandshake(o);
    const initSent = o.wire.last('initialize') !== undefined;
    const step: ProbeName = initSent ? 'initialize' : 'discover';
    const first = classifyError(step, e, o.wire.last(initSent ? 'initialize' : 'server/discover'));
    if (mode !== 'auto') return failed(step, pinnedFailure(setting, first, o.wire.last(initSent ? 'initialize' : 'server/discover')));
    if (initSent) {
      // The SDK already fell back and sent the one `initialize`: never send a second. If discover had
      // failed rather than said "legacy", that first failure is the verdict, the initialize's context.
      const discover = discoverFailure(o.wire.last('server/discover'));
      return discover ? failed('discover', bothFailed(discover, first)) : failed(step, first);
    }
    if (ENDS_NEGOTIATION.has(first.failure) || first.failure === FailureClass.revision) return failed(step, first);
    try {
      const s = await openSession('legacy', o);
      return { session: s, probeName: 'initialize', detail: `${s.revision} session (discover failed: ${first.detail})` };
    } catch (e2) {
      return failed('discover', bothFailed(first, classifyError('initialize', e2, o.wire.last('initialize'))));
    }
  }
}

/** A server that fails both eras is judged by the first failure; the second is context. */
function bothFailed(first: Classified, second: Classified): Classified {
  return { ...first, detail: `${first.detail}; the 2025-11-25 initialize also failed: ${second.detail}` };
}

/**
 * JSON-RPC codes a 2025 server answers an unknown pre-initialize request with: "not modern", a normal
 * legacy signal rather than a failure (-32000 is the TypeScript SDK's "Server not initialized").
 */
const LEGACY_SIGNALS: ReadonlySet<number> = new Set([-32600, -32601, -32602, -32000]);

/** What the discover probe showed, when it was a failure rather than a legacy signal or success. */
function discoverFailure(x: Exchange | undefined): Classified | null {
  if (!x) return null;
  // The server offered only revisions the canary does not speak: that, not the fallback's answer, is
  // the cause (a server from the future, or one that dropped 2026-07-28).
  const offered =
    x.supportedVersions ??
    (Array.isArray((x.rpcError?.data as { supported?: unknown })?.supported)
      ? ((x.rpcError!.data as { supported: unknown[] }).supported.filter((v) => typeof v === 'string') as string[])
      : null);
  if (offered && offered.length > 0 && !offered.includes(Revision.modern)) {
    return {
      failure: FailureClass.revision,
      retryable: false,
      detail: `discover: the server offers only ${offered.map((v) => oneLine(v, 40)).join(', ')}; the canary speaks ${SPOKEN}`,
    };
  }
  if (x.error) return null;
  // A 5xx, a redirect or a 429 (with its Retry-After) is a failure, not the "I am a 2025 server" a 4xx is.
  if (x.status !== null && (x.status >= 500 || x.status === 429 || (x.status >= 300 && x.status < 400)))
    return classifyStatus('discover', x.status, x);
  if (x.rpcError && !LEGACY_SIGNALS.has(x.rpcError.code)) {
    return {
      failure: FailureClass.protocol,
      retryable: false,
      detail: `discover: JSON-RPC error ${x.rpcError.code}: ${oneLine(x.rpcError.message)}`,
    };
  }
  return null;
}

/**
 * A pinned revision the server does not speak is `revision` — when the answer shows an MCP server
 * (a JSON-RPC answer, or a protocol fault). A 4xx without JSON-RPC (a wrong path's 404 page) is
 * `http_status` as in auto mode; outages and auth walls keep their class.
 */
function pinnedFailure(setting: string, c: Classified, x: Exchange | undefined): Classified {
  const spokeJsonRpc = x?.rpcError !== null && x?.rpcError !== undefined;
  const notSpoken =
    c.failure === FailureClass.protocol ||
    (c.failure === FailureClass.httpStatus &&
      spokeJsonRpc &&
      c.status !== undefined &&
      c.status >= 400 &&
      c.status < 500 &&
      c.status !== 408 &&
      c.status !== 429);
  if (c.failure === FailureClass.revision) return c;
  return notSpoken ? { ...c, failure: FailureClass.revision, detail: `${c.detail} — the server does not speak the pinned ${setting}` } : c;
}

/** The session died between `initialize` and `notifications/initialized`: one fresh handshake. */
async function reconnectAfterForgottenHandshake(o: SessionOptions): Promise<Connected> {
  try {
    const s = await openSession('legacy', o);
    return {
      session: s,
      probeName: 'initialize',
      detail: `${s.revision} session (second handshake)`,
      recovered: recoveredDetail('initialize'),
    };
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

function failed(probeName: ProbeName, c: Classified): Connected {
  return { probeName, detail: c.detail, failure: c };
}

function nameFor(era: Revision): ProbeName {
  return era === Revision.modern ? 'discover' : 'initialize';
}

function describeEra(s: Session, discover: Exchange | undefined, mode: string): string {
  if (s.era === Revision.modern) return `${s.revision} via server/discover`;
  const older = s.revision !== Revision.legacy ? ` (the server's answer to a ${Revision.legacy} initialize)` : '';
  if (mode !== 'auto' || !discover) return `${s.revision} session${older}`;
  const answer = discover.error ? discover.error.code : `HTTP ${discover.status}`;
  return `${s.revision} session${older} (discover answered ${oneLine(answer, 80)})`;
}
