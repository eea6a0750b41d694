/**
 * Why the token step ended without a token, and on which side: the metadata chain (`discovery`),
 * the authorization server's token endpoint (`token_endpoint`), or the canary's own configuration
 * (`config`: a key that does not parse, a secret that was not resolved). The first two are the
 * endpoint's `auth` failure; the third makes the verdict `inconclusive`.
 */
export type AuthSide = 'discovery' | 'token_endpoint' | 'config';

export class AuthStepError extends Error {
  override readonly name = 'AuthStepError';
  constructor(
    readonly side: AuthSide,
    /** One line, starting with the side: "discovery: …", "token endpoint https://…: …". */
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
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
