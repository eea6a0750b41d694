/**
 * The posture checks: each asks one thing of the server's security configuration and answers pass,
 * fail (with what was seen) or skipped (with why it does not apply). None throws: a network error is a
 * failed check whose detail says so. None changes anything on the server (the 2025-11-25 version check
 * opens a session and DELETEs it).
 */
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { oneLine } from '../../base/common/redact.ts';
import { readCertificate } from '../../base/net/certificate.ts';
import { Revision, type PostureResult } from '../../base/common/verdict.ts';
import {
  FOREIGN_ORIGIN,
  harmless,
  rpc,
  rpcErrorOf,
  send,
  UNKNOWN_PROTOCOL_VERSION,
  type Answer,
  type PostureRequestContext,
} from './requests.ts';
import { PostureCheck } from '../../base/config/schema/posture.ts';
import { unattendedAuth } from './unattended.ts';

export interface CheckContext extends PostureRequestContext {
  /** Wall clock in ms, for certificate days left. */
  readonly wallNow: () => number;
  /** The target keeps a delegated grant (`auth.authorizationCode`): the unattended-auth check's context. */
  readonly delegated: boolean;
}

type Check = (ctx: CheckContext) => Promise<PostureResult>;

const pass = (check: PostureCheck, detail: string, extra: Partial<PostureResult> = {}): PostureResult => ({
  check,
  status: 'pass',
  detail,
  ...extra,
});
const fail = (check: PostureCheck, detail: string, extra: Partial<PostureResult> = {}): PostureResult => ({
  check,
  status: 'fail',
  detail,
  ...extra,
});
const skipped = (check: PostureCheck, detail: string): PostureResult => ({ check, status: 'skipped', detail });

/** "HTTP 200", or "HTTP 400 (JSON-RPC -32000: Bad Request: …)": what was seen, one line. */
function seen(a: Answer): string {
  const e = rpcErrorOf(a.body);
  return `HTTP ${a.status}${e ? ` (JSON-RPC ${e.code}: ${oneLine(e.message, 100)})` : ''}`;
}

function networkFailure(check: PostureCheck, e: unknown): PostureResult {
  const cause = (e as { cause?: { code?: unknown } })?.cause?.code;
  return fail(check, `no answer: ${typeof cause === 'string' ? cause : e instanceof Error ? e.name : 'error'}`);
}

/**
 * The probe request of the Origin and credential checks. On 2026-07-28 a harmless stateless request;
 * on 2025-11-25 an `initialize`, the one request a server must take without a session (a sessionless
 * `ping` is refused for the missing session first, which says nothing about Origin or credentials). A
 * session it opens anyway is DELETEd at once, with the target's own credentials.
 */
async function probe(ctx: CheckContext, headers: Record<string, string>): Promise<Answer> {
  if (ctx.revision !== Revision.legacy) {
    const r = harmless(ctx.revision);
    return send(ctx, { method: 'POST', headers: { ...headers, ...r.headers }, body: r.body });
  }
  const a = await send(ctx, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'mcp-canary-posture-probe',
      method: 'initialize',
      params: { protocolVersion: Revision.legacy, capabilities: {}, clientInfo: { name: 'mcp-canary-posture', version: '0' } },
    }),
  });
  const sid = a.headers.get('mcp-session-id');
  if (sid) {
    await send(ctx, {
      method: 'DELETE',
      headers: { ...ctx.headers, 'mcp-session-id': sid, 'mcp-protocol-version': Revision.legacy },
    }).catch(() => {});
  }
  return a;
}

const origin: Check = async (ctx) => {
  const a = await probe(ctx, { ...ctx.headers, origin: FOREIGN_ORIGIN });
  if (a.status === 403) return pass(PostureCheck.origin, `a foreign Origin was refused with 403`);
  return fail(
    PostureCheck.origin,
    `a request with a foreign Origin was answered ${seen(a)}, not refused with 403: the server does not validate Origin (DNS rebinding)`,
  );
};

