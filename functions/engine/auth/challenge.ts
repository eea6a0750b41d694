/**
 * The MCP server's own word on its authorization, asked first (MCP authorization spec, 2025-11-25 and
 * 2026-07-28): the 401 challenge to a request without a token. Its `WWW-Authenticate` names the protected
 * resource metadata URL (`resource_metadata`, RFC 9728 §5.1), which clients MUST use when present (the
 * well-known URLs only after), and the `scope` the request needs (RFC 6750 §3), which clients treat as
 * authoritative and ask for first (the spec's scope selection, least privilege). Parsed with the SDK's
 * `extractWWWAuthenticateParams` (Bearer and DPoP challenges alike).
 */
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { CanaryErrorCode, isCanaryError } from '../../base/common/errors.ts';
import type { FetchLike } from '../../base/net/wire.ts';

/**
 * Asked with a `ping`: an auth wall answers before reading the method, and a server without one creates
 * no session for it (an `initialize` would leave one behind).
 */
const CHALLENGE_BODY = JSON.stringify({ jsonrpc: '2.0', id: 'mcp-canary-auth', method: 'ping' });

export interface Challenge {
  /** The challenge's `resource_metadata`, when it named one that parses as a URL. */
  readonly resourceMetadataUrl?: URL;
  /** The challenge's `scope`: the scopes the server asks for (space-separated). */
  readonly scope?: string;
}

/**
 * The server's 401 challenge, or nothing (it answered otherwise, or not at all: the server being down is
 * the MCP probes' to report, and discovery goes on to the well-known URLs). A URL the SSRF guard refuses
 * is thrown: the server itself is then where the canary will not go.
 */
export async function askChallenge(serverUrl: string, headers: Record<string, string>, fetchFn: FetchLike): Promise<Challenge> {
  let res: Response;
  try {
    res = await fetchFn(serverUrl, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: CHALLENGE_BODY,
    });
  } catch (e) {
    if (isCanaryError(e, CanaryErrorCode.guardRefused)) throw e;
    return {};
  }
  await res.body?.cancel().catch(() => {});
  if (res.status !== 401) return {};
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope?.trim() ? { scope: scope.trim() } : {}) };
}
