/**
 * Pure: what the wire showed and what the SDK threw → one failure class and one line of detail.
 * No I/O, no state (the shape of the SDK's own probeClassifier). The wire record comes first because
 * the SDK's errors do not always keep the socket error or the HTTP status.
 */
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client';
import { oneLine } from '../redact.ts';
import { FailureClass, Revision } from '../verdict.ts';
import { errorCode, networkErrorKind, type Exchange } from './wire.ts';

export interface Classified {
  readonly failure: FailureClass;
  readonly detail: string;
  /** Worth another attempt within the run (unreachable, timeout, 5xx); never for auth or answers. */
  readonly retryable: boolean;
  /** HTTP status, when the failure was one. */
  readonly status?: number;
}

/** JSON-RPC code for "unsupported protocol version" on 2026-07-28 (`data.supported`, `data.requested`). */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** JSON-RPC code for "the client capabilities do not declare the required capability" (`data.requiredCapabilities`). */
const MISSING_CLIENT_CAPABILITY = -32021;

export function classifyError(what: string, error: unknown, exchange: Exchange | undefined): Classified {
  const wire = exchange?.error;
  if (wire) {
    switch (wire.kind) {
      case 'unreachable':
        return { failure: FailureClass.unreachable, detail: `${what}: cannot connect (${wire.code})`, retryable: true };
      case 'tls':
        return { failure: FailureClass.tls, detail: `${what}: TLS handshake failed (${wire.code})`, retryable: false };
      case 'timeout':
        return { failure: FailureClass.timeout, detail: `${what}: no complete answer within the request timeout`, retryable: true };
      case 'budget':
        return { failure: FailureClass.timeout, detail: `${what}: the run's budget ran out`, retryable: false };
      case 'too_large':
        return { failure: FailureClass.protocol, detail: `${what}: response body too large (${wire.code})`, retryable: false };
      case 'wrong_id':
      case 'no_answer':
      case 'wrong_answer':
        return { failure: FailureClass.protocol, detail: `${what}: ${wire.code}${answerShape(exchange)}`, retryable: false };
      case 'truncated':
        // Headers arrived, so the host was reached: a body cut short is a broken answer, not "cannot connect".
        return { failure: FailureClass.protocol, detail: `${what}: ${wire.code}${answerShape(exchange)}`, retryable: false };
      case 'other':
        break;
    }
  }
  const evidence = byRpcError(what, error, exchange);
  if (evidence) return evidence;
  const status = httpStatusOf(error) ?? (exchange?.status !== null && exchange && exchange.status >= 300 ? exchange.status : undefined);
  if (status !== undefined) return classifyStatus(what, status, exchange);

  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return { failure: FailureClass.timeout, detail: `${what}: no answer within the request timeout`, retryable: true };
  }
  const kind = networkErrorKind(error);
  if (kind === 'unreachable')
    return { failure: FailureClass.unreachable, detail: `${what}: cannot connect (${errorCode(error)})`, retryable: true };
  if (kind === 'tls') return { failure: FailureClass.tls, detail: `${what}: TLS handshake failed (${errorCode(error)})`, retryable: false };
  if (kind === 'timeout') return { failure: FailureClass.timeout, detail: `${what}: timed out (${errorCode(error)})`, retryable: true };

  if (error instanceof ProtocolError) {
    return { failure: FailureClass.protocol, detail: `${what}: JSON-RPC error ${error.code}: ${oneLine(error.message)}`, retryable: false };
  }
  if (error instanceof SdkError) {
    return { failure: FailureClass.protocol, detail: `${what}: ${describeSdkError(error)}${answerShape(exchange)}`, retryable: false };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    failure: FailureClass.protocol,
    detail: `${what}: not a valid MCP answer (${oneLine(message)})${answerShape(exchange)}`,
    retryable: false,
  };
}

/**
 * A failed HTTP answer: the status, the content type and the server's own words (its JSON-RPC error
 * message or the first line of a short text body), so "Access is only allowed at localhost" is not
 * lost behind "check the credentials".
 */