const protocolVersion: Check = async (ctx) => {
  if (ctx.revision === Revision.modern) {
    const r = rpc(Revision.modern, 'tools/list', UNKNOWN_PROTOCOL_VERSION);
    const a = await send(ctx, { method: 'POST', headers: { ...ctx.headers, ...r.headers }, body: r.body });
    const e = rpcErrorOf(a.body);
    const supported = (e?.data as { supported?: unknown } | undefined)?.supported;
    if (e?.code === -32022 && Array.isArray(supported) && supported.length > 0 && supported.every((v) => typeof v === 'string')) {
      return pass(
        PostureCheck.protocolVersion,
        `protocol version ${UNKNOWN_PROTOCOL_VERSION} refused with -32022, supported: ${supported.join(', ')}`,
      );
    }
    const why =
      e?.code === -32022 ? 'without the supported list in error.data.supported' : 'not refused with -32022 and the supported list';
    return fail(PostureCheck.protocolVersion, `protocol version ${UNKNOWN_PROTOCOL_VERSION} was answered ${seen(a)}, ${why}`);
  }
  return legacyProtocolVersion(ctx);
};

/**
 * 2025-11-25 checks MCP-Protocol-Version on requests of a session, so the check opens one (initialize,
 * initialized), sends `ping` with an unknown version, and DELETEs the session whatever happened.
 */
async function legacyProtocolVersion(ctx: CheckContext): Promise<PostureResult> {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await send(ctx, {
    method: 'POST',
    headers: { ...ctx.headers, ...base },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'mcp-canary-posture-init',
      method: 'initialize',
      params: { protocolVersion: Revision.legacy, capabilities: {}, clientInfo: { name: 'mcp-canary-posture', version: '0' } },
    }),
  });
  if (init.status !== 200)
    return skipped(PostureCheck.protocolVersion, `could not open a 2025-11-25 session to check (initialize answered ${seen(init)})`);
  const sid = init.headers.get('mcp-session-id');
  const session: Record<string, string> = sid ? { 'mcp-session-id': sid } : {};
  try {
    await send(ctx, {
      method: 'POST',
      headers: { ...ctx.headers, ...base, ...session, 'mcp-protocol-version': Revision.legacy },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const r = rpc(Revision.legacy, 'ping', UNKNOWN_PROTOCOL_VERSION);
    const a = await send(ctx, { method: 'POST', headers: { ...ctx.headers, ...r.headers, ...session }, body: r.body });
    if (a.status === 400) return pass(PostureCheck.protocolVersion, `MCP-Protocol-Version ${UNKNOWN_PROTOCOL_VERSION} refused with 400`);
    return fail(
      PostureCheck.protocolVersion,
      `MCP-Protocol-Version ${UNKNOWN_PROTOCOL_VERSION} was answered ${seen(a)}, not refused with 400`,
    );
  } finally {
    if (sid)
      await send(ctx, { method: 'DELETE', headers: { ...ctx.headers, ...session, 'mcp-protocol-version': Revision.legacy } }).catch(
        () => {},
      );
  }
}

const getDelete: Check = async (ctx) => {
  if (ctx.revision !== Revision.modern) return skipped(PostureCheck.getDelete, '2025-11-25 uses GET and DELETE for its sessions');
  const headers = { ...ctx.headers, 'mcp-protocol-version': Revision.modern };
  const [get, del] = await Promise.all([
    send(ctx, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } }),
    send(ctx, { method: 'DELETE', headers }),
  ]);
  const problems: string[] = [];
  for (const [name, a] of [
    ['GET', get],
    ['DELETE', del],
  ] as const) {
    if (a.status !== 405) problems.push(`${name} answered ${seen(a)}, not 405`);
    if (a.headers.get('mcp-session-id')) problems.push(`${name} minted an Mcp-Session-Id`);
  }
  if (problems.length === 0) return pass(PostureCheck.getDelete, 'GET and DELETE answered 405, no Mcp-Session-Id');
  return fail(PostureCheck.getDelete, `${problems.join('; ')} (a 2026-07-28 endpoint is stateless)`);
};

