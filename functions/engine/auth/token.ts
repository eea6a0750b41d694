/**
 * One token request with the MCP client SDK's own providers: `ClientCredentialsProvider`
 * (client_secret_basic) or `PrivateKeyJwtProvider` (RFC 7523 assertion), sent by the SDK's
 * `fetchToken` with the RFC 8707 `resource`. Written here only what they lack: telling the
 * assertion to the Redactor, the expiry time of the token, and a failure that names the token
 * endpoint and the OAuth `error` code.
 */
import { CanaryError, CanaryErrorCode, isCanaryError } from '../../base/common/errors.ts';
import {
  ClientCredentialsProvider,
  fetchToken,
  InsecureTokenEndpointError,
  OAuthError,
  PrivateKeyJwtProvider,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import type { OAuthSettings } from '../../base/config/schema/oauth.ts';
import { oneLine } from '../../base/common/redact.ts';
import { shownUrl } from '../../base/common/shown-url.ts';
import type { FetchLike } from '../../base/net/wire.ts';
import type { AuthServer } from './discovery.ts';
import { jwtExpiry } from './expiry.ts';
import { authError, type AuthHop } from './hops.ts';
import { DEFAULT_TOKEN_LIFETIME_MS, type IssuedToken } from './tokens.ts';
import type { OAuthSecrets } from '../../base/config/load/oauth-secrets.ts';
import { notBearer } from './token-type.ts';

export interface TokenRequest {
  readonly oauth: OAuthSettings;
  readonly secrets: OAuthSecrets;
  readonly server: AuthServer;
  readonly fetch: FetchLike;
  readonly hops: AuthHop[];
  /** Called with every value that must be redacted (the assertion) before it is sent. */
  readonly onSecret: (value: string) => void;
  /** Wall clock in ms. */
  readonly now: () => number;
}

export async function requestToken(r: TokenRequest): Promise<IssuedToken> {
  const { metadata } = r.server;
  const tokenEndpoint = metadata.token_endpoint;
  const provider = buildProvider(r);
  const before = r.hops.length;
  let tokens;
  try {
    tokens = await fetchToken(provider, r.server.authorizationServerUrl, {
      metadata,
      resource: r.server.resource,
      ...(r.oauth.scopes?.length ? { scope: r.oauth.scopes.join(' ') } : {}),
      fetchFn: r.fetch,
    });
  } catch (e) {
    throw tokenFailure(tokenEndpoint, e, r.hops.slice(before));
  }
  const typeWords = notBearer(tokens.token_type, `token endpoint ${tokenEndpoint}`, r.oauth.clientId);
  if (typeWords) throw authError('token_endpoint', typeWords);
  const obtainedAt = r.now();
  const expiresAt =
    tokens.expires_in !== undefined
      ? obtainedAt + tokens.expires_in * 1000
      : (jwtExpiry(tokens.access_token) ?? obtainedAt + DEFAULT_TOKEN_LIFETIME_MS);
  return { accessToken: tokens.access_token, obtainedAt, expiresAt, issuer: metadata.issuer, tokenEndpoint };
}

function buildProvider(r: TokenRequest): OAuthClientProvider {
  const { oauth, secrets } = r;
  const scope = oauth.scopes?.join(' ') || undefined;
  const expectedIssuer = r.server.metadata.issuer;
  if (oauth.privateKeyJwt) {
    if (!secrets.privateKey) throw authError('config', 'auth.oauth.privateKeyJwt.privateKey was not resolved: the run passed no key');
    const provider = new PrivateKeyJwtProvider({
      clientId: oauth.clientId,
      privateKey: secrets.privateKey,
      algorithm: oauth.privateKeyJwt.alg,
      scope,
      expectedIssuer,
    });
    const sign = provider.addClientAuthentication;
    // The assertion is a bearer credential for its lifetime: the Redactor learns it before it is sent.
    provider.addClientAuthentication = async (headers, params, url, metadata) => {
      try {
        await sign(headers, params, url, metadata);
      } catch (e) {
        throw authError(
          'config',
          `auth.oauth.privateKeyJwt.privateKey is not a PKCS#8 PEM private key for ${oauth.privateKeyJwt!.alg} (${(e as Error).name}); export it with \`openssl pkcs8 -topk8 -nocrypt\``,
        );
      }
      const assertion = params.get('client_assertion');
      if (assertion) r.onSecret(assertion);
    };
    return provider;
  }
  if (!secrets.clientSecret) throw authError('config', 'auth.oauth.clientSecret was not resolved: the run passed no secret');
  return new ClientCredentialsProvider({ clientId: oauth.clientId, clientSecret: secrets.clientSecret, scope, expectedIssuer });
}

function tokenFailure(tokenEndpoint: string, e: unknown, hops: readonly AuthHop[]): CanaryError<'AUTH'> {
  if (isCanaryError(e, CanaryErrorCode.auth)) return e;
  const at = `token endpoint ${shown(tokenEndpoint)}`;
  if (isCanaryError(e, CanaryErrorCode.guardRefused)) return authError('token_endpoint', `${at} refused: ${e.data.reason}`, { cause: e });
  if (e instanceof InsecureTokenEndpointError)
    return authError('token_endpoint', `${at} is not https: the canary sends no credentials over plain http`, { cause: e });
  if (e instanceof OAuthError) {
    // The OAuth error code is the reason a human needs (invalid_client, invalid_scope, invalid_target…).
    const status = hops.at(-1)?.status;
    const description = e.message && e.message !== e.code ? `: ${oneLine(e.message, 160)}` : '';
    return authError('token_endpoint', `${at} refused${status ? ` (HTTP ${status})` : ''}: ${e.code}${description}`, { cause: e });
  }
  const hop = hops.at(-1);
  if (hop?.error) return authError('token_endpoint', `${at}: ${hop.error}`, { cause: e });
  const why =
    e instanceof Error && e.name === 'ZodError'
      ? 'the answer is not a token response (no access_token / token_type)'
      : oneLine(e instanceof Error ? e.message : String(e), 160);
  return authError('token_endpoint', `${at}: ${why}`, { cause: e });
}

const shown = shownUrl;
