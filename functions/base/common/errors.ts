/**
 * One error family for the canary's own faults, in the shape of the MCP SDK's
 * `SdkError(code, message, data)` with Powertools' `cause`: every error the canary throws is a
 * `CanaryError` whose `code` says what went wrong and whose `data` (typed per code, below) carries what a
 * caller decides by. A caller switches on the code and reads the data, never the message: the message
 * is for the person reading it. A failing *endpoint* is never thrown: it is a `failed` Verdict.
 *
 * An error of the AWS SDK is read at one boundary (aws-errors.ts) and thrown on in this family, with the
 * code of the room that called AWS (`SECRET`, `GRANT_STORE`, `CONFIG`).
 */
import type { AwsErrorKind } from './aws-errors.ts';

export const CanaryErrorCode = {
  /** A config file, CLI flag, schedule payload or environment variable is invalid; the message names the field and the fix. No data. */
  config: 'CONFIG',
  /**
   * A credential the target needs could not be read (env, file, Secrets Manager, SSM). `data.unavailable`:
   * the store did not answer usably for now (throttled, a 5xx, no answer in time, not reached) and no
   * earlier value was at hand: the run cannot be judged, which is the canary's fault and no verdict.
   * Otherwise the reference or the permission is wrong (a verdict naming the fix). `data.aws`: the AWS
   * error's kind (aws-errors.ts) when AWS answered the read with an error.
   */
  secret: 'SECRET',
  /** The OAuth token step ended without a token. `data.side`: where it broke (see `AuthSide`). */
  auth: 'AUTH',
  /** The SSRF guard refused an OAuth URL. `data.url` (shown by its structure, shown-url.ts) and `data.reason` (one phrase). */
  guardRefused: 'GUARD_REFUSED',
  /**
   * The wire ended an answer that cannot carry the response to its request (a wrong id, a 202, a body
   * over the cap). `data.kind`: the wire's word for it, the same the exchange record holds.
   */
  answerRefused: 'ANSWER_REFUSED',
  /** The run's budget is spent: the abort reason of every request still open. No data. */
  budgetSpent: 'BUDGET_SPENT',
  /** A JSON text breaks JSON's grammar. `data.offset`: where (0-based); the message says what, quoting no value. */
  jsonSyntax: 'JSON_SYNTAX',
  /**
   * A delegated grant's store (a grant file, a Secrets Manager secret) failed: see `GrantStoreProblem`.
   * `data.store`: the store's label (`grant file "…"`, `Secrets Manager secret "…" in eu-west-1`);
   * `data.problem`: what failed; `data.aws`: the AWS error's kind (aws-errors.ts) when AWS answered the
   * read or write with an error. The message names the store and the fix, never a value it holds.
   */
  grantStore: 'GRANT_STORE',
  /**
   * The proxy's CONNECT failed below HTTP (it closed the connection, answered something that is not HTTP,
   * or never answered within the request timeout): the endpoint was not reached. `data.what`: what the
   * proxy did, in words after "the proxy" (`closed the connection without answering CONNECT`). The value
   * is the code the wire recorded before this family held it: an error whose cause carries no code of its
   * own is still named by it (exchange.ts errorCode).
   */
  proxyTunnel: 'MCP_CANARY_PROXY_TUNNEL_FAILED',
  /** No answer reached `mcp-canary login`'s loopback redirect in time. `data.path`: the callback path; `data.waitedMs`. */
  callbackTimeout: 'CALLBACK_TIMEOUT',
} as const;
export type CanaryErrorCode = (typeof CanaryErrorCode)[keyof typeof CanaryErrorCode];

/**
 * Where the token step broke: the metadata chain (`discovery`), the authorization server's token
 * endpoint (`token_endpoint`), or the canary's own configuration (`config`: a key that does not parse, a
 * secret that was not resolved). The first two are the endpoint's `auth` failure; the third makes the
 * verdict `inconclusive`.
 */
export type AuthSide = 'discovery' | 'token_endpoint' | 'config';

/**
 * What failed at a grant store: it cannot be read (`unreadable`) or written (`unwritable`); another run
 * holds its lock (`locked`); it holds something that is not a grant mcp-canary wrote (`not_a_grant`); it
 * changed while a login ran (`changed`); a rotated refresh token could not be stored after every try
 * (`not_stored`: the next refresh may be refused, and a person logs in again).
 */
export type GrantStoreProblem = 'unreadable' | 'unwritable' | 'locked' | 'not_a_grant' | 'changed' | 'not_stored';

/** What `data` holds, per code. */
export interface CanaryErrorData {
  readonly CONFIG: undefined;
  readonly SECRET: { readonly unavailable: boolean; readonly aws?: AwsErrorKind };
  readonly AUTH: { readonly side: AuthSide };
  readonly GUARD_REFUSED: { readonly url: string; readonly reason: string };
  readonly ANSWER_REFUSED: { readonly kind: 'wrong_id' | 'wrong_answer' | 'too_large' };
  readonly BUDGET_SPENT: undefined;
  readonly JSON_SYNTAX: { readonly offset: number };
  readonly GRANT_STORE: { readonly store: string; readonly problem: GrantStoreProblem; readonly aws?: AwsErrorKind };
  readonly MCP_CANARY_PROXY_TUNNEL_FAILED: { readonly what: string };
  readonly CALLBACK_TIMEOUT: { readonly path: string; readonly waitedMs: number };
}

/** `data` then `ErrorOptions`; `data` may be left out for the codes that have none. */
type DataArgs<C extends CanaryErrorCode> = CanaryErrorData[C] extends undefined
  ? [data?: undefined, options?: ErrorOptions]
  : [data: CanaryErrorData[C], options?: ErrorOptions];

export class CanaryError<C extends CanaryErrorCode = CanaryErrorCode> extends Error {
  override readonly name: string = 'CanaryError';
  readonly data: CanaryErrorData[C];

  constructor(
    readonly code: C,
    message: string,
    ...[data, options]: DataArgs<C>
  ) {
    super(message, options);
    this.data = data as CanaryErrorData[C];
  }
}

/** Narrows to the code's own data: `if (isCanaryError(e, CanaryErrorCode.auth) && e.data.side === 'config')`. */
export function isCanaryError<C extends CanaryErrorCode>(e: unknown, code: C): e is CanaryError<C> {
  return e instanceof CanaryError && e.code === code;
}

export function configError(message: string, cause?: unknown): CanaryError<'CONFIG'> {
  return new CanaryError(CanaryErrorCode.config, message, undefined, cause === undefined ? undefined : { cause });
}
