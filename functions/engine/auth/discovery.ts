/**
 * Where the canary gets its token, the way the MCP authorization spec says: the protected resource
 * metadata (RFC 9728) from the 401 challenge's `resource_metadata` or the well-known URLs, then the
 * authorization server's metadata (RFC 8414, or OpenID discovery) with the issuer check. An explicit
 * `tokenUrl` skips all of it.
 *
 * The SDK's discovery functions do the fetching, parsing and the RFC 8414 §3.3 issuer echo check. We
 * drive them step by step instead of calling its `auth()` orchestrator because `auth()` falls back to
 * the MCP server's origin as the authorization server when no metadata is advertised (a canary must
 * report that, not guess), retries `invalid_client` once behind a console warning (two token
 * requests per run), and throws without saying which step or URL failed — the detail a page needs.
 */
import { CanaryError, CanaryErrorCode, isCanaryError } from '../../base/common/errors.ts';
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  IssuerMismatchError,
  resourceUrlFromServerUrl,
  selectResourceURL,
  type AuthorizationServerMetadata,
  type OAuthClientProvider,
  type OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/client';
import type { OAuthSettings } from '../../base/config/schema/oauth.ts';
import { oneLine } from '../../base/common/redact.ts';
import { shownUrl } from '../../base/common/shown-url.ts';
import type { FetchLike } from '../../base/net/wire.ts';
import { askChallenge } from './challenge.ts';
import { authError, describeHops, type AuthHop } from './hops.ts';

export interface AuthServer {
  /** The URL the SDK's token request is made against (the issuer, or the token URL's origin). */
  readonly authorizationServerUrl: string;
  /** At least `issuer` and `token_endpoint`. */
  readonly metadata: AuthorizationServerMetadata;
  /** The RFC 8707 resource indicator sent with the token request. */
  readonly resource: string;
}

export async function discover(
  serverUrl: string,
  oauth: OAuthSettings,
  headers: Record<string, string>,
  fetchFn: FetchLike,
  hops: AuthHop[],
): Promise<AuthServer> {
  if (oauth.tokenUrl) {
    // Configured, not discovered: the issuer (for the private_key_jwt audience and the SDK's issuer
    // stamp) is the configured one, else the token URL's origin.
    const issuer = oauth.issuer ?? new URL(oauth.tokenUrl).origin;
    return {
      authorizationServerUrl: issuer,
      metadata: { issuer, token_endpoint: oauth.tokenUrl } as AuthorizationServerMetadata,
      resource: oauth.resource ?? resourceUrlFromServerUrl(serverUrl).href,
    };
  }
  const resourceMetadata = await protectedResource(serverUrl, headers, fetchFn, hops);
  const asUrl = chooseAuthorizationServer(resourceMetadata, oauth.issuer);
  const metadata = await authorizationServer(asUrl, oauth, fetchFn, hops);
  const resource = oauth.resource || (await resourceIndicator(serverUrl, resourceMetadata));
  return { authorizationServerUrl: asUrl, metadata, resource };
}

/** RFC 8414 (or OpenID) metadata of the chosen authorization server, with the issuer checks and the grant the canary needs. */
async function authorizationServer(
  asUrl: string,
  oauth: OAuthSettings,
  fetchFn: FetchLike,
  hops: AuthHop[],
): Promise<AuthorizationServerMetadata> {
  let metadata: AuthorizationServerMetadata | undefined;
  const before = hops.length;
  try {
    metadata = await discoverAuthorizationServerMetadata(asUrl, { fetchFn });
  } catch (e) {
    if (e instanceof IssuerMismatchError) {
      throw authError(
        'discovery',
        `discovery: issuer mismatch: the metadata of ${shownUrl(asUrl)} names issuer ${JSON.stringify(e.received)} (RFC 8414 §3.3 requires them equal); the canary will not send credentials to it`,
      );
    }
    throw stepFailure('authorization server metadata', e, hops.slice(before));
  }
  if (!metadata) {
    throw authError(
      'discovery',
      `discovery: no authorization server metadata for ${shownUrl(asUrl)} (${describeHops(hops.slice(before))}); publish RFC 8414 or OpenID metadata, or set auth.oauth.tokenUrl`,
    );
  }
  if (oauth.issuer && !sameIssuer(metadata.issuer, oauth.issuer)) {
    throw authError('discovery', `discovery: issuer mismatch: found ${metadata.issuer}, expected ${oauth.issuer} (auth.oauth.issuer)`);
  }
  if (metadata.grant_types_supported && !metadata.grant_types_supported.includes('client_credentials')) {
    throw authError(
      'discovery',
      `discovery: ${metadata.issuer} does not offer the client_credentials grant (grant_types_supported: ${metadata.grant_types_supported.join(' ')})`,
    );
  }
  return metadata;
}

