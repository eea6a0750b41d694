/**
 * Pure: what the wire showed and what the SDK threw → one failure class and one line of detail.
 * No I/O, no state (the shape of the SDK's own probeClassifier). The wire record comes first because
 * the SDK's errors do not always keep the socket error or the HTTP status.
 */
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { oneLine } from '../redact.ts';
import { FailureClass } from '../verdict.ts';
import { errorCode, networkErrorKind, type Exchange } from './wire.ts';

export interface Classified {
  readonly failure: FailureClass;
  readonly detail: string;
  /** Worth another attempt within the run (unreachable, timeout, 5xx); never for auth or answers. */
  readonly retryable: boolean;
  /** HTTP status, when the failure was one. */
  readonly status?: number;
}

/** JSON-RPC code for "unsupported protocol version" on 2026-07-28. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

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
        return { failure: FailureClass.protocol, detail: `${what}: ${wire.code}`, retryable: false };
      case 'other':
        break;
    }
  }
  const status = httpStatusOf(error) ?? (exchange?.status !== null && exchange && exchange.status >= 400 ? exchange.status : undefined);
  if (status !== undefined) return classifyStatus(what, status, exchange);

  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return { failure: FailureClass.timeout, detail: `${what}: no answer within the request timeout`, retryable: true };
  }
  const kind = networkErrorKind(error);
  if (kind === 'unreachable') return { failure: FailureClass.unreachable, detail: `${what}: cannot connect (${errorCode(error)})`, retryable: true };
  if (kind === 'tls') return { failure: FailureClass.tls, detail: `${what}: TLS handshake failed (${errorCode(error)})`, retryable: false };
  if (kind === 'timeout') return { failure: FailureClass.timeout, detail: `${what}: timed out (${errorCode(error)})`, retryable: true };

  if (error instanceof ProtocolError) {
    if (error.code === UNSUPPORTED_PROTOCOL_VERSION) {
      return { failure: FailureClass.revision, detail: `${what}: server does not support the requested revision (${oneLine(error.message)})`, retryable: false };
    }
    return { failure: FailureClass.protocol, detail: `${what}: JSON-RPC error ${error.code}: ${oneLine(error.message)}`, retryable: false };
  }
  if (error instanceof SdkError) {
    return { failure: FailureClass.protocol, detail: `${what}: ${describeSdkError(error)}`, retryable: false };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { failure: FailureClass.protocol, detail: `${what}: not a valid MCP answer (${oneLine(message)})`, retryable: false };
}

export function classifyStatus(what: string, status: number, exchange?: Exchange): Classified {
  const type = exchange?.contentType ? `, ${exchange.contentType.split(';')[0]}` : '';
  if (status === 401 || status === 403) {
    // An auth wall is a failure, never "the server is up": a probe that treats 401 as healthy cannot
    // see an expired token, and the SDK keeps it out of era negotiation for the same reason.
    const challenge = exchange?.wwwAuthenticate ? ` (WWW-Authenticate: ${oneLine(exchange.wwwAuthenticate, 120)})` : '';
    return { failure: FailureClass.auth, detail: `${what}: HTTP ${status}${challenge} — check the credentials the canary sends`, retryable: false, status };
  }
  if (status >= 300 && status < 400) {
    // Redirects are followed within the endpoint's origin only, so headers never travel elsewhere.
    const to = exchange?.redirectTo ? ` to ${exchange.redirectTo}` : '';
    return { failure: FailureClass.httpStatus, detail: `${what}: HTTP ${status} redirect${to} not followed (the canary stays on the endpoint's origin; configure the final URL)`, retryable: false, status };
  }
  const retryAfter = status === 429 && exchange?.retryAfter ? ` (Retry-After: ${exchange.retryAfter})` : '';
  return { failure: FailureClass.httpStatus, detail: `${what}: HTTP ${status}${type}${retryAfter}`, retryable: status >= 500, status };
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
    case SdkErrorCode.EraNegotiationFailed:
      return oneLine(error.message.replace(/^Version negotiation probe failed: /, ''));
    default:
      return `${error.code}: ${oneLine(error.message)}`;
  }
}

