/**
 * The record of one HTTP exchange — the evidence the classifier judges by — and how a network error
 * is read from the cause chain undici wraps it in.
 */
import type { RecordedRpcError } from './answer.ts';
import type { TlsWall } from './tls-wall.ts';

export type WireErrorKind =
  | 'unreachable'
  /** The forward proxy refused or could not be reached (proxy-words.ts): `code` is the sentence naming it. */
  | 'proxy'
  | 'tls'
  | 'timeout'
  | 'budget'
  | 'too_large'
  | 'wrong_id'
  | 'no_answer'
  | 'wrong_answer'
  | 'truncated'
  | 'other';

export interface Exchange {
  readonly httpMethod: string;
  /** The JSON-RPC method of the request body (`tools/call`, …), or null (GET, DELETE, health). */
  readonly rpcMethod: string | null;
  status: number | null;
  contentType: string | null;
  wwwAuthenticate: string | null;
  retryAfter: string | null;
  /** Where a 3xx pointed (origin only: a path or query may carry a key). */
  redirectTo: string | null;
  /** Whether that redirect stayed on the request's own origin (a loop there is not the cross-origin rule). */
  redirectSameOrigin?: boolean;
  /** Set when the request or its body failed below HTTP: socket, TLS, timeout, cap. */
  error: { kind: WireErrorKind; code: string } | null;
  /** The JSON-RPC error of the answer (JSON or event stream), when it was one. */
  rpcError: RecordedRpcError | null;
  /** A `server/discover` result's `supportedVersions`, as the server offered them. */
  supportedVersions?: string[] | null;
  /** A `tools/list` result's tool names as they came over the wire, before the client dropped any. */
  toolNames?: string[] | null;
  /** The server's own words in a failed (non-2xx) answer: its JSON-RPC error message or the first line of a short text body. */
  serverWords?: string | null;
  /** An event stream that ended after an event id without the answer: the SEP-1699 resumption point. */
  resumeFrom?: string | null;
  /** Content-Length as the server declared it (to describe a body cut short). */
  declaredLength?: number | null;
  /** Where a TLS 1.2 `handshake_failure` stopped, when a watched second handshake could tell (tls-wall.ts). */
  tlsWall?: TlsWall | null;
  /** The canary presented a client certificate on this request's connection (the target's `tls`). */
  clientCertificateSent?: boolean;
  /** The methods of requests the server sent the client on this answer's stream (`elicitation/create`, …). */
  serverRequests?: string[];
  /** A 2026-07-28 result's `resultType` when it was not `complete` (`input_required`, `task`, …). */
  resultType?: string | null;
  /** That result's input requests (`input_required`), as `method (key)`. */
  inputRequests?: string[] | null;
  /** The JSON text of the message that answered a `tools/call`: its numbers as the server wrote them. */
  answerText?: string | null;
  bytes: number;
}

/** A new exchange, before its request goes out: nothing seen yet. */
export function newExchange(httpMethod: string, rpcMethod: string | null): Exchange {
  return {
    httpMethod,
    rpcMethod,
    status: null,
    contentType: null,
    wwwAuthenticate: null,
    retryAfter: null,
    redirectTo: null,
    error: null,
    rpcError: null,
    bytes: 0,
  };
}

const TLS_CODE =
  /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|ERR_TLS_|ERR_SSL_|ERR_OSSL_|HOSTNAME_MISMATCH|EPROTO$)/;
const NET_CODE =
  /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPIPE|ETIMEDOUT|ECONNABORTED|UND_ERR_SOCKET|UND_ERR_CLOSED|UND_ERR_CONNECT_TIMEOUT)$/;

/** The innermost error code in a cause chain (undici wraps socket errors in "fetch failed"). */
export function errorCode(e: unknown): string {
  let code = '';
  for (let cur: unknown = e, depth = 0; cur && depth < 8; cur = (cur as { cause?: unknown }).cause, depth++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') code = c;
  }
  if (!code && (e as { cause?: { message?: unknown } })?.cause?.message === 'bad port') return 'bad port';
  return code || (e instanceof Error ? e.name : 'error');
}

export function networkErrorKind(e: unknown): WireErrorKind {
  const code = errorCode(e);
  // fetch refuses some ports outright (1, 9, 6000, …), with no code: the endpoint cannot be reached.
  if ((e as { cause?: { message?: unknown } })?.cause?.message === 'bad port') return 'unreachable';
  if (TLS_CODE.test(code)) return 'tls';
  if (NET_CODE.test(code)) return code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT' ? 'timeout' : 'unreachable';
  if (code === 'TimeoutError') return 'timeout';
  return 'other';
}
