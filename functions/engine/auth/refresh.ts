/**
 * One refresh-token request, with the MCP client SDK's `refreshAuthorization` (it sends `resource`,
 * picks the client authentication the server supports and keeps the old refresh token when none is
 * returned). Written here only what the SDK does not do: reading `refresh_expires_in` (its token schema
 * strips it), and sorting a failure into whose it is:
 * - `refused`: the authorization server said the grant is gone (`invalid_grant`: revoked, expired,
 *   consent withdrawn; or the client is gone: `invalid_client`, `unauthorized_client`), or that only a
 *   person can go on (`access_denied`, `consent_required`, `interaction_required`, `login_required`:
 *   what servers answer a refresh after consent was withdrawn or a new sign-in, MFA or consent is
 *   demanded), or that the grant no longer covers its scope (`invalid_scope`: a refresh sends none of
 *   its own). That is the canary's own credential, and only a person can mend it: `mcp-canary login`
 *   again. Retrying cannot mend any of them, so none is left to page the endpoint's owner once the
 *   access token expires.
 * - `unavailable`: no answer, a 5xx, `temporarily_unavailable`, anything else. Agents meet that too;
 *   the refresher tries again on its next run, and the access token in hand stays good until it expires.
 */
import { OAuthError, refreshAuthorization, type AuthorizationServerMetadata } from '@modelcontextprotocol/client';
import { oneLine, Redactor } from '../../base/common/redact.ts';
import type { StoredGrant } from '../../base/config/schema/oauth-delegated.ts';
import { errorCode, networkErrorKind } from '../../base/net/exchange.ts';
import type { FetchLike } from '../../base/net/wire.ts';
import { jwtExpiry } from './expiry.ts';
import { learningFetch } from './oauth-fetch.ts';
import { dpopDemanded, notBearer } from './token-type.ts';
import { DEFAULT_TOKEN_LIFETIME_MS } from './tokens.ts';

export type RefreshOutcome =
  | { readonly kind: 'refreshed'; readonly grant: StoredGrant }
  | { readonly kind: 'refused'; readonly detail: string }
  | { readonly kind: 'unavailable'; readonly detail: string };

const REFUSED = new Set([
  'invalid_grant',
  'invalid_client',
  'unauthorized_client',
  'invalid_scope',
  'access_denied',
  'consent_required',
  'interaction_required',
  'login_required',
]);

export interface RefreshDeps {
  readonly fetch: FetchLike;
  /** Wall clock in ms. */
  readonly now: () => number;
  /** Hears every token as soon as it arrives, for the Redactor. */
  readonly onSecret: (value: string) => void;
  /** When the config knows the refresh token's lifetime and the server does not say. */
  readonly refreshTokenLifetimeDays?: number | undefined;
}

