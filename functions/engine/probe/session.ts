/**
 * Opens one MCP connection to a target on the era the run needs, through the SDK's own version
 * negotiation, and ends it properly. The canary only adds what the SDK does not do for it:
 * - `auto` falls back to 2025-11-25 after *any* discover failure that is not an auth wall, a timeout
 *   or an unreachable host — real servers answer discover with a 500 while serving 2025 sessions fine,
 *   where the SDK's own negotiation stops with a typed connect error;
 * - on 2025-11-25 the session is ended with `DELETE` (the SDK's `close()` does not send one);
 * - SEP-1699 resumption (a stream closed after an event id is resumed with GET + Last-Event-ID after
 *   the server's `retry`) is the SDK transport's own, allowed only while it fits the run's budget;
 * - the negotiated revision is read at connect, because the SDK forgets it on `close()`.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { oneLine } from '../../base/common/redact.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import type { Fault } from '../../base/common/step.ts';
import { FailureClass, NegotiatedRevisions, Revision, type NegotiatedRevision, type ServerInfo } from '../../base/common/verdict.ts';
import { CLIENT_INFO } from '../../base/common/version.ts';
import { outputSchemaValidator } from './validator.ts';
import type { FetchLike, Wire } from '../../base/net/wire.ts';
import { isTransient } from './transient.ts';

/** `auto` probes modern first; `modern` is the pin; `legacy` is the plain 2025 handshake. */
export type SessionMode = 'auto' | 'modern' | 'legacy';

export interface Session {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** The era's own revision: how the session is run (DELETE, forgotten sessions). */
  readonly era: Revision;
  /** The revision as negotiated, exactly (a 2025 server may answer 2025-06-18 or 2025-03-26). */
  readonly revision: NegotiatedRevision;
  readonly server: ServerInfo | null;
}

export interface SessionOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly wire: Wire;
  /** The run's budget: its signal ends a handshake, and a resumption that cannot fit what is left is not scheduled. */
  readonly run: Pick<RunContext, 'signal' | 'remainingMs'>;
  /** A tool of the target may run as a task: the client declares the Tasks extension (SEP-2663). @default false */
  readonly tasks?: boolean;
}

/** The Tasks extension's identifier (SEP-2663), declared in the client's capabilities when a tool may run as a task. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Rounds of one multi-round-trip call before the SDK gives up: its own default, named. */
const MAX_INPUT_ROUNDS = 10;

/** SEP-1699 resumptions per stream: the SDK's default count; each waits the server's `retry`. */
const MAX_RESUMPTIONS = 2;

export async function openSession(mode: SessionMode, o: SessionOptions): Promise<Session> {
  const transport = new StreamableHTTPClientTransport(new URL(o.url), {
    requestInit: { headers: { ...o.headers } },
    fetch: mode === 'auto' ? discoverNotNow(o.wire) : o.wire.fetch,
    // The default: a redirect is followed only within the same origin, so headers never leave it.
    redirectPolicy: 'same-origin',
    // SEP-1699 (2025-11-25 requires it of clients): a stream the server closes after an event id is
    // resumed with GET + Last-Event-ID after the server's `retry` (or this backoff when it sent none).
    // The wire never opens the standalone GET stream, so these are only resumptions of our requests.
    reconnectionOptions: {
      maxRetries: MAX_RESUMPTIONS,
      initialReconnectionDelay: 250,
      maxReconnectionDelay: 1_000,
      reconnectionDelayGrowFactor: 2,
    },
    // A resumption that cannot start within the run's budget is not scheduled: the request then ends at
    // its own timeout, and no timer outlives the verdict.
    reconnectionScheduler: (reconnect, delayMs) => {
      if (delayMs >= o.run.remainingMs()) return undefined;
      const timer = setTimeout(reconnect, delayMs);
      return () => clearTimeout(timer);
    },
  });
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: {
      mode: mode === 'auto' ? 'auto' : mode === 'modern' ? { pin: Revision.modern } : 'legacy',
      probe: { timeoutMs: o.timeoutMs, maxRetries: 0 },
    },
    // 2026-07-28 multi-round-trip results as an agent's client runs them (SEP-2322): `requestState` alone
    // is the same call again with that state echoed, after the SDK's pacing, within its round cap (and
    // the call's maxTotalTimeout: the run's budget). Embedded input requests go to handlers the canary
    // does not register — no user, no model, no roots — and fail typed, naming the request (rounds.ts).
    inputRequired: { autoFulfill: true, maxRounds: MAX_INPUT_ROUNDS },
    // The SDK's own Ajv checks, compiled once per distinct outputSchema instead of once per run.
    jsonSchemaValidator: outputSchemaValidator,
    // Nothing but the Tasks extension, and only when the target says its tool may run as one: a server
    // must not answer a task to a client that did not declare it (SEP-2663), so an undeclared task stays
    // a named failure (rounds.ts).
    capabilities: o.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
  });
  // Errors of side streams (the 2025 GET stream, late notifications) are not the verdict's business:
  // the step that needs an answer fails on its own, with the wire record as evidence.
  client.onerror = () => {};
  try {
    await client.connect(transport, { timeout: o.timeoutMs, signal: o.run.signal });
  } catch (e) {
    await client.close().catch(() => {});
    throw e;
  }
  const era = client.getProtocolEra() === 'modern' ? Revision.modern : Revision.legacy;
  const negotiated = client.getNegotiatedProtocolVersion();
  const revision = NegotiatedRevisions.find((r) => r === negotiated) ?? era;
  const info = client.getServerVersion();
  return {
    client,
    transport,
    era,
    revision,
    // Server-supplied text: one bounded line (the terminal escapes what is left when it prints).
    server: info ? { name: oneLine(String(info.name), 100), version: oneLine(String(info.version), 60) } : null,
  };
}

/**
 * Ends a session. On 2025-11-25, `DELETE` tells the server to drop it (success or failure of the run);
 * a server that answers 405 (stateless) or has already forgotten it is fine.
 */
export async function closeSession(s: Session, opts: { sendDelete: boolean }): Promise<void> {
  if (opts.sendDelete && s.era === Revision.legacy && s.transport.sessionId) {
    await s.transport.terminateSession().catch(() => {});
  }
  await s.client.close().catch(() => {});
}

/**
 * The SDK's negotiation reads any 4xx to `server/discover` as "a 2025 server" and falls back to
 * `initialize`; a transient answer (429, 408, 425, 503 …, transient.ts) says only "not now". Such an
 * answer is read whole (its words stay in the wire's record) and then thrown as the probe's failure, so
 * the SDK stops there: connect.ts judges it as the status it is, never as era evidence.
 */
function discoverNotNow(wire: Wire): FetchLike {
  return async (url, init) => {
    const res = await wire.fetch(url, init);
    const x = wire.exchanges.at(-1);
    if (x?.rpcMethod !== 'server/discover' || !isTransient(res.status, res.headers.get('retry-after'))) return res;
    await res.text().catch(() => {});
    throw new Error(`server/discover: HTTP ${res.status}, a transient answer: no evidence about the protocol`);
  };
}

export function recoveredDetail(what: string): string {
  return `${what}: the server forgot the session after initialize (HTTP 404); a fresh session worked — likely replicas without shared session storage or sticky routing`;
}

export function sessionLost(what: string): Fault {
  return {
    failure: FailureClass.sessionLost,
    retryable: false,
    detail: `${what}: the server forgot the session again (HTTP 404) after a fresh initialize — sessions do not survive between requests (replicas without shared sessions?)`,
  };
}
