/**
 * Pure: what the wire showed and what the SDK threw → one failure class and one line of detail.
 * No I/O, no state (the shape of the SDK's own probeClassifier). The wire record comes first because
 * the SDK's errors do not always keep the socket error or the HTTP status.
 */
import { extractWWWAuthenticateParams, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { oneLine } from '../common/redact.ts';
import { FailureClass } from '../common/verdict.ts';
import { classifyRpcError, rpcErrorOf } from './rpc-error.ts';
import { describeTls } from '../net/tls-wall.ts';
import { errorCode, networkErrorKind, type Exchange } from '../net/wire.ts';

export interface Classified {
  readonly failure: FailureClass;
  readonly detail: string;
  /** Worth another attempt within the run (unreachable, timeout, 5xx); never for auth or answers. */
  readonly retryable: boolean;
  /** HTTP status, when the failure was one. */
  readonly status?: number;
}

export function classifyError(what: string, error: unknown, exchange: Exchange | undefined): Classified {
  const wire = exchange?.error;
  if (wire) {
    switch (wire.kind) {
      case 'unreachable':
        return { failure: FailureClass.unreachable, detail: `${what}: cannot connect (${wire.code})`, retryable: true };
      case 'tls':
        return { failure: FailureClass.tls, detail: `${what}: ${describeTls(wire.code, exchange.tlsWall)}`, retryable: false };
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
  const status = httpStatusOf(error) ?? (exchange?.status !== null && exchange && exchange.status >= 300 ? exchange.status : undefined);
  const rpc = rpcErrorOf(error, exchange);
  const byCode = rpc ? classifyRpcError(what, rpc, exchange, status ?? exchange?.status ?? undefined) : null;
  if (byCode) return byCode;
  if (status !== undefined) return classifyStatus(what, status, exchange);

  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return { failure: FailureClass.timeout, detail: `${what}: no answer within the request timeout`, retryable: true };
  }
  const kind = networkErrorKind(error);
  if (kind === 'unreachable')
    return { failure: FailureClass.unreachable, detail: `${what}: cannot connect (${errorCode(error)})`, retryable: true };
  if (kind === 'tls') return { failure: FailureClass.tls, detail: `${what}: ${describeTls(errorCode(error), null)}`, retryable: false };
  if (kind === 'timeout') return { failure: FailureClass.timeout, detail: `${what}: timed out (${errorCode(error)})`, retryable: true };

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
    const challenge = exchange?.wwwAuthenticate ? ` (${describeChallenge(exchange.wwwAuthenticate)})` : '';
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
  // RFC 9110 §10.2.3: a 503 (maintenance) says when to come back as a 429 does; any status that carries it keeps it.
  const retryAfter = exchange?.retryAfter ? ` (Retry-After: ${oneLine(exchange.retryAfter, 40)})` : '';
  return {
    failure: FailureClass.httpStatus,
    detail: `${what}: ${seen}${retryAfter}${statusHint(status, exchange)}`,
    retryable: status >= 500,
    status,
  };
}

function statusHint(status: number, exchange: Exchange | undefined): string {
  // A POST refused outright is most often the old HTTP+SSE transport's GET-only /sse endpoint.
  if (status === 405 && exchange?.httpMethod === 'POST')
    return ' — the endpoint refuses POST: an HTTP+SSE (2024-11-05) /sse endpoint? The canary speaks Streamable HTTP; point it at that endpoint (often /mcp)';
  // The 2025 SDKs' one-session transport answers a second initialize so: another client holds its only session.
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
  const { resourceMetadataUrl, error, errorDescription } = extractWWWAuthenticateParams(
    new Response(null, { headers: { 'www-authenticate': header } }),
  );
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
    case SdkErrorCode.EraNegotiationFailed:
      return oneLine(error.message.replace(/^Version negotiation probe failed: /, ''));
    default:
      return `${error.code}: ${oneLine(error.message)}`;
  }
}
