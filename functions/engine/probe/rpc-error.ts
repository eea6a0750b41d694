/**
 * Pure: a JSON-RPC error is a valid answer — the server read the request and said why it would not
 * serve it. Its class follows its code's meaning first (`meaningOf`), then the step it answered:
 *
 * - `-32021` (a client capability the canary does not declare) and `-32042` (a URL the user must open)
 *   → `tool_error`: input the canary cannot give;
 * - `-32022` (unsupported protocol version) → `revision`;
 * - `-32700`, `-32600`, `-32020` (2026-07-28 header mismatch) → `protocol`: the request could not be
 *   read as sent (a gateway that strips `Mcp-Name`), so nothing ran;
 * - on `tools/call`: `-32603` and application-defined codes → `tool_error`, with the code and the
 *   server's words (GitLab's `-32603 "GitLab API error: 401 Unauthorized"`: the tool's upstream, where
 *   on-call must look); `-32601`, `-32602` and the server-defined range → `server_error`, the tool never
 *   ran (invalid-params.ts then says whether the canary's arguments or the server's validation is wrong);
 * - any other code on discover, initialize or tools/list → `server_error` (a gateway whose backend is
 *   down answers `-32603 "fetch failed"`): the MCP server, or what is behind it, failed the step.
 *
 * Inside a non-2xx answer, the codes that name their cause (-32021, -32042, -32022, -32020) outrank the
 * HTTP status. On `tools/call` any JSON-RPC error does too: the server read the call and answered it in
 * JSON-RPC, whatever status its framework put around it (a tool whose upstream failed often comes back as
 * HTTP 500 with `-32603`) — except under a status that names a cause of its own before the tool ran:
 * 401/403 (the canary's credentials), 404 (the session is gone), a transient status (transient.ts: a rate
 * limit, a gateway or server that could not serve it at all: kept as `http_status`, retryable within the
 * run). Elsewhere the status keeps its class, with the JSON-RPC words in the detail. Whether an error is
 * evidence about revisions beyond `-32022` (an answer of the other era to a pinned revision) is decided
 * in connect.ts, which knows what was asked.
 */
