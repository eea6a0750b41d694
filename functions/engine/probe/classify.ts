/**
 * Pure: what a failed request showed → one failure class and one line of detail, as rows: each row
 * recognizes one kind of evidence and classes it, or passes (null); the first row that recognizes the
 * failure decides. No I/O, no state (the shape of the SDK's own probeClassifier). The wire's record
 * comes first because the SDK's errors do not always keep the socket error or the HTTP status; the
 * SDK's errors are read by class and `SdkErrorCode`, never by their message.
 */
import { extractWWWAuthenticateParams, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { oneLine } from '../../base/common/redact.ts';
import type { Fault } from '../../base/common/step.ts';
import { FailureClass } from '../../base/common/verdict.ts';
import { classifyRpcError, rpcErrorOf } from './rpc-error.ts';
import { redirectFault } from './redirects.ts';
import { isTransient, retryAfterMs } from './transient.ts';
import { describeTls } from '../../base/net/tls-wall.ts';
import { errorCode, networkErrorKind, type Exchange } from '../../base/net/wire.ts';

/** A failed request, normalized: the step, what the SDK threw, the wire's record, and the HTTP status either shows. */
export interface RequestFailure {
  readonly what: string;
  readonly error: unknown;
  readonly exchange: Exchange | undefined;
  /** A failed answer's status (3xx and up): from the SDK's error, else from the record. */
  readonly status: number | undefined;
}

export type RequestRow = (f: RequestFailure) => Fault | null;

export function requestFailure(what: string, error: unknown, exchange: Exchange | undefined): RequestFailure {
  const recorded = exchange && exchange.status !== null && exchange.status >= 300 ? exchange.status : undefined;
  return { what, error, exchange, status: httpStatusOf(error) ?? recorded };
}

/** Below HTTP, as the wire recorded it: socket, TLS, timeout, budget, the byte cap, an answer that cannot be the response. */
export const wireRow: RequestRow = ({ what, exchange }) => {
  const wire = exchange?.error;
  if (!wire) return null;
  switch (wire.kind) {
    case 'unreachable':
      return { failure: FailureClass.unreachable, detail: `${what}: cannot connect (${wire.code})`, retryable: true };
    // Through a forward proxy that refused or did not answer: the proxy is named, the endpoint never was reached.
    case 'proxy':
      return {
        failure: FailureClass.unreachable,
        detail: `${what}: ${wire.code}`,
        retryable: !/refused (CONNECT|to forward the request): 4/.test(wire.code),
      };
    case 'tls':
      return {
        failure: FailureClass.tls,
        detail: `${what}: ${describeTls(wire.code, exchange.tlsWall, exchange.clientCertificateSent)}`,
        retryable: false,
      };
    case 'timeout':
      return { failure: FailureClass.timeout, detail: `${what}: no complete answer within the request timeout`, retryable: true };
    case 'budget':
      return { failure: FailureClass.timeout, detail: `${what}: the run's budget ran out`, retryable: false };
    case 'too_large':
      return { failure: FailureClass.protocol, detail: `${what}: response body too large (${wire.code})`, retryable: false };
    // Headers arrived for each of these, so the host was reached: a body cut short is a broken answer, not "cannot connect".
    case 'wrong_id':
    case 'no_answer':
    case 'wrong_answer':
    case 'truncated':
      return { failure: FailureClass.protocol, detail: `${what}: ${wire.code}${answerShape(exchange)}`, retryable: false };
    case 'not_http':
      return { failure: FailureClass.protocol, detail: `${what}: ${wire.code}`, retryable: false };
    case 'other':
      return null;
  }
};

/** A JSON-RPC error the server answered (rpc-error.ts): by its code and the step, unless a non-2xx status decides. */
export const rpcErrorRow: RequestRow = ({ what, error, exchange, status }) => {
  const rpc = rpcErrorOf(error, exchange);
  return rpc ? classifyRpcError(what, rpc, exchange, status ?? exchange?.status ?? undefined) : null;
};

/** A failed HTTP answer without a JSON-RPC error that names its cause. */
export const statusRow: RequestRow = ({ what, exchange, status }) => (status === undefined ? null : classifyStatus(what, status, exchange));

/** The SDK's own request timeout (`REQUEST_TIMEOUT`). */
export const sdkTimeoutRow: RequestRow = ({ what, error }) =>
  error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout
    ? { failure: FailureClass.timeout, detail: `${what}: no answer within the request timeout`, retryable: true }
    : null;

/** A network error the wire did not record, by the innermost code of its cause chain. */
export const networkRow: RequestRow = ({ what, error }) => {
  const kind = networkErrorKind(error);
  if (kind === 'unreachable')
    return { failure: FailureClass.unreachable, detail: `${what}: cannot connect (${errorCode(error)})`, retryable: true };
  if (kind === 'tls') return { failure: FailureClass.tls, detail: `${what}: ${describeTls(errorCode(error), null)}`, retryable: false };
  if (kind === 'timeout') return { failure: FailureClass.timeout, detail: `${what}: timed out (${errorCode(error)})`, retryable: true };
  return null;
};

/** Any other SDK error: the answer is not what MCP says it must be. */
export const sdkErrorRow: RequestRow = ({ what, error, exchange }) =>
  error instanceof SdkError
    ? { failure: FailureClass.protocol, detail: `${what}: ${describeSdkError(error)}${answerShape(exchange)}`, retryable: false }
    : null;

/** Whatever is left: not a valid MCP answer, in the thrower's words. Always recognizes. */
export const notMcpRow: RequestRow = ({ what, error, exchange }) => ({
  failure: FailureClass.protocol,
  detail: `${what}: not a valid MCP answer (${oneLine(error instanceof Error ? error.message : String(error))})${answerShape(exchange)}`,
  retryable: false,
});

/** A classifier's rows, named (for their tests), in the order they are asked; the last recognizes anything. */
export type Rows<F> = ReadonlyArray<readonly [name: string, row: (f: F) => Fault | null]>;

/** What the first row that recognizes `f` says. */
export function firstRow<F>(rows: Rows<F>, f: F): Fault {
  for (const [, row] of rows) {
    const fault = row(f);
    if (fault) return fault;
  }
  throw new TypeError(`no row recognized the failure: the last row of a table must recognize anything (${rows.at(-1)?.[0]})`);
}

export const REQUEST_ROWS: Rows<RequestFailure> = [
  ['wire', wireRow],
  ['JSON-RPC error', rpcErrorRow],
  ['HTTP status', statusRow],
  ['SDK timeout', sdkTimeoutRow],
  ['network error', networkRow],
  ['SDK error', sdkErrorRow],
  ['not MCP', notMcpRow],
];

export function classifyRequest(f: RequestFailure): Fault {
  return firstRow(REQUEST_ROWS, f);
}

export function classifyError(what: string, error: unknown, exchange: Exchange | undefined): Fault {
  return classifyRequest(requestFailure(what, error, exchange));
}

/** What a transient status says, beside it: no evidence about the server's protocol, worth another attempt. */
export const TRANSIENT_WORDS = ' — a transient answer ("not now"), no evidence about the protocol';

/**
 * A failed HTTP answer: the status, the content type and the server's own words (its JSON-RPC error
 * message or the first line of a short text body), so "Access is only allowed at localhost" is not
 * lost behind "check the credentials".
 */
export function classifyStatus(what: string, status: number, exchange?: Exchange): Fault {
  const seen = `HTTP ${status}${answerShape(exchange, false)}`;
  if (status === 401 || status === 403) {
    // An auth wall is a failure, never "the server is up": a probe that treats 401 as healthy cannot
    // see an expired token, and the SDK keeps it out of era negotiation for the same reason.
    const header = exchange?.wwwAuthenticate;
    const challenge = header ? ` (${describeChallenge(header)})` : '';
    const challengeError = header ? challengeParams(header).error : undefined;
    return {
      failure: FailureClass.auth,
      detail: `${what}: ${seen}${challenge} — check the credentials the canary sends`,
      retryable: false,
      status,
      wall: { seen: `${seen}${challenge}`, ...(challengeError ? { challengeError } : {}) },
    };
  }
  const wall = status === 400 ? clientCertificateWall(what, exchange) : null;
  if (wall) return wall;
  if (status >= 300 && status < 400) return redirectFault(what, status, exchange);
  // RFC 9110 §10.2.3: a 503 (maintenance) says when to come back as a 429 does; any status that carries it keeps it.
  const retryAfter = exchange?.retryAfter ? ` (Retry-After: ${oneLine(exchange.retryAfter, 40)})` : '';
  const transient = isTransient(status, exchange?.retryAfter);
  const wait = transient ? retryAfterMs(exchange?.retryAfter) : null;
  return {
    failure: FailureClass.httpStatus,
    detail: `${what}: ${seen}${retryAfter}${transient ? TRANSIENT_WORDS : ''}${statusHint(status, exchange)}`,
    retryable: status >= 500 || transient,
    status,
    ...(wait !== null ? { retryAfterMs: wait } : {}),
  };
}

/**
 * nginx (and what is built on it: ingress-nginx, OpenResty) completes the TLS handshake with
 * `ssl_verify_client on` and answers the missing or refused client certificate in HTTP: `400` with its
 * own page, "400 No required SSL certificate was sent" or "400 The SSL certificate error". The wall is
 * the certificate — `tls`, as on every TLS version — not an HTTP status. Its fixed words are the evidence.
 */
function clientCertificateWall(what: string, x: Exchange | undefined): Fault | null {
  const words = x?.serverWords ?? '';
  const missing = /no required ssl certificate was sent/i.test(words);
  if (!missing && !/the ssl certificate error/i.test(words)) return null;
  const seen = `HTTP 400${answerShape(x, false)}`;
  const detail = x?.clientCertificateSent
    ? `the server refused the client certificate the canary presented (${seen}, nginx's ssl_verify_client): check that tls.clientCertificate is issued by a CA the server trusts and is for this server`
    : `the server requires a client certificate, which the canary does not send (${seen}, nginx's ssl_verify_client); set the target's tls.clientCertificate and tls.clientKey`;
  return { failure: FailureClass.tls, detail: `${what}: ${detail}`, retryable: false, status: 400 };
}

function statusHint(status: number, exchange: Exchange | undefined): string {
  // A POST refused outright is most often the old HTTP+SSE transport's GET-only /sse endpoint.
  if (status === 405 && exchange?.httpMethod === 'POST')
    return ' — the endpoint refuses POST: an HTTP+SSE (2024-11-05) /sse endpoint? The canary speaks Streamable HTTP; point it at that endpoint (often /mcp)';
  // Express's words for a path with no POST route: a wrong path, or an HTTP+SSE endpoint that takes only
  // GET at /mcp (mcp-hub 4's does: its POSTs go to /messages).
  if (status === 404 && exchange?.httpMethod === 'POST' && /^Cannot POST \//.test(exchange.serverWords ?? ''))
    return ' — no POST route at this path: a wrong path, or an HTTP+SSE (2024-11-05) endpoint that takes only GET? The canary speaks Streamable HTTP; point it at the Streamable HTTP endpoint';
  // The 2025 SDKs' one-session transport answers a second initialize so: another client holds its only
  // session. Only a hint, and the server's own words are the evidence: -32600 is every invalid request's code.
  if (
    status === 400 &&
    exchange?.rpcMethod === 'initialize' &&
    exchange.rpcError?.code === -32600 &&
    /already initialized/i.test(exchange.rpcError.message)
  )
    return ' — a server of one session only, which another client holds: the canary opens a fresh session on every run and needs its own';
  return '';
}

/**
 * A 401 challenge in a detail, cut like any server text; its `error` and `resource_metadata` (RFC 9728:
 * where on-call finds the authorization server), read with the SDK's own parser, are kept whole when the
 * cut dropped them (and its error_description).
 */
function describeChallenge(header: string): string {
  const { resourceMetadataUrl, error, errorDescription } = challengeParams(header);
  const shown = oneLine(header, 160);
  const kept = [
    ...(error && !shown.includes(`"${error}"`) ? [`error: ${oneLine(error, 80)}`] : []),
    ...(errorDescription && !shown.includes(errorDescription)
      ? [`error_description: ${JSON.stringify(oneLine(errorDescription, 160))}`]
      : []),
    ...(resourceMetadataUrl && !shown.includes(resourceMetadataUrl.href)
      ? [`resource_metadata: ${oneLine(resourceMetadataUrl.href, 400)}`]
      : []),
  ];
  return `WWW-Authenticate: ${shown}${kept.map((k) => `; ${k}`).join('')}`;
}

/** A challenge's parameters, read with the SDK's own parser. */
function challengeParams(header: string): ReturnType<typeof extractWWWAuthenticateParams> {
  return extractWWWAuthenticateParams(new Response(null, { headers: { 'www-authenticate': header } }));
}

/** ", application/json: \"the server's words\"": what the answer was, for any detail. */
function answerShape(x: Exchange | undefined, withStatus = true): string {
  if (!x) return '';
  const parts: string[] = [];
  if (withStatus && x.status !== null && x.error?.kind !== 'wrong_answer') parts.push(`HTTP ${x.status}`);
  if (x.contentType) parts.push(oneLine(x.contentType.split(';')[0]!, 60));
  const words = x.serverWords ?? (x.status !== null && x.status >= 300 ? x.rpcError?.message : undefined);
  const shape = parts.length ? `, ${parts.join(', ')}` : '';
  const said = words ? `: ${JSON.stringify(oneLine(words, 200))}` : '';
  return withStatus ? (shape || said ? ` (${parts.join(', ')}${said})` : '') : `${shape}${said}`;
}

function httpStatusOf(error: unknown): number | undefined {
  for (let cur: unknown = error, depth = 0; cur && depth < 8; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (cur instanceof SdkHttpError) return cur.status;
    const data = (cur as { data?: { status?: unknown } }).data;
    if (cur instanceof SdkError && typeof data?.status === 'number' && data.status >= 400) return data.status;
  }
  return undefined;
}

function describeSdkError(error: SdkError): string {
  switch (error.code) {
    case SdkErrorCode.ClientHttpUnexpectedContent:
      return `unexpected content type (${oneLine(error.message)})`;
    case SdkErrorCode.InvalidResult:
      return `answer does not match the MCP schema (${oneLine(error.message)})`;
    case SdkErrorCode.EraNegotiationFailed: {
      // The probe's own failure is its data's cause: say that, not the SDK's wrapper words.
      const cause = (error.data as { cause?: unknown } | undefined)?.cause;
      return oneLine(cause instanceof Error ? cause.message : cause !== undefined ? String(cause) : error.message);
    }
    default:
      return `${error.code}: ${oneLine(error.message)}`;
  }
}
