/**
 * The requests of the token step, for the detail ("GET https://a/x → 404"), and its one error: a
 * `CanaryError` with code `AUTH` whose `data.side` says where it broke (common/errors.ts, `AuthSide`).
 */
import { CanaryError, CanaryErrorCode, type AuthSide } from '../../base/common/errors.ts';

/** The token step ended without a token; `message` is one line, starting with the side ("discovery: …"). */
export function authError(side: AuthSide, message: string, options?: ErrorOptions): CanaryError<'AUTH'> {
  return new CanaryError(CanaryErrorCode.auth, message, { side }, options);
}

/** One request of the token step, for the detail: where it went and what came back. */
export interface AuthHop {
  readonly url: string;
  status: number | null;
  error: string | null;
}

/** "GET https://a/x → 404, GET https://a/y → ECONNREFUSED": what discovery tried, for the detail. */
export function describeHops(hops: readonly AuthHop[]): string {
  return hops.map((h) => `${h.url} → ${h.status ?? h.error ?? 'no answer'}`).join(', ');
}
