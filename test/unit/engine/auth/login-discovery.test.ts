/**
 * `mcp-canary login` against servers whose discovery is incomplete. The SDK's auth() guesses endpoints
 * on the MCP server's own origin when nothing names an authorization server; the login must say so
 * before it registers anything or sends a person to a page, and name the fix. A server in the
 * 2025-03-26 style (no RFC 9728 metadata, the authorization server's metadata on the same origin) still
 * logs in. Real HTTP servers on 127.0.0.1, byte for byte.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { login } from '../../../../functions/engine/auth/login.ts';
import { startFaultServer, type FaultServer } from '../../../helpers/faults.ts';

const open: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

interface Shape {
  /** What the MCP server's RFC 9728 metadata says: absent, no authorization servers, or the AS. */
  readonly prm: 'absent' | 'no servers' | 'names the AS';
  /** The AS metadata lives on the MCP server's origin (2025-03-26 style) instead of its own server. */
  readonly asOnMcpOrigin?: boolean;
  readonly registration?: boolean;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
function notFound(res: ServerResponse): void {
  res.writeHead(404).end();
}

function asMetadata(base: string, registration: boolean) {
  return {
    issuer: base,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    ...(registration ? { registration_endpoint: `${base}/register` } : {}),
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
  };
}

function authorizationServer(base: () => string, registration: boolean) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url!, 'http://x').pathname;
    if (path === '/.well-known/oauth-authorization-server') return json(res, 200, asMetadata(base(), registration));
    if (path === '/register') return json(res, 201, { client_id: 'registered-1', redirect_uris: ['http://127.0.0.1/callback'] });
    if (path === '/token') return json(res, 200, { access_token: 'at-1', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-1' });
    return notFound(res);
  };
}

async function servers(shape: Shape) {
  let asBase = '';
  let mcpBase = '';
  const as = await startFaultServer(authorizationServer(() => asBase, shape.registration ?? true));
  asBase = new URL(as.url).origin;
  const asOnOrigin = authorizationServer(() => mcpBase, shape.registration ?? true);
  const mcp = await startFaultServer((req, res): void => {
    const path = new URL(req.url!, 'http://x').pathname;
    if (path.startsWith('/.well-known/oauth-protected-resource')) {
      if (shape.prm === 'absent') return notFound(res);
      return json(res, 200, { resource: `${mcpBase}/mcp`, authorization_servers: shape.prm === 'no servers' ? [] : [asBase] });
    }
    if (shape.asOnMcpOrigin && path !== '/mcp') return asOnOrigin(req, res);
    if (path.startsWith('/.well-known/') || path === '/register') return notFound(res);
    res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
  });
  mcpBase = new URL(mcp.url).origin;
  open.push(as, mcp);
  return { as, mcp };
}

/** Logs in; the "browser" consents at once. Resolves to the error (or null) and whether a URL was shown. */
async function tryLogin(serverUrl: string, settings: { clientId?: string } = {}) {
  let shown: URL | undefined;
  const run = login({
    serverUrl,
    settings: { allowPrivateNetwork: false, ...settings },
    waitMs: 5_000,
    onSecret: () => {},
    onAuthorizationUrl: async (url) => {
      shown = url;
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.search = new URLSearchParams({ code: 'code-1', state: url.searchParams.get('state')! }).toString();
      await fetch(back);
    },
  });
  const error = await run.then(
    () => null,
    (e: Error) => e.message,
  );
  return { error, shown };
}

describe('nothing names an authorization server → refused before any registration or sign-in page, with the fix', () => {
  it.each([
    ['no protected resource metadata, none on the origin either', 'absent', /advertises no protected resource metadata \(RFC 9728\)/],
    ['metadata that names no authorization_servers', 'no servers', /names no authorization_servers/],
  ] as const)('%s', async (_, prm, words) => {
    const { mcp } = await servers({ prm });
    const { error, shown } = await tryLogin(mcp.url);
    expect(error).toMatch(words);
    expect(error).toContain('will not guess the endpoints');
    expect(shown).toBeUndefined();
    // Nothing was POSTed to the MCP server's origin as if it were an authorization server.
    expect(mcp.received.filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('an authorization server that registers no clients, and no client id given → the fix, before the sign-in page', () => {
  it('names --client-id', async () => {
    const { mcp } = await servers({ prm: 'names the AS', registration: false });
    const { error, shown } = await tryLogin(mcp.url);
    expect(error).toMatch(/registers no clients itself \(no registration_endpoint\).*--client-id/);
    expect(shown).toBeUndefined();
  });

  it('logs in with a pre-registered client id', async () => {
    const { mcp } = await servers({ prm: 'names the AS', registration: false });
    const { error, shown } = await tryLogin(mcp.url, { clientId: 'canary-public' });
    expect(error).toBeNull();
    expect(shown?.searchParams.get('client_id')).toBe('canary-public');
  });
});

describe('a 2025-03-26 style server (no RFC 9728 metadata, the authorization server on its own origin) → logs in', () => {
  it('registers at the origin and signs in', async () => {
    const { mcp } = await servers({ prm: 'absent', asOnMcpOrigin: true });
    const { error, shown } = await tryLogin(mcp.url);
    expect(error).toBeNull();
    expect(shown?.origin).toBe(new URL(mcp.url).origin);
  });
});

describe('no answer at all → the URL and the network’s words, not "fetch failed"', () => {
  async function closedPort(): Promise<number> {
    const s = await startFaultServer(() => {});
    const port = Number(new URL(s.url).port);
    await s.close();
    return port;
  }

  it('the MCP server is down', async () => {
    const port = await closedPort();
    const { error } = await tryLogin(`http://127.0.0.1:${port}/mcp`);
    expect(error).toMatch(
      new RegExp(
        `^login: discovery and authorization failed: http://127\\.0\\.0\\.1:${port}/\\.well-known/\\S+: cannot connect \\(ECONNREFUSED\\)$`,
      ),
    );
  });

  it('behind a proxy that cannot be reached: the proxy is named', async () => {
    const [port, proxyPort] = [await closedPort(), await closedPort()];
    const error = await login({
      serverUrl: `http://127.0.0.1:${port}/mcp`,
      settings: { allowPrivateNetwork: false },
      waitMs: 5_000,
      onSecret: () => {},
      onAuthorizationUrl: () => {},
      reach: { proxy: { url: `http://127.0.0.1:${proxyPort}`, noProxy: [] } },
    }).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(error).toContain(`the proxy http://127.0.0.1:${proxyPort} cannot be reached (ECONNREFUSED)`);
  });
});
