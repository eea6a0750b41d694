/**
 * The one boundary where an AWS SDK v3 error becomes the canary's words: every room that calls AWS
 * (publish, secrets, history, the brief, the run ledger, the refresher through the grant store) reads a
 * failed call here, once, and decides by `kind`, never by the error's message.
 *
 * Built on the SDK's own retry classification (`@smithy/core/retry`, the functions the SDK's retry
 * strategy decides by): throttling is `isThrottlingError` (429, the SDK's throttling codes, the model's
 * throttling trait), and what may pass on a retry is `isTransientError` / `isServerError`. What the SDK
 * does not classify is named here, each rule in one place:
 * - the service's error code (the SDK's `name`) for "not found" and "denied", the two answers a caller
 *   turns into a fix (create it, grant it);
 * - the SDK's own credential-provider errors for "no credentials" (nothing was sent);
 * - Node's socket codes for "never connected", and the SDK's connection timeout, whose handler raises a
 *   `TimeoutError` with no code to tell it from a request timeout: its words are the only evidence, read
 *   here and nowhere else.
 *
 * No secrets: the message is the SDK's, which names resources and codes and never carries a request's
 * values (AWS does not echo a secret's value, a header or a key), flattened to one line and capped.
 */
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { oneLine } from './redact.ts';

/**
 * - `throttled`: the service refused the call for its rate (it answered; nothing was done);
 * - `denied`: the caller may not (AccessDenied…, Unauthorized…, a KMS key it may not use);
 * - `not_found`: what the call names does not exist (ResourceNotFoundException, ParameterNotFound…);
 * - `credentials`: the SDK found no usable credentials on this side, so nothing was sent (a key the
 *   service refuses is the service's answer: `client`, or `denied` by its code);
 * - `not_connected`: the request never reached the service (refused, no DNS, no route, the connection
 *   timeout): nothing was sent;
 * - `timeout`: no answer in time after the connection was made (the request may have arrived);
 * - `server`: a 5xx, or a failure the SDK takes as transient (a reset, a broken pipe): the request may
 *   have arrived;
 * - `client`: any other 4xx answer;
 * - `unknown`: anything else (an abort by the caller, an error that is not the SDK's).
 */
export const AwsErrorKind = {
  throttled: 'throttled',
  denied: 'denied',
  notFound: 'not_found',
  credentials: 'credentials',
  notConnected: 'not_connected',
  timeout: 'timeout',
  server: 'server',
  client: 'client',
  unknown: 'unknown',
} as const;
export type AwsErrorKind = (typeof AwsErrorKind)[keyof typeof AwsErrorKind];

/** A failed AWS call in the canary's words. */
export interface AwsFailure {
  readonly kind: AwsErrorKind;
  /** The SDK's name for it: the service's error code (`ResourceNotFoundException`), `TimeoutError`, `CredentialsProviderError`…; `Error` when it has none. */
  readonly name: string;
  /** The HTTP status the service answered with; undefined when no answer came. */
  readonly status: number | undefined;
  /** The error's message on one line, at most MESSAGE_MAX characters; empty when it has none. */
  readonly message: string;
}

/** The longest message kept: every caller cuts its own words shorter. */
export const MESSAGE_MAX = 300;

/** The SDK's credential-provider errors (@smithy/core/config): the provider chain found nothing usable. */
const NO_CREDENTIALS = new Set(['CredentialsProviderError', 'TokenProviderError']);
/** Node's socket errors before a request is sent: no connection was made. ETIMEDOUT is not one: an open connection can end in it too. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/**
 * The SDK's connection timeout (`requestHandler.connectionTimeout`, @smithy/node-http-handler): the socket
 * never connected. Its handler raises three TimeoutErrors with no code to tell them apart (connect,
 * request, socket idle), so for this one the handler's own words are the only evidence.
 */
const CONNECT_TIMEOUT = /did not establish a connection/;
/** Service error codes (the SDK's `name`) a caller turns into a fix. */
const NOT_FOUND = /NotFound/;
// DecryptionFailure: a batched Secrets Manager read's per-secret code when the caller may not use the secret's KMS key.
const DENIED = /AccessDenied|Unauthorized|KMS|DecryptionFailure/;

type SdkErrorLike = Parameters<typeof isThrottlingError>[0];

/** Any thrown value, read as an AWS SDK v3 error. */
export function awsFailure(e: unknown): AwsFailure {
  if (typeof e !== 'object' || e === null) return { kind: AwsErrorKind.unknown, name: 'Error', status: undefined, message: cut(String(e)) };
  const err = e as SdkErrorLike & { code?: unknown; cause?: unknown };
  const name = typeof err.name === 'string' && err.name ? err.name : 'Error';
  const httpStatus = err.$metadata?.httpStatusCode;
  const status = typeof httpStatus === 'number' ? httpStatus : undefined;
  const message = cut(typeof err.message === 'string' ? err.message : '');
  return { kind: kindOf(err, name, status), name, status, message };
}

/**
 * What may pass if asked again a little later: the service refused for its rate, answered with a 5xx
 * or a reset, did not answer in time, or was never reached. Everything else (denied, not found, another
 * 4xx, no credentials, an error that is not the SDK's) answers the same way until someone changes
 * something. The kinds are the SDK's own retry classification's (see `kindOf`).
 */
export function isTransient(f: Pick<AwsFailure, 'kind'>): boolean {
  return (
    f.kind === AwsErrorKind.throttled ||
    f.kind === AwsErrorKind.server ||
    f.kind === AwsErrorKind.timeout ||
    f.kind === AwsErrorKind.notConnected
  );
}

/** `Name: message`, or the name alone when the message is empty; the message cut to `max`. */
export function awsWords(f: AwsFailure, max = MESSAGE_MAX): string {
  return f.message ? `${f.name}: ${oneLine(f.message, max)}` : f.name;
}

function kindOf(err: SdkErrorLike & { code?: unknown; cause?: unknown }, name: string, status: number | undefined): AwsErrorKind {
  if (NO_CREDENTIALS.has(name)) return AwsErrorKind.credentials;
  if (isThrottlingError(err)) return AwsErrorKind.throttled;
  if (status === undefined) {
    const code = typeof err.code === 'string' ? err.code : '';
    // The SDK's handler renames a refused connection TimeoutError, keeping its code: the code decides first.
    if (NEVER_CONNECTED.has(code) || (name === 'TimeoutError' && CONNECT_TIMEOUT.test(err.message ?? ''))) return AwsErrorKind.notConnected;
    if (name === 'TimeoutError' || code === 'ETIMEDOUT' || timeoutAbort(name, err.cause)) return AwsErrorKind.timeout;
  }
  if (NOT_FOUND.test(name)) return AwsErrorKind.notFound;
  if (DENIED.test(name)) return AwsErrorKind.denied;
  // Every 5xx is one of the two: 500, 502, 503 and 504 are transient to the SDK, the rest its server errors.
  if (isServerError(err) || isTransientError(err)) return AwsErrorKind.server;
  if (status !== undefined && status >= 400) return AwsErrorKind.client;
  return AwsErrorKind.unknown;
}

/** The SDK's AbortError for a signal that `AbortSignal.timeout` ended: its cause is the signal's TimeoutError. */
function timeoutAbort(name: string, cause: unknown): boolean {
  return name === 'AbortError' && (cause as { name?: unknown } | undefined)?.name === 'TimeoutError';
}

function cut(message: string): string {
  return oneLine(message, MESSAGE_MAX);
}
