/**
 * The `unattended-auth` check: which auth can a canary (or any agent with no person at hand) use on
 * this server, read from what the server publishes:
 * - the MCP extension `io.modelcontextprotocol/oauth-client-credentials` in its capabilities
 *   (`server/discover` on 2026-07-28, `initialize` on 2025-11-25, that session DELETEd);
 * - its authorization server's metadata (RFC 9728 → RFC 8414 / OpenID, with the SDK's discovery): the
 *   `client_credentials` grant, a Client ID Metadata Document (`client_id_metadata_document_supported`),
 *   dynamic registration (`registration_endpoint`).
 * Passes when client credentials are possible, or when the target already keeps a delegated grant;
 * fails, saying plainly that no unattended auth is possible, when the server offers authorization code
 * only and the target does not use `auth.authorizationCode` (→ `mcp-canary login`).
 * The metadata may live on other origins: those requests go through the SSRF guard.
 */
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/client';
import { Revision, type PostureResult } from '../../base/common/verdict.ts';
import { PostureCheck } from '../../base/config/schema/posture.ts';
import { guardedFetch } from '../../base/net/ssrf-guard.ts';
import type { FetchLike } from '../../base/net/wire.ts';
import { harmless, rpc, send, type PostureRequestContext } from './requests.ts';
import { shownUrl } from '../../base/common/shown-url.ts';

export const CLIENT_CREDENTIALS_EXTENSION = 'io.modelcontextprotocol/oauth-client-credentials';

export interface UnattendedContext extends PostureRequestContext {
  /** The target keeps a delegated grant (`auth.authorizationCode`). */
  readonly delegated: boolean;
}

export async function unattendedAuth(ctx: UnattendedContext): Promise<PostureResult> {
  const check = PostureCheck.unattendedAuth;
  const loopback = /^(127\.|localhost$|\[::1\]$)/.test(new URL(ctx.url).hostname);
  const bounded: FetchLike = (u, i) => ctx.fetch(u, { ...i, signal: AbortSignal.any([AbortSignal.timeout(ctx.timeoutMs), ctx.budget]) });
  const fetchFn = guardedFetch(bounded, { allowPrivateNetwork: false, loopbackAllowed: loopback });
  const [extension, as] = await Promise.all([advertisesExtension(ctx), authorizationServer(ctx, fetchFn)]);
  const offers: string[] = [];
  if (extension) offers.push(`the ${CLIENT_CREDENTIALS_EXTENSION} extension`);
  const grants = (as?.metadata?.grant_types_supported as string[] | undefined) ?? [];
  if (grants.includes('client_credentials')) offers.push('the client_credentials grant');
  const person: string[] = [];
  if (as?.metadata?.client_id_metadata_document_supported === true) person.push('Client ID Metadata Documents');
  if (as?.metadata?.registration_endpoint) person.push('dynamic registration');
  const delegatedWords = person.length ? ` (clients by ${person.join(' and ')})` : '';
  if (offers.length)
    return { check, status: 'pass', detail: `unattended auth is possible: ${offers.join(' and ')}${as ? ` at ${as.issuer}` : ''}` };
  // Not judged either way when the server asks for no OAuth, or its metadata does not resolve.
  if (as === undefined) return { check, status: 'skipped', detail: 'the server asks for no OAuth (no 401 challenge without credentials)' };
  if (as === null || !as.metadata) {
    return {
      check,
      status: 'skipped',
      detail: "the server's OAuth metadata (RFC 9728, RFC 8414) did not resolve: nothing to read its grants from",
    };
  }
  const where = `${as.issuer} offers ${grants.length ? grants.join(', ') : 'no grant list'}${delegatedWords}`;
  if (ctx.delegated)
    return { check, status: 'pass', detail: `no unattended grant (${where}); this target keeps a delegated grant, as it must` };
  return {
    check,
    status: 'fail',
    detail: `no unattended auth is possible: ${where}. Use auth.authorizationCode and run \`mcp-canary login ${shownUrl(ctx.url)}\` once`,
  };
}

/** The extension in the server's capabilities, asked with the target's own credentials. */
async function advertisesExtension(ctx: UnattendedContext): Promise<boolean> {
  try {
    const r = ctx.revision === Revision.modern ? harmless(Revision.modern) : initialize();
    const a = await send(ctx, { method: 'POST', headers: { ...ctx.headers, ...r.headers }, body: r.body });
    const sid = a.headers.get('mcp-session-id');
    if (sid)
      await send(ctx, {
        method: 'DELETE',
        headers: { ...ctx.headers, 'mcp-session-id': sid, 'mcp-protocol-version': Revision.legacy },
      }).catch(() => undefined);
    const result = resultOf(a.body) as { capabilities?: { extensions?: Record<string, unknown> } } | null;
    return Boolean(result?.capabilities?.extensions && CLIENT_CREDENTIALS_EXTENSION in result.capabilities.extensions);
  } catch {
    return false;
  }
}

function initialize(): { headers: Record<string, string>; body: string } {
  const { headers } = rpc(Revision.legacy, 'initialize');
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 'mcp-canary-posture-unattended',
    method: 'initialize',
    params: { protocolVersion: Revision.legacy, capabilities: {}, clientInfo: { name: 'mcp-canary-posture', version: '0' } },
  });
  return { headers, body };
}

/** The JSON-RPC result of a JSON or SSE answer. */
function resultOf(body: string): unknown {
  const texts = body.trimStart().startsWith('{')
    ? [body]
    : body
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5));
  for (const t of texts) {
    try {
      const m = JSON.parse(t) as { result?: unknown };
      if (m.result) return m.result;
    } catch {
      /* not this line */
    }
  }
  return null;
}

/**
 * The authorization server's metadata: undefined when the server asks for no OAuth (no 401 challenge),
 * null when it asks but publishes nothing that resolves.
 */
async function authorizationServer(
  ctx: UnattendedContext,
  fetchFn: FetchLike,
): Promise<{ issuer: string; metadata: Record<string, unknown> | undefined } | null | undefined> {
  // Without credentials, in the era's own shape: a 2025-11-25 server takes only initialize without a session.
  const r = ctx.revision === Revision.modern ? rpc(Revision.modern, 'tools/list') : initialize();
  const a = await send(ctx, { method: 'POST', headers: r.headers, body: r.body }).catch(() => null);
  const sid = a?.headers.get('mcp-session-id');
  if (sid)
    await send(ctx, { method: 'DELETE', headers: { 'mcp-session-id': sid, 'mcp-protocol-version': Revision.legacy } }).catch(
      () => undefined,
    );
  if (!a || a.status !== 401) return undefined;
  try {
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(a.response);
    const prm = await discoverOAuthProtectedResourceMetadata(ctx.url, resourceMetadataUrl ? { resourceMetadataUrl } : {}, fetchFn);
    const issuer = prm.authorization_servers?.[0];
    if (!issuer) return null;
    const metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn });
    return { issuer, metadata: metadata as Record<string, unknown> | undefined };
  } catch {
    // Metadata that does not resolve is the same answer as none, for this question.
    return null;
  }
}