export async function refreshGrant(grant: StoredGrant, d: RefreshDeps): Promise<RefreshOutcome> {
  if (!grant.refreshToken)
    return {
      kind: 'refused',
      detail: 'the authorization server issued no refresh token at login (ask for offline_access, or a client allowed refresh_token)',
    };
  const endpoint = String(grant.metadata.token_endpoint ?? grant.issuer);
  let refreshExpiresIn: number | undefined;
  let status: number | undefined;
  // The SDK's token schema strips refresh_expires_in: read it from the same answer, beside the SDK.
  const fetchFn: FetchLike = async (url, init) => {
    const res = await learningFetch(d.fetch, d.onSecret)(url, init);
    status = res.status;
    if (res.ok) {
      const raw = (await res
        .clone()
        .json()
        .catch(() => ({}))) as { refresh_expires_in?: unknown };
      if (typeof raw.refresh_expires_in === 'number' && raw.refresh_expires_in > 0) refreshExpiresIn = raw.refresh_expires_in;
    }
    return res;
  };
  const issuedAt = d.now();
  let tokens;
  try {
    tokens = await refreshAuthorization(grant.issuer, {
      metadata: grant.metadata as AuthorizationServerMetadata,
      clientInformation: grant.client,
      refreshToken: grant.refreshToken,
      ...(grant.resource ? { resource: grant.resource } : {}),
      fetchFn,
    });
  } catch (e) {
    // The server's words are stored in the grant, published to every probe region and logged: a token
    // endpoint that quotes the request back (refresh token, client secret) must leave none of it there.
    const own = new Redactor([grant.refreshToken, grant.accessToken, ...(grant.client.client_secret ? [grant.client.client_secret] : [])]);
    const demanded = e instanceof OAuthError ? dpopDemanded(e.code, `token endpoint ${endpoint}`, grant.client.client_id) : null;
    if (demanded) return { kind: 'refused', detail: demanded };
    if (e instanceof OAuthError && REFUSED.has(e.code)) {
      const why = e.message && e.message !== e.code ? `: ${oneLine(own.text(e.message), 160)}` : '';
      return { kind: 'refused', detail: `token endpoint ${endpoint} refused the refresh token: ${e.code}${why}` };
    }
    return { kind: 'unavailable', detail: `token endpoint ${endpoint} did not refresh the grant (${unavailableWords(e, status)})` };
  }
  d.onSecret(tokens.access_token);
  if (tokens.refresh_token) d.onSecret(tokens.refresh_token);
  // A DPoP-bound token would be published and refused by the MCP server on every probe: the canary's own
  // credential (only a change at the authorization server and a new login mend it), never the endpoint's.
  const typeWords = notBearer(tokens.token_type, `token endpoint ${endpoint}`, grant.client.client_id);
  if (typeWords) return { kind: 'refused', detail: typeWords };
  const expiresAt =
    tokens.expires_in !== undefined
      ? issuedAt + tokens.expires_in * 1000
      : (jwtExpiry(tokens.access_token) ?? issuedAt + DEFAULT_TOKEN_LIFETIME_MS);
  // A configured lifetime counts from the login (login.ts stores it); the server's own word wins.
  const refreshExpiresAt =
    refreshExpiresIn !== undefined
      ? new Date(issuedAt + refreshExpiresIn * 1000).toISOString()
      : (grant.refreshExpiresAt ?? refreshLifetimeEnd(issuedAt, d.refreshTokenLifetimeDays));
  const { problem: _problem, lease: _lease, ...rest } = grant;
  return {
    kind: 'refreshed',
    grant: {
      ...rest,
      accessToken: tokens.access_token,
      accessIssuedAt: new Date(issuedAt).toISOString(),
      accessExpiresAt: new Date(expiresAt).toISOString(),
      refreshToken: tokens.refresh_token ?? grant.refreshToken,
      ...(refreshExpiresAt ? { refreshExpiresAt } : {}),
      ...(tokens.scope ? { scope: tokens.scope } : {}),
      generation: grant.generation + 1,
      status: 'ok',
    },
  };
}

/**
 * Why a token endpoint did not answer a refresh, in on-call's words: the OAuth code and the HTTP status,
 * an answer that is not OAuth's (a gateway's HTML page), or what the network said. Never the server's
 * text: it may quote the request back.
 */
function unavailableWords(e: unknown, status: number | undefined): string {
  const http = status !== undefined ? `HTTP ${status}` : undefined;
  // The SDK turns an error answer it cannot parse into server_error, with "Invalid OAuth error response" in its message.
  if (e instanceof OAuthError && !/Invalid OAuth error response/.test(e.message)) return http ? `${http}: ${e.code}` : e.code;
  if (http) return `${http}, not an OAuth token answer`;
  const code = errorCode(e);
  const kind = networkErrorKind(e);
  if (kind === 'timeout') return 'no answer within the request timeout';
  if (kind === 'tls') return `TLS handshake failed (${code})`;
  if (kind === 'unreachable') return `the connection failed (${code})`;
  return oneLine(code, 80);
}

/** When a refresh token issued at `issuedAt` stops working, by the configured lifetime. */
export function refreshLifetimeEnd(issuedAt: number, days: number | undefined): string | undefined {
  return days === undefined ? undefined : new Date(issuedAt + days * 86_400_000).toISOString();
}