export function classifyStatus(what: string, status: number, exchange?: Exchange): Classified {
  const seen = `HTTP ${status}${answerShape(exchange, false)}`;
  if (status === 401 || status === 403) {
    // An auth wall is a failure, never "the server is up": a probe that treats 401 as healthy cannot
    // see an expired token, and the SDK keeps it out of era negotiation for the same reason.
    const challenge = exchange?.wwwAuthenticate ? ` (WWW-Authenticate: ${oneLine(exchange.wwwAuthenticate, 120)})` : '';
    return {
      failure: FailureClass.auth,
      detail: `${what}: ${seen}${challenge} — check the credentials the canary sends`,
      retryable: false,
      status,
    };
  }
  if (status >= 300 && status < 400) {
    if (exchange?.redirectSameOrigin) {
      return {
        failure: FailureClass.httpStatus,
        detail: `${what}: HTTP ${status} redirects within the endpoint's own origin never reach an answer (a redirect loop?) — fix the server's redirects or configure the final URL`,
        retryable: false,
        status,
      };
    }
    // Redirects are followed within the endpoint's origin only, so headers never travel elsewhere.
    const to = exchange?.redirectTo ? ` to ${exchange.redirectTo}` : '';
    return {
      failure: FailureClass.httpStatus,
      detail: `${what}: HTTP ${status} redirect${to} not followed (the canary stays on the endpoint's origin; configure the final URL)`,
      retryable: false,
      status,
    };
  }
  const retryAfter = status === 429 && exchange?.retryAfter ? ` (Retry-After: ${oneLine(exchange.retryAfter, 40)})` : '';
  // A POST refused outright is most often the old HTTP+SSE transport's GET-only /sse endpoint.
  const hint =
    status === 405 && exchange?.httpMethod === 'POST'
      ? ' — the endpoint refuses POST: an HTTP+SSE (2024-11-05) /sse endpoint? The canary speaks Streamable HTTP; point it at that endpoint (often /mcp)'
      : '';
  return { failure: FailureClass.httpStatus, detail: `${what}: ${seen}${retryAfter}${hint}`, retryable: status >= 500, status };
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

/**
 * JSON-RPC errors that name their cause, whether they came as a 200 or inside a 4xx: the class follows
 * the code, not the status.
 */
function byRpcError(what: string, error: unknown, x: Exchange | undefined): Classified | null {
  const code = error instanceof ProtocolError ? error.code : x?.rpcError?.code;
  const data = (error instanceof ProtocolError ? error.data : x?.rpcError?.data) as Record<string, unknown> | undefined;
  const message = error instanceof ProtocolError ? error.message : (x?.rpcError?.message ?? '');
  if (code === MISSING_CLIENT_CAPABILITY) {
    const caps =
      data && typeof data.requiredCapabilities === 'object' && data.requiredCapabilities ? Object.keys(data.requiredCapabilities) : [];
    const named = caps.length ? `the client capability ${caps.map((c) => oneLine(c, 40)).join(', ')}` : 'a client capability';
    return {
      failure: FailureClass.toolError,
      detail: `${what}: the server requires ${named}, which the canary does not declare (-32021: ${oneLine(message, 160)}) — a canary tool must answer unattended`,
      retryable: false,
    };
  }
  if (code === UNSUPPORTED_PROTOCOL_VERSION) {
    const supported = Array.isArray(data?.supported) ? data.supported.filter((v): v is string => typeof v === 'string') : [];
    const offers = supported.length
      ? `the server supports only ${supported.map((v) => oneLine(v, 40)).join(', ')}`
      : 'the server does not support the requested revision';
    return {
      failure: FailureClass.revision,
      detail: `${what}: ${offers}; the canary speaks ${SPOKEN} (-32022: ${oneLine(message, 160)})`,
      retryable: false,
    };
  }
  return null;
}

/** The revisions the canary's client speaks (the SDK's list), for revision details. */
export const SPOKEN = [Revision.modern, ...SUPPORTED_PROTOCOL_VERSIONS].join(', ');

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
    case SdkErrorCode.EraNegotiationFailed:
      return oneLine(error.message.replace(/^Version negotiation probe failed: /, ''));
    default:
      return `${error.code}: ${oneLine(error.message)}`;
  }
}
