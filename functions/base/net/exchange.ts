/**
 * The record of one HTTP exchange — the evidence the classifier judges by — and how a network error
 * is read from the cause chain undici wraps it in.
 */
import { oneLine } from '../common/redact.ts';
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
  /** The server answered, but not in HTTP/1.1 (an SSH banner, TLS on an http:// URL, HTTP/2 only, an unasked 101): `code` says what came. */
  | 'not_http'
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
  /** Where a 3xx pointed, whole as it is shown (`shownUrl`: query values and keys that look like one masked, no userinfo or fragment). */
  location?: string | null;
  /**
   * The request's URL as shown, and the URLs of the redirects that led to it: a request the client sent
   * after following a 3xx carries the chain so far, so a classifier counts hops and names each `Location`.
   */
  hops?: readonly string[];
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
  /** The JSON text of the message that answered a `tools/call` (its numbers as the server wrote them) or a `tools/list` page. */
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

const MALFORMED_LENGTH =
  'a malformed HTTP answer: its headers cannot frame the body (two Content-Length headers, a list of lengths, Content-Length beside Transfer-Encoding, or a length out of range), which HTTP/1.1 forbids a client to read';

/**
 * An answer undici's HTTP/1.1 parser refused, in words with its first bytes (escaped) and what they
 * look like — or null when the failure was not one. A server that answered is never "cannot connect".
 */
export function notHttp(e: unknown): string | null {
  for (let cur: unknown = e, depth = 0; cur && depth < 8; cur = (cur as { cause?: unknown }).cause, depth++) {
    const c = cur as { name?: unknown; message?: unknown; data?: unknown; code?: unknown };
    if (c.code === 'UND_ERR_SOCKET' && c.message === 'bad upgrade')
      return 'the server answered 101 Switching Protocols to a request that asked for no upgrade';
    // Before the headers completed (the wire sees only fetch's own rejection here, never a body's), this
    // is llhttp refusing the head's framing, which undici reports as a length mismatch: a body cut short
    // is an error of the body instead (body.ts), after the headers.
    if (c.code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return MALFORMED_LENGTH;
    if (c.name !== 'HTTPParserError') continue;
    const why = typeof c.message === 'string' ? (/\(([^)]*)\)\s*$/.exec(c.message)?.[1] ?? c.message) : 'unparsable';
    const data = typeof c.data === 'string' ? c.data : '';
    // Cut through oneLine (its ellipsis): a server that echoes the request may echo a header's secret.
    const began = data ? `; it began "${oneLine(escaped(data.slice(0, 64)), 32)}"` : '';
    return `the answer is not HTTP/1.1 (${escaped(String(why)).slice(0, 80)})${began}${looksLike(data)}`;
  }
  return null;
}

/** Control and non-ASCII characters as code points: a banner's bytes may be anything. */
function escaped(s: string): string {
  return s.replace(/[^\x20-\x21\x23-\x7e]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function looksLike(data: string): string {
  const b0 = data.charCodeAt(0);
  if ((b0 === 0x15 || b0 === 0x16) && data.charCodeAt(1) === 0x03) return ' — a TLS server: the URL should be https://';
  if (data.startsWith('SSH-')) return ' — an SSH server: check the port';
  // An HTTP/2 frame header (a SETTINGS frame, type 4, on stream 0): the server speaks HTTP/2 only.
  if (data.length >= 9 && data.charCodeAt(3) === 0x04 && data.slice(5, 9) === '\0\0\0\0')
    return ' — HTTP/2 only (prior knowledge); the canary speaks HTTP/1.1';
  return '';
}
