/**
 * A delegated grant belongs to the MCP server it was logged in to: its `serverUrl`, and the RFC 8707
 * `resource` its tokens were issued for. Its token is sent there and nowhere else. Sent to another server,
 * it would hand that server a token the first one accepts (token passthrough, which the MCP authorization
 * spec forbids), and the other server's 401 would page its owner for the canary's own mistake. So the grant
 * is checked against the target's URL before any request: a mismatch is the canary's configuration.
 *
 * The rule: the target's URL is the grant's `serverUrl` (scheme, host, port, path and query; host case,
 * a default port and one trailing slash aside), and lies within the grant's `resource` by the SDK's own
 * rule (`checkResourceAllowed`: same origin, the resource's path a segment prefix of the URL's).
 */
import { checkResourceAllowed } from '@modelcontextprotocol/client';
import { shownUrl } from '../../base/common/shown-url.ts';

/** What a grant (stored or published) says it was issued for. */
export interface GrantBinding {
  /** The URL `mcp-canary login` was run for; absent only on an access token published before grants were bound. */
  readonly serverUrl?: string | undefined;
  /** The RFC 8707 resource indicator its tokens were issued for. */
  readonly resource?: string | undefined;
}

/** Why a grant may not be used for `targetUrl`, in words; null when it may. */
export function grantMismatch(grant: GrantBinding, targetUrl: string): string | null {
  if (!grant.serverUrl) return 'it does not say which server it was issued for (stored before grants were bound to their server)';
  const target = canonical(targetUrl);
  if (target === null) return `the target's URL ${JSON.stringify(targetUrl)} is not a URL`;
  if (canonical(grant.serverUrl) !== target) return `it was issued for ${shown(grant.serverUrl)}, not ${shown(targetUrl)}`;
  if (grant.resource !== undefined && !covers(grant.resource, targetUrl))
    return `its tokens were issued for the resource ${shown(grant.resource)}, which ${shown(targetUrl)} is not part of`;
  return null;
}

/** The URL as one server: no fragment, no credentials, one trailing slash of the path dropped. */
function canonical(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  const path = u.pathname.length > 1 ? u.pathname.replace(/\/$/, '') : u.pathname;
  return `${u.protocol}//${u.host}${path}${u.search}`;
}

function covers(resource: string, url: string): boolean {
  try {
    return checkResourceAllowed({ requestedResource: url, configuredResource: resource });
  } catch {
    return false;
  }
}

/** A URL for a message, shown by its structure: a query may carry a key. */
const shown = shownUrl;
