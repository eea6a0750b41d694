/**
 * `mcp-canary login <url>`: the MCP authorization spec's flow, run once by a person. It starts where the
 * spec starts, at the MCP server itself: its 401 challenge names the protected resource metadata URL and
 * the scope to ask for (challenge.ts). The MCP client SDK's `auth()` then does the spec's work: RFC 9728
 * protected resource metadata (that URL, else the well-known ones), RFC 8414 / OpenID discovery with the
 * issuer check, the client (a pre-registered id, a Client ID Metadata Document URL where the server
 * supports it, else dynamic registration), PKCE S256, `resource` (RFC 8707) on the authorization and token
 * requests, and the RFC 9207 `iss` check. Hand-written here only what `auth()` leaves to its provider:
 * where the browser goes (a loopback listener, the URL printed), `state` (made and checked here: the SDK
 * only passes it through), what the metadata must hold before anyone is sent anywhere (login-checks.ts:
 * PKCE S256 advertised, every endpoint past the SSRF guard), and keeping what it learned as a grant.
 */
import { randomBytes } from 'node:crypto';
import {
  auth,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { CanaryError, CanaryErrorCode, isCanaryError } from '../../base/common/errors.ts';
import type { GuardOptions } from '../../base/net/ssrf-guard.ts';
import { oneLine } from '../../base/common/redact.ts';
import { shownUrl } from '../../base/common/shown-url.ts';
import type { Reach } from '../../base/common/run-context.ts';
import type { AuthorizationCodeSettings, StoredGrant } from '../../base/config/schema/oauth-delegated.ts';
import { errorCode, networkErrorKind } from '../../base/net/exchange.ts';
import { listenForCallback } from '../../base/net/loopback.ts';
import { proxyFailure } from '../../base/net/proxy-words.ts';
import { proxyUrlOf } from '../../base/net/reach.ts';
import type { FetchLike } from '../../base/net/wire.ts';
import { jwtExpiry } from './expiry.ts';
import { askChallenge } from './challenge.ts';
import { guardEndpoints, guardResourceMetadataUrl, loginError, requirePkce } from './login-checks.ts';
import { learningFetch, oauthGuard, withOAuthFetch } from './oauth-fetch.ts';
import { refreshLifetimeEnd } from './refresh.ts';
import { dpopDemanded, notBearer } from './token-type.ts';
import { DEFAULT_TOKEN_LIFETIME_MS } from './tokens.ts';

/** A person has this long to sign in and consent. */
export const LOGIN_WAIT_MS = 5 * 60_000;

export interface LoginOptions {
  readonly serverUrl: string;
  readonly settings: Pick<
    AuthorizationCodeSettings,
    'clientId' | 'clientMetadataUrl' | 'scopes' | 'refreshTokenLifetimeDays' | 'allowPrivateNetwork'
  >;
  /** Shown the authorization URL: print it, open a browser. */
  readonly onAuthorizationUrl: (url: URL) => void | Promise<void>;
  /** Hears every secret as it arrives (tokens, a registered client's secret), for the Redactor. */
  readonly onSecret: (value: string) => void;
  /** @default LOGIN_WAIT_MS */
  readonly waitMs?: number;
  /** Per-request timeout. @default 10 s */
  readonly timeoutMs?: number;
  /** Tests: a fetch used as given (still through the SSRF guard). */
  readonly fetch?: FetchLike;
  /** The proxy (and private CAs) the authorization server is reached through. @default - direct */
  readonly reach?: Reach | undefined;
  readonly now?: () => number;
}

export async function login(o: LoginOptions): Promise<StoredGrant> {
  const callback = await listenForCallback();
  const failed = new WeakMap<object, URL>();
  const now = o.now ?? Date.now;
  try {
    const reachOf = { allowPrivateNetwork: o.settings.allowPrivateNetwork, serverUrl: o.serverUrl, reach: o.reach };
    const provider = new LoginProvider(callback.redirectUrl, o, oauthGuard(reachOf));
    return await withOAuthFetch(
      { ...reachOf, timeoutMs: o.timeoutMs ?? 10_000, ...(o.fetch ? { fetch: o.fetch } : {}) },
      async (guarded) => {
        // The SDK says only "fetch failed" when a request gets no answer: which URL, and why, are kept here.
        const learning = learningFetch(guarded, o.onSecret);
        const fetchFn: FetchLike = async (url, init) => {
          try {
            return await learning(url, init);
          } catch (e) {
            if (typeof e === 'object' && e !== null) failed.set(e, new URL(String(url)));
            throw e;
          }
        };
        const step = <T>(what: string, run: () => Promise<T>) => stepOf(what, run, failed, proxyUrlOf(o.reach?.proxy));
        // The server's own challenge first: its resource_metadata URL (used before the well-known ones) and its scope.
        const challenge = await step('the 401 challenge', () => askChallenge(o.serverUrl, {}, fetchFn));
        if (challenge.resourceMetadataUrl) await guardResourceMetadataUrl(challenge.resourceMetadataUrl, provider.guard);
        // Scopes: the configured ones, else the challenge's (authoritative, least privilege), else the SDK's
        // fallback to the metadata's scopes_supported (the spec's scope selection strategy).
        const scope = o.settings.scopes?.join(' ') || challenge.scope;
        const discovered = {
          serverUrl: o.serverUrl,
          fetchFn,
          ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
          ...(scope ? { scope } : {}),
        };
        const first = await step('discovery and authorization', () => auth(provider, discovered));
        if (first !== 'REDIRECT' || !provider.authorizationUrl)
          throw loginError('the SDK finished without asking for an authorization: nothing to log in to');
        await o.onAuthorizationUrl(provider.authorizationUrl);
        const answer = await callback.wait(o.waitMs ?? LOGIN_WAIT_MS).catch((e: Error) => {
          throw loginError(`${e.message}: open the URL above, sign in and consent, then try again`);
        });
        const error = answer.get('error');
        if (error) {
          const why = answer.get('error_description') ? `: ${oneLine(answer.get('error_description')!, 160)}` : '';
          const fix = error === 'access_denied' ? ' (consent was declined): run the login again and consent' : '';
          throw loginError(`the authorization server answered ${error}${why}${fix}`);
        }
        // state: the answer belongs to this login, not to a request someone else started (CSRF, RFC 6749 §10.12).
        if (answer.get('state') !== provider.stateValue)
          throw loginError('the answer carries another state than this login sent: ignored. Start the login again');
        const code = answer.get('code');
        if (!code) throw loginError('the answer carries no authorization code');
        o.onSecret(code);
        const iss = answer.get('iss') ?? undefined;
        await step('token exchange', () => auth(provider, { ...discovered, authorizationCode: code, ...(iss ? { iss } : {}) }));
        return provider.grant(o.serverUrl, now(), o.settings.refreshTokenLifetimeDays);
      },
    );
  } finally {
    await callback.close();
  }
}

/** The SDK's provider interface, in memory for one login. */
class LoginProvider implements OAuthClientProvider {
  readonly stateValue = randomBytes(32).toString('base64url');
  authorizationUrl: URL | undefined;
  readonly clientMetadataUrl: string | undefined;
  private client: StoredOAuthClientInformation | undefined;
  private saved: StoredOAuthTokens | undefined;
  private verifier = '';
  private discovery: OAuthDiscoveryState | undefined;
  private resource: string | undefined;

  constructor(
    readonly redirectUrl: string,
    private readonly o: LoginOptions,
    readonly guard: GuardOptions,
  ) {
    this.clientMetadataUrl = o.settings.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'mcp-canary',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A public client: the canary has no secret to keep; PKCE binds the code to this login.
      token_endpoint_auth_method: 'none',
      ...(this.o.settings.scopes?.length ? { scope: this.o.settings.scopes.join(' ') } : {}),
    };
  }
  state(): string {
    return this.stateValue;
  }
  clientInformation(ctx?: { issuer: string }): StoredOAuthClientInformation | undefined {
    // A pre-registered client belongs to the issuer discovery found (the SDK's SEP-2352 stamp).
    if (!this.client && this.o.settings.clientId)
      this.client = { client_id: this.o.settings.clientId, ...(ctx ? { issuer: ctx.issuer } : {}) };
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation): void {
    if (info.client_secret) this.o.onSecret(info.client_secret);
    this.client = info;
  }
  tokens(): StoredOAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this.o.onSecret(tokens.access_token);
    if (tokens.refresh_token) this.o.onSecret(tokens.refresh_token);
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string): void {
    // The verifier redeems the code: a token endpoint that quotes the request back must not show it.
    this.o.onSecret(v);
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  async saveDiscoveryState(s: OAuthDiscoveryState): Promise<void> {
    // auth() saves what discovery found before it registers a client or builds the authorization URL.
    // Without authorization server metadata it would go on with guessed endpoints on the MCP server's
    // own origin (/register, /authorize, /token): a registration POSTed to the MCP server, a person
    // sent to a page that does not exist, and a grant the refresher could not renew. Said here, first.
    if (!s.authorizationServerMetadata) throw loginError(noMetadataWords(this.o.serverUrl, s));
    const m = s.authorizationServerMetadata;
    requirePkce(m);
    const cimd = m.client_id_metadata_document_supported === true && this.clientMetadataUrl !== undefined;
    await guardEndpoints(m, this.guard, !this.o.settings.clientId && !cimd);
    if (!this.o.settings.clientId && !cimd && !m.registration_endpoint) {
      throw loginError(
        `${m.issuer} registers no clients itself (no registration_endpoint${this.clientMetadataUrl ? ', and no Client ID Metadata Document support' : ''}): register a client for the canary there and give its id (--client-id, auth.authorizationCode.clientId)${m.client_id_metadata_document_supported === true ? ', or a Client ID Metadata Document URL (--client-metadata-url)' : ''}`,
      );
    }
    this.discovery = s;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
  saveResourceUrl(resource: string): void {
    this.resource = resource;
  }

  grant(serverUrl: string, issuedAt: number, lifetimeDays: number | undefined): StoredGrant {
    const t = this.saved;
    const metadata = this.discovery?.authorizationServerMetadata;
    if (!metadata)
      throw loginError(
        'the authorization server publishes no metadata (RFC 8414 / OpenID discovery): the refresher could not find its token endpoint later',
      );
    if (!t || !this.client) throw loginError('the token exchange ended without tokens');
    // Kept as a grant, a DPoP-bound token would be published to every probe and refused there as the endpoint's auth.
    const typeWords = notBearer(t.token_type, `the authorization server ${metadata.issuer}`, this.client.client_id);
    if (typeWords) throw loginError(`${typeWords}, then run the login again. No grant was stored`);
    const expiresAt =
      t.expires_in !== undefined ? issuedAt + t.expires_in * 1000 : (jwtExpiry(t.access_token) ?? issuedAt + DEFAULT_TOKEN_LIFETIME_MS);
    const refreshExpiresAt = refreshLifetimeEnd(issuedAt, lifetimeDays);
    return {
      v: 1,
      serverUrl,
      issuer: metadata.issuer,
      metadata: metadata as unknown as Record<string, unknown>,
      ...(this.resource ? { resource: this.resource } : {}),
      ...(t.scope ? { scope: t.scope } : {}),
      client: this.client,
      ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
      ...(refreshExpiresAt ? { refreshExpiresAt } : {}),
      accessToken: t.access_token,
      accessIssuedAt: new Date(issuedAt).toISOString(),
      accessExpiresAt: new Date(expiresAt).toISOString(),
      generation: 0,
      status: 'ok',
    };
  }
}

function noMetadataWords(serverUrl: string, s: OAuthDiscoveryState): string {
  const as = s.authorizationServerUrl;
  const fix = "Publish it (or ask the server's owner to): the canary will not guess the endpoints";
  if (!s.resourceMetadata)
    return `discovery: ${shownUrl(serverUrl)} advertises no protected resource metadata (RFC 9728), and its origin ${as} publishes no authorization server metadata (RFC 8414 / OpenID discovery): nothing names where to sign in. ${fix}`;
  if (!s.resourceMetadata.authorization_servers?.length)
    return `discovery: the protected resource metadata of ${shownUrl(serverUrl)} names no authorization_servers, and its origin ${as} publishes no authorization server metadata: nothing names where to sign in. ${fix}`;
  return `discovery: the authorization server ${as} publishes no metadata (RFC 8414 / OpenID discovery): ${fix}`;
}

async function stepOf<T>(what: string, run: () => Promise<T>, failed: WeakMap<object, URL>, proxyUrl: string | null): Promise<T> {
  try {
    return await run();
  } catch (e) {
    // A URL discovery was handed (the 401's resource_metadata, an authorization server) that the SSRF guard refused.
    if (isCanaryError(e, CanaryErrorCode.guardRefused))
      throw loginError(`${what}: ${e.message}; nothing was sent there and nobody was sent to sign in`, e);
    // The canary's own errors pass as they are; a proxy's failed CONNECT is a failure of this step, said below with the proxy's words.
    if (e instanceof CanaryError && !isCanaryError(e, CanaryErrorCode.proxyTunnel)) throw e;
    const code = (e as { code?: unknown }).code;
    const demanded = typeof code === 'string' ? dpopDemanded(code, `${what}: the authorization server`) : null;
    if (demanded) throw loginError(`${demanded}, then run the login again`, e);
    const url = typeof e === 'object' && e !== null ? failed.get(e) : undefined;
    if (url) {
      // No answer at all: the proxy's words when it was the proxy's, else what the network said.
      const kind = networkErrorKind(e);
      const words =
        (proxyUrl ? proxyFailure(e, proxyUrl)?.words : undefined) ??
        (kind === 'timeout'
          ? 'no answer within the request timeout'
          : kind === 'tls'
            ? `TLS handshake failed (${errorCode(e)})`
            : `cannot connect (${errorCode(e)})`);
      throw loginError(`${what} failed: ${shownUrl(url.href)}: ${words}`, e);
    }
    // The SDK's schemas refuse a metadata document it cannot use (an endpoint with a javascript: URL): say which field, not zod's JSON.
    const issues = (e as { name?: unknown; issues?: Array<{ path?: unknown[]; message?: string }> }).issues;
    if ((e as { name?: unknown }).name === 'ZodError' && Array.isArray(issues)) {
      const each = issues
        .slice(0, 3)
        .map((i) => `${(i.path ?? []).join('.') || '(the document)'}: ${oneLine(i.message ?? 'invalid', 120)}`);
      throw loginError(`${what} failed: a metadata document is not valid (${each.join('; ')}); nothing was sent on from it`, e);
    }
    throw loginError(
      `${what} failed (${typeof code === 'string' ? `${code}: ` : ''}${oneLine(e instanceof Error ? e.message : String(e), 200)})`,
      e,
    );
  }
}