const unauthenticated: Check = async (ctx) => {
  if (Object.keys(ctx.headers).length === 0) return skipped(PostureCheck.unauthenticated, 'the target sends no credentials');
  const bearer = Object.entries(ctx.headers).some(([k, v]) => k.toLowerCase() === 'authorization' && /^bearer\s/i.test(v));
  // tools/list, not discover: a server may rightly serve discovery to anyone.
  const r = rpc(Revision.modern, 'tools/list');
  const a = ctx.revision === Revision.modern ? await send(ctx, { method: 'POST', headers: r.headers, body: r.body }) : await probe(ctx, {});
  if (!bearer) {
    if (a.status === 401 || a.status === 403)
      return pass(PostureCheck.unauthenticated, `a request without credentials was refused with ${a.status}`);
    return fail(PostureCheck.unauthenticated, `a request without credentials was answered ${seen(a)}, not refused with 401`);
  }
  if (a.status !== 401) return fail(PostureCheck.unauthenticated, `a request without credentials was answered ${seen(a)}, not 401`);
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(a.response);
  if (!resourceMetadataUrl)
    return fail(
      PostureCheck.unauthenticated,
      '401 without resource_metadata in WWW-Authenticate: OAuth clients cannot find the authorization server (RFC 9728)',
    );
  // Only the target's own origin: a hostile server must not point the canary at other hosts.
  if (resourceMetadataUrl.origin !== new URL(ctx.url).origin) {
    return pass(PostureCheck.unauthenticated, `401 names resource_metadata on another origin (${resourceMetadataUrl.origin}); not fetched`);
  }
  try {
    const meta = await discoverOAuthProtectedResourceMetadata(ctx.url, { resourceMetadataUrl }, (u, i) =>
      ctx.fetch(u, { ...i, signal: AbortSignal.any([AbortSignal.timeout(ctx.timeoutMs), ctx.budget]) }),
    );
    if (!meta?.authorization_servers?.length)
      return fail(
        PostureCheck.unauthenticated,
        `the resource_metadata document ${resourceMetadataUrl.pathname} names no authorization_servers`,
      );
    return pass(
      PostureCheck.unauthenticated,
      `401 with resource_metadata; ${resourceMetadataUrl.pathname} resolves (authorization server ${new URL(meta.authorization_servers[0]!).origin})`,
    );
  } catch (e) {
    return fail(
      PostureCheck.unauthenticated,
      `the resource_metadata document ${resourceMetadataUrl.pathname} does not resolve: ${oneLine(e instanceof Error ? e.message : String(e), 120)}`,
    );
  }
};

/** Days a certificate has left (negative when expired), from its notAfter in ms. */
function daysLeft(notAfterMs: number, nowMs: number): number {
  return Math.floor((notAfterMs - nowMs) / 86_400_000);
}

const hsts: Check = async (ctx) => {
  const url = new URL(ctx.url);
  if (url.protocol !== 'https:') return skipped(PostureCheck.hsts, 'not an https target');
  const r = harmless(ctx.revision);
  const [a, validTo] = await Promise.all([
    send(ctx, { method: 'POST', headers: { ...ctx.headers, ...r.headers }, body: r.body }),
    // The expiry check's own reader: an absolute timeout within what is left of the budget, and a
    // socket destroyed, never left half-closed, whatever the peer does.
    readCertificate(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || 443), ctx.timeoutMs).catch(() => null),
  ]);
  const certificateDaysLeft = validTo === null ? undefined : daysLeft(validTo, ctx.wallNow());
  const cert = certificateDaysLeft === undefined ? 'certificate not read' : `certificate: ${certificateDaysLeft} day(s) left`;
  const extra = certificateDaysLeft === undefined ? {} : { certificateDaysLeft };
  const header = a.headers.get('strict-transport-security');
  const maxAge = Number(/max-age\s*=\s*"?(\d+)/i.exec(header ?? '')?.[1] ?? 0);
  if (maxAge > 0) return pass(PostureCheck.hsts, `Strict-Transport-Security max-age=${maxAge}; ${cert}`, extra);
  return fail(
    PostureCheck.hsts,
    `${header ? `Strict-Transport-Security without a positive max-age (${oneLine(header, 80)})` : 'no Strict-Transport-Security header'}; ${cert}`,
    extra,
  );
};

export const CHECKS: Readonly<Record<PostureCheck, Check>> = {
  [PostureCheck.origin]: origin,
  [PostureCheck.protocolVersion]: protocolVersion,
  [PostureCheck.getDelete]: getDelete,
  [PostureCheck.unauthenticated]: unauthenticated,
  [PostureCheck.hsts]: hsts,
  [PostureCheck.unattendedAuth]: (ctx) => unattendedAuth(ctx),
};

/** Runs one check; a network error or a bug is a failed check, never a throw. */
export async function runCheck(name: PostureCheck, ctx: CheckContext): Promise<PostureResult> {
  try {
    return await CHECKS[name](ctx);
  } catch (e) {
    return networkFailure(name, e);
  }
}