/** The RFC 8707 resource indicator: the metadata's `resource` when it is this server (the SDK's rule), else the server URL. */
async function resourceIndicator(serverUrl: string, resourceMetadata: OAuthProtectedResourceMetadata): Promise<string> {
  try {
    const selected = await selectResourceURL(serverUrl, {} as OAuthClientProvider, resourceMetadata);
    // Sent verbatim, as the SDK's auth() does (a pathless indicator must not gain a "/").
    return selected ? resourceMetadata.resource : resourceUrlFromServerUrl(serverUrl).href;
  } catch (e) {
    throw authError(
      'discovery',
      `discovery: the protected resource metadata names resource ${JSON.stringify(resourceMetadata.resource)}, which is not this server (${oneLine((e as Error).message, 160)})`,
    );
  }
}

/** RFC 9728: the challenge's `resource_metadata` first, else the well-known URLs (path, then root). */
async function protectedResource(
  serverUrl: string,
  headers: Record<string, string>,
  fetchFn: FetchLike,
  hops: AuthHop[],
): Promise<OAuthProtectedResourceMetadata> {
  let challenged: URL | undefined;
  try {
    challenged = (await askChallenge(serverUrl, headers, fetchFn)).resourceMetadataUrl;
  } catch (e) {
    throw stepFailure('the 401 challenge', e, []);
  }
  const before = hops.length;
  try {
    const m = await discoverOAuthProtectedResourceMetadata(serverUrl, challenged ? { resourceMetadataUrl: challenged } : {}, fetchFn);
    if (!m.authorization_servers?.length) {
      throw authError(
        'discovery',
        `discovery: the protected resource metadata (${describeHops(hops.slice(before))}) names no authorization_servers; set auth.oauth.tokenUrl`,
      );
    }
    return m;
  } catch (e) {
    if (isCanaryError(e, CanaryErrorCode.auth)) throw e;
    const tried = describeHops(hops.slice(before));
    // The SDK throws a plain Error when the last well-known URL answered 404 (no code to read): the
    // hops are the evidence, not its message.
    if (hops.slice(before).at(-1)?.status === 404) {
      throw authError(
        'discovery',
        `discovery: the server advertises no protected resource metadata (RFC 9728): ${challenged ? '' : 'its 401 challenge names no resource_metadata, and '}${tried}. Publish the metadata, or set auth.oauth.tokenUrl (--oauth-token-url)`,
      );
    }
    throw stepFailure('protected resource metadata', e, hops.slice(before));
  }
}

function chooseAuthorizationServer(m: OAuthProtectedResourceMetadata, expected: string | undefined): string {
  const servers = m.authorization_servers ?? [];
  if (!expected) return servers[0]!;
  const match = servers.find((s) => sameIssuer(s, expected));
  if (!match) {
    throw authError(
      'discovery',
      `discovery: issuer mismatch: the server names authorization server(s) ${servers.join(', ')}, not the expected issuer ${expected} (auth.oauth.issuer)`,
    );
  }
  return match;
}

/** RFC 8414's one tolerance (also the SDK's): a single trailing slash. */
function sameIssuer(a: string, b: string): boolean {
  return a.replace(/\/$/, '') === b.replace(/\/$/, '');
}

function stepFailure(what: string, e: unknown, hops: readonly AuthHop[]): CanaryError<'AUTH'> {
  if (isCanaryError(e, CanaryErrorCode.guardRefused))
    return authError('discovery', `discovery: ${what} URL ${e.data.url} refused: ${e.data.reason}`, { cause: e });
  const tried = hops.length ? ` (${describeHops(hops)})` : '';
  const why =
    e instanceof Error && e.name === 'ZodError'
      ? 'the document is not valid metadata'
      : oneLine(e instanceof Error ? e.message : String(e), 200);
  return authError('discovery', `discovery: ${what} failed${tried}: ${why}`, { cause: e });
}