import { ProtocolError, ProtocolErrorCode, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client';
import { oneLine } from '../../base/common/redact.ts';
import type { Fault } from '../../base/common/step.ts';
import { FailureClass, Revision } from '../../base/common/verdict.ts';
import type { Exchange } from '../../base/net/exchange.ts';
import { TRANSIENT_STATUSES } from './transient.ts';

export interface RpcError {
  readonly code: number;
  readonly message: string;
  /** The code as the server sent it, when it is not an integer (`"E_UPSTREAM"`). */
  readonly codeAsSent?: string;
  readonly data?: unknown;
}

/** Statuses that say why a call never reached its tool: they keep their own class even around a JSON-RPC error. */
const STATUSES_BEFORE_THE_TOOL: ReadonlySet<number | undefined> = new Set([401, 403, 404, ...TRANSIENT_STATUSES]);

/**
 * What a 2025 server says to a request of a client that never initialized ("Bad Request: Server not
 * initialized", "No valid session ID provided", "Mcp-Session-Id header is required") or that asked
 * for a revision it lacks ("Unsupported protocol version: 2026-07-28"): era evidence by its words,
 * since its code (-32000, -32600) is one any server may use for its own failures.
 */
export const LEGACY_WORDS = /not initiali[sz]ed|session|protocol version/i;

/** The revisions the canary's client speaks (the SDK's list), for revision details. */
export const SPOKEN_REVISIONS: readonly string[] = [Revision.modern, ...SUPPORTED_PROTOCOL_VERSIONS];
export const SPOKEN = SPOKEN_REVISIONS.join(', ');

/**
 * The JSON-RPC error the server answered with: what the wire read. The SDK also throws ProtocolErrors of
 * its own that no server sent — an outputSchema it cannot compile, structuredContent that breaks it —
 * and those are not the server's answer. Its own `-32022` (a discover result that offers no revision the
 * client speaks) is era evidence all the same.
 */
export function rpcErrorOf(error: unknown, x: Exchange | undefined): RpcError | null {
  if (x?.rpcError) return x.rpcError;
  if (error instanceof ProtocolError && error.code === ProtocolErrorCode.UnsupportedProtocolVersion)
    return { code: error.code, message: error.message, data: error.data };
  return null;
}

/** `-32603 (internal error): "fetch failed"`: the code, its meaning where JSON-RPC or MCP names one, the server's words. */
export function describeRpcError(e: RpcError): string {
  const known =
    e.code === HEADER_MISMATCH ? 'HeaderMismatch' : (ProtocolErrorCode as unknown as Record<number, string | undefined>)[e.code];
  const meaning = known
    ? known.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()
    : e.code <= -32000 && e.code >= -32099
      ? 'server error'
      : null;
  const code = e.codeAsSent !== undefined ? `${e.codeAsSent} (not an integer code)` : `${e.code}${meaning ? ` (${meaning})` : ''}`;
  return `${code}: ${e.message ? JSON.stringify(oneLine(e.message, 300)) : '(no message)'}`;
}

/**
 * The class of a JSON-RPC error on the step `what` (`x.rpcMethod` says which request it answered), or
 * null when the HTTP status decides (a non-2xx answer whose code does not name its cause).
 */
export function classifyRpcError(what: string, e: RpcError, x: Exchange | undefined, status: number | undefined): Fault | null {
  const data = (e.data ?? undefined) as Record<string, unknown> | undefined;
  if (e.code === ProtocolErrorCode.MissingRequiredClientCapability) {
    const caps =
      data && typeof data.requiredCapabilities === 'object' && data.requiredCapabilities ? Object.keys(data.requiredCapabilities) : [];
    const named = caps.length ? `the client capability ${caps.map((c) => oneLine(c, 40)).join(', ')}` : 'a client capability';
    return {
      failure: FailureClass.toolError,
      detail: `${what}: the server requires ${named}, which the canary does not declare (-32021: ${oneLine(e.message, 160)}) — a canary tool must answer unattended`,
      retryable: false,
    };
  }
  if (e.code === ProtocolErrorCode.UrlElicitationRequired) {
    return {
      failure: FailureClass.toolError,
      detail: `${what}: the ${x?.rpcMethod === 'tools/call' ? 'tool' : 'server'} needs the user to open a URL (URL elicitation, ${describeRpcError(e)}), which the canary cannot — a canary tool must answer unattended`,
      retryable: false,
    };
  }
  if (e.code === ProtocolErrorCode.UnsupportedProtocolVersion) {
    return { failure: FailureClass.revision, detail: `${what}: ${unsupportedVersion(e)}`, retryable: false };
  }
  const non2xx = status !== undefined && (status < 200 || status >= 300);
  const inStatus = non2xx ? ` (in an HTTP ${status} answer)` : '';
  // The 2026-07-28 header check names its cause whatever the status (the spec answers it with a 400).
  if (e.code === HEADER_MISMATCH) return { ...refusedAsSent(what, e, inStatus), ...(non2xx ? { status } : {}) };
  const call = x?.rpcMethod === 'tools/call';
  if (call && non2xx && STATUSES_BEFORE_THE_TOOL.has(status)) return null;
  if (non2xx && !call) return null;
  const meaning = meaningOf(e);
  const withStatus = non2xx ? { status } : {};
  if (meaning === 'refused as sent') return { ...refusedAsSent(what, e, inStatus), ...withStatus };
  if (call && meaning === 'execution') {
    return {
      failure: FailureClass.toolError,
      detail: `${what}: the tool answered JSON-RPC error ${describeRpcError(e)}${inStatus}`,
      retryable: false,
      ...withStatus,
    };
  }
  const why = call ? CALL_WORDS[meaning] : ' — the MCP server, or what is behind it, failed this step';
  return {
    failure: FailureClass.serverError,
    detail: `${what}: the server answered JSON-RPC error ${describeRpcError(e)}${inStatus}${why}`,
    retryable: false,
    ...withStatus,
  };
}

/** `-32020`: the 2026-07-28 Streamable HTTP header check (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, `MCP-Protocol-Version` missing or not matching the body). */
export const HEADER_MISMATCH = -32020;

/**
 * What a code says about who failed, by the JSON-RPC and MCP specs:
 * - `refused as sent`: -32700 parse error, -32600 invalid request, -32020 header mismatch — the request
 *   did not arrive as the canary sent it (or the server reads the wire differently): nothing ran;
 * - `no method`: -32601, the server does not serve the request's method;
 * - `params`: -32602, the server refused the request's parameters (on tools/call: the arguments);
 * - `server`: the implementation-defined range -32000…-32099 and the rest of the reserved range: the
 *   MCP server itself refused, before or around the tool;
 * - `execution`: -32603 internal error (where frameworks put an exception the tool's code threw:
 *   GitLab's `-32603 "GitLab API error: 401 Unauthorized"`) and any application-defined code outside the
 *   reserved range (or a code that is not an integer): the tool's own execution, or its upstream.
 */
export type RpcMeaning = 'refused as sent' | 'no method' | 'params' | 'server' | 'execution';

export function meaningOf(e: Pick<RpcError, 'code' | 'codeAsSent'>): RpcMeaning {
  const { code } = e;
  // A code that is not an integer (`"E_UPSTREAM"`, `-32603.5`) is none JSON-RPC defines: the application's own.
  if (e.codeAsSent !== undefined) return 'execution';
  if (code === ProtocolErrorCode.ParseError || code === ProtocolErrorCode.InvalidRequest || code === HEADER_MISMATCH)
    return 'refused as sent';
  if (code === ProtocolErrorCode.MethodNotFound) return 'no method';
  if (code === ProtocolErrorCode.InvalidParams) return 'params';
  if (code === ProtocolErrorCode.InternalError) return 'execution';
  return code >= -32768 && code <= -32000 ? 'server' : 'execution';
}

/** On tools/call, what each meaning says beside the code: who failed, and that the tool never ran. */
const CALL_WORDS: Record<RpcMeaning, string> = {
  'refused as sent': '',
  'no method': ' — the server does not serve tools/call at all, though it lists tools: the tool never ran',
  params: " — the server refused the call's arguments before the tool ran: the canary's tool.arguments, or a tool schema that changed",
  server: ' — a server-defined error: the MCP server (or a gateway in front of it) refused the call, not the tool',
  execution: '',
};

/**
 * -32700, -32600 or -32020: the server could not read the request as the canary sent it. The canary's
 * requests are the SDK's, so the usual cause is between them: a gateway or proxy that rewrites bodies or
 * strips headers. `protocol`: the exchange failed at the wire format, and the tool never ran.
 */
function refusedAsSent(what: string, e: RpcError, inStatus: string): Fault {
  const headers =
    e.code === HEADER_MISMATCH
      ? ' (header mismatch: the Mcp-Method / Mcp-Name / MCP-Protocol-Version headers the canary sent did not reach the server as sent — a gateway or proxy that strips or rewrites them?)'
      : ' — the request did not arrive as the canary sent it (a gateway or proxy that rewrites requests?)';
  return {
    failure: FailureClass.protocol,
    detail: `${what}: the server refused the request itself with JSON-RPC error ${describeRpcError(e)}${inStatus}${headers}; nothing ran`,
    retryable: false,
  };
}

/** The revisions a `-32022` names in `data.supported`. */
export function supportedOf(e: RpcError): string[] {
  const supported = (e.data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) ? supported.filter((v): v is string => typeof v === 'string').map((v) => oneLine(v, 40)) : [];
}

/**
 * `-32022` in words. When the server supports a revision the canary speaks, the refusal is of the one
 * requested (a pin, or a mixed fleet), not of the canary: saying "the canary speaks …" then would read
 * as a contradiction.
 */
function unsupportedVersion(e: RpcError): string {
  const supported = supportedOf(e);
  const requested = (e.data as { requested?: unknown } | undefined)?.requested;
  const code = `(-32022: ${oneLine(e.message, 160)})`;
  if (supported.length === 0) return `the server does not support the requested revision ${code}`;
  const only = `the server supports only ${supported.join(', ')}`;
  if (!supported.some((v) => SPOKEN_REVISIONS.includes(v))) return `${only}; the canary speaks ${SPOKEN} ${code}`;
  const refused = typeof requested === 'string' ? `refused ${oneLine(requested, 40)}: ` : '';
  return `${refused}${only} ${code}`;
}
