/**
 * Opens one MCP connection to a target on the era the run needs, through the SDK's own version
 * negotiation, and ends it properly. The canary only adds what the SDK does not do for it:
 * - `auto` falls back to 2025-11-25 after *any* discover failure that is not an auth wall, a timeout
 *   or an unreachable host — real servers answer discover with a 500 while serving 2025 sessions fine,
 *   where the SDK's own negotiation stops with a typed connect error;
 * - on 2025-11-25 the session is ended with `DELETE` (the SDK's `close()` does not send one).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { FailureClass, Revision, type ServerInfo } from '../verdict.ts';
import type { Classified } from './classify.ts';
import { outputSchemaValidator } from './validator.ts';
import type { Wire } from './wire.ts';

export const CLIENT_INFO = { name: 'mcp-canary', version: '0.1.0' } as const;

/** `auto` probes modern first; `modern` is the pin; `legacy` is the plain 2025 handshake. */
export type SessionMode = 'auto' | 'modern' | 'legacy';

export interface Session {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly revision: Revision;
  readonly server: ServerInfo | null;
}

export interface SessionOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly wire: Wire;
  readonly signal: AbortSignal;
}

export async function openSession(mode: SessionMode, o: SessionOptions): Promise<Session> {
  const transport = new StreamableHTTPClientTransport(new URL(o.url), {
    requestInit: { headers: { ...o.headers } },
    fetch: o.wire.fetch,
    // The default: a redirect is followed only within the same origin, so headers never leave it.
    redirectPolicy: 'same-origin',
    // One run, one verdict: no background reconnects of the 2025 GET stream after we are done.
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1_000, maxReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1 },
  });
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: {
      mode: mode === 'auto' ? 'auto' : mode === 'modern' ? { pin: Revision.modern } : 'legacy',
      probe: { timeoutMs: o.timeoutMs, maxRetries: 0 },
    },
    // A canary tool that asks for user input cannot serve an unattended agent: surface it, don't answer it.
    inputRequired: { autoFulfill: false },
    // The SDK's own Ajv checks, compiled once per distinct outputSchema instead of once per run.
    jsonSchemaValidator: outputSchemaValidator,
    capabilities: {},
  });
  // Errors of side streams (the 2025 GET stream, late notifications) are not the verdict's business:
  // the step that needs an answer fails on its own, with the wire record as evidence.
  client.onerror = () => {};
  try {
    await client.connect(transport, { timeout: o.timeoutMs, signal: o.signal });
  } catch (e) {
    await client.close().catch(() => {});
    throw e;
  }
  const era = client.getProtocolEra();
  const revision = era === 'modern' ? Revision.modern : Revision.legacy;
  const info = client.getServerVersion();
  return {
    client,
    transport,
    revision,
    server: info ? { name: String(info.name), version: String(info.version) } : null,
  };
}

/**
 * Ends a session. On 2025-11-25, `DELETE` tells the server to drop it (success or failure of the run);
 * a server that answers 405 (stateless) or has already forgotten it is fine.
 */
export async function closeSession(s: Session, opts: { sendDelete: boolean }): Promise<void> {
  if (opts.sendDelete && s.revision === Revision.legacy && s.transport.sessionId) {
    await s.transport.terminateSession().catch(() => {});
  }
  await s.client.close().catch(() => {});
}

export function recoveredDetail(what: string): string {
  return `${what}: the server forgot the session after initialize (HTTP 404); a fresh session worked — likely replicas without shared session storage or sticky routing`;
}

export function sessionLost(what: string): Classified {
  return { failure: FailureClass.sessionLost, retryable: false, detail: `${what}: the server forgot the session again (HTTP 404) after a fresh initialize — sessions do not survive between requests (replicas without shared sessions?)` };
}
