/**
 * What `mcp-canary login` checks of the authorization server's metadata before it registers a client or
 * sends a person anywhere (login.ts runs these where the SDK's `auth()` saves what discovery found, which
 * is before either):
 * - PKCE S256 advertised. The MCP authorization spec (2025-11-25, 2026-07-28): "If
 *   `code_challenge_methods_supported` is absent, the authorization server does not support PKCE and MCP
 *   clients MUST refuse to proceed", and they MUST use S256. The SDK refuses only a list without S256, and
 *   only after registering; an absent list it lets through.
 * - Every endpoint the flow will use passes the SSRF guard (https, no private or cloud-metadata address):
 *   the authorization endpoint too, which the canary never fetches but prints for a person to open, and the
 *   token and registration endpoints, so a hostile metadata document is refused before the person signs in,
 *   not after.
 */
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/client';
import { CanaryError, CanaryErrorCode, isCanaryError } from '../../base/common/errors.ts';
import { checkUrl, type GuardOptions } from '../../base/net/ssrf-guard.ts';

/** The one code challenge method the canary sends (the SDK's, and the MCP spec's MUST). */
const S256 = 'S256';

export function loginError(message: string, cause?: unknown): CanaryError<'AUTH'> {
  return new CanaryError(
    CanaryErrorCode.auth,
    `login: ${message}`,
    { side: 'token_endpoint' },
    cause === undefined ? undefined : { cause },
  );
}

/** Refuses an authorization server that does not advertise PKCE with S256. */
export function requirePkce(m: AuthorizationServerMetadata): void {
  const methods = m.code_challenge_methods_supported;
  const fix = `the MCP authorization spec requires a client to refuse it. No client was registered and nobody was sent to sign in. Ask its owner to publish code_challenge_methods_supported: ["${S256}"]`;
  if (!Array.isArray(methods) || methods.length === 0)
    throw loginError(`${m.issuer} does not advertise PKCE (its metadata has no code_challenge_methods_supported): ${fix}`);
  if (!methods.includes(S256))
    throw loginError(`${m.issuer} advertises PKCE ${methods.map((x) => JSON.stringify(x)).join(', ')} but not ${S256}: ${fix}`);
}

/**
 * Every endpoint the flow uses, through the guard's rules: the authorization endpoint (a person's browser
 * goes there), the token endpoint, and the registration endpoint when a client will be registered.
 */
export async function guardEndpoints(m: AuthorizationServerMetadata, guard: GuardOptions, registering: boolean): Promise<void> {
  const endpoints: Array<[string, string | undefined]> = [
    ['authorization_endpoint', m.authorization_endpoint],
    ['token_endpoint', m.token_endpoint],
    ...(registering ? [['registration_endpoint', m.registration_endpoint] as [string, string | undefined]] : []),
  ];
  for (const [field, url] of endpoints) {
    if (url !== undefined) await guarded(`the metadata of ${m.issuer} names ${field}`, url, guard, field === 'authorization_endpoint');
  }
}

/**
 * The protected resource metadata URL the MCP server's 401 names, through the guard before the SDK is given
 * it: the SDK's discovery swallows a refused fetch of that document and falls back to guessing, which would
 * hide why.
 */
export async function guardResourceMetadataUrl(url: URL, guard: GuardOptions): Promise<void> {
  await guarded("the MCP server's 401 names resource_metadata", url.href, guard, false);
}

async function guarded(where: string, url: string, guard: GuardOptions, shownToPerson: boolean): Promise<void> {
  try {
    await checkUrl(url, guard);
  } catch (e) {
    if (!isCanaryError(e, CanaryErrorCode.guardRefused)) throw e;
    throw loginError(
      `${where} ${e.data.url}: ${e.data.reason}. Refused before anything was sent there${shownToPerson ? ' and before any URL was shown to open' : ''}; no client was registered`,
      e,
    );
  }
}
