/**
 * `mcp-canary login` against servers whose discovery is incomplete or hostile. The SDK's auth() guesses
 * endpoints on the MCP server's own origin when nothing names an authorization server; the login must say
 * so before it registers anything or sends a person to a page, and name the fix. The same holds for an
 * authorization server without PKCE S256, or with an endpoint at a private or cloud-metadata address.
 * Discovery starts from the MCP server's own 401 (its resource_metadata URL and scope). A server in the
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
  /** The metadata is served only at this path, which the 401 names (resource_metadata); the well-known URLs 404. */
  readonly prmOnlyAt?: string;
  /** The 401 names this resource_metadata URL instead (anywhere). */
  readonly challengeMetadataUrl?: string;
  /** The metadata's `resource` (default: the MCP server's URL). */
  readonly prmResource?: string;
  /** The metadata's `authorization_servers` (default: the test's authorization server). */
  readonly authorizationServers?: readonly string[];
  /** The 401's scope. */
  readonly challengeScope?: string;
  /** The metadata's scopes_supported. */
  readonly scopesSupported?: readonly string[];
  /** What the authorization server's metadata is made to say. */
  readonly editMetadata?: (m: Record<string, unknown>) => Record<string, unknown>;
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

function authorizationServer(base: () => string, registration: boolean, edit: Shape['editMetadata'] = (m) => m) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url!, 'http://x').pathname;
    if (path === '/.well-known/oauth-authorization-server') return json(res, 200, edit(asMetadata(base(), registration)));
    if (path === '/register') return json(res, 201, { client_id: 'registered-1', redirect_uris: ['http://127.0.0.1/callback'] });
    if (path === '/token') return json(res, 200, { access_token: 'at-1', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-1' });
    return notFound(res);
  };
}

async function servers(shape: Shape) {
  let asBase = '';
  let mcpBase = '';
  const as = await startFaultServer(authorizationServer(() => asBase, shape.registration ?? true, shape.editMetadata));
  asBase = new URL(as.url).origin;
  const asOnOrigin = authorizationServer(() => mcpBase, shape.registration ?? true, shape.editMetadata);
  const paths: string[] = [];
  const mcp = await startFaultServer((req, res): void => {
    const path = new URL(req.url!, 'http://x').pathname;
    paths.push(`${req.method} ${path}`);
    const wellKnown = path.startsWith('/.well-known/oauth-protected-resource');
    if (wellKnown || (shape.prmOnlyAt && path === shape.prmOnlyAt)) {
      if (shape.prm === 'absent' || (shape.prmOnlyAt && wellKnown)) return notFound(res);
      return json(res, 200, {
        resource: shape.prmResource ?? `${mcpBase}/mcp`,
        authorization_servers: shape.prm === 'no servers' ? [] : (shape.authorizationServers ?? [asBase]),
        ...(shape.scopesSupported ? { scopes_supported: shape.scopesSupported } : {}),
      });
    }
    if (shape.asOnMcpOrigin && path !== '/mcp') return asOnOrigin(req, res);
    if (path.startsWith('/.well-known/') || path === '/register') return notFound(res);
    const params = [
      ...(shape.challengeMetadataUrl ? [`resource_metadata="${shape.challengeMetadataUrl}"`] : []),
      ...(shape.prmOnlyAt ? [`resource_metadata="${mcpBase}${shape.prmOnlyAt}"`] : []),
      ...(shape.challengeScope ? [`scope="${shape.challengeScope}"`] : []),
    ];
    res.writeHead(401, { 'www-authenticate': params.length ? `Bearer ${params.join(', ')}` : 'Bearer' }).end();
  });
  mcpBase = new URL(mcp.url).origin;
  open.push(as, mcp);
  return { as, mcp, paths };
}

/** Logs in; the "browser" consents at once. Resolves to the error (or null) and whether a URL was shown. */
async function tryLogin(serverUrl: string, settings: { clientId?: string; scopes?: string[] } = {}) {
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
    // Nothing was POSTed to the MCP server's origin as if it were an authorization server (its 401 challenge, a ping, aside).
    expect(mcp.received.filter((r) => r.method === 'POST' && r.rpcMethod !== 'ping')).toEqual([]);
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

describe('an authorization server that does not advertise PKCE S256 → refused before registration or any sign-in page (the MCP spec’s MUST)', () => {
  it.each([
    ['no code_challenge_methods_supported', undefined, /does not advertise PKCE \(its metadata has no code_challenge_methods_supported\)/],
    ['an empty list', [], /does not advertise PKCE/],
    ['plain only', ['plain'], /advertises PKCE "plain" but not S256/],
  ] as const)('%s', async (_, methods, words) => {
    const editMetadata = (m: Record<string, unknown>) => {
      const { code_challenge_methods_supported: _drop, ...rest } = m;
      return methods === undefined ? rest : { ...rest, code_challenge_methods_supported: methods };
    };
    const { as, mcp } = await servers({ prm: 'names the AS', editMetadata });
    const { error, shown } = await tryLogin(mcp.url);
    expect(error).toMatch(words);
    expect(error).toContain('refuse');
    expect(shown).toBeUndefined();
    expect(as.received.filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('an endpoint of the flow at a private or cloud-metadata address → refused before anyone is sent anywhere', () => {
  it.each([
    [
      'authorization_endpoint',
      'https://169.254.169.254/latest/meta-data/iam/security-credentials/',
      /cloud metadata address \(169\.254\.169\.254\)/,
    ],
    ['authorization_endpoint', 'http://169.254.169.254/latest/meta-data/', /http is not allowed for OAuth URLs/],
    ['authorization_endpoint', 'https://10.0.0.7/authorize', /private address \(10\.0\.0\.7\)/],
    ['authorization_endpoint', 'http://203.0.113.10/authorize', /http is not allowed for OAuth URLs/],
    ['token_endpoint', 'https://169.254.170.2/token', /cloud metadata address/],
    ['registration_endpoint', 'https://[fd00:ec2::254]/register', /cloud metadata address/],
  ] as const)('%s at %s', async (field, url, words) => {
    const { as, mcp } = await servers({ prm: 'names the AS', editMetadata: (m) => ({ ...m, [field]: url }) });
    const { error, shown } = await tryLogin(mcp.url);
    expect(error).toMatch(words);
    expect(error).toContain(`names ${field}`);
    expect(shown).toBeUndefined();
    // Nothing registered, nothing POSTed anywhere.
    expect([...as.received, ...mcp.received].filter((r) => r.method === 'POST' && r.rpcMethod !== 'ping')).toEqual([]);
  });

  it('a javascript: authorization endpoint: the SDK refuses the document, in words naming the field', async () => {
    const { as, mcp } = await servers({
      prm: 'names the AS',
      editMetadata: (m) => ({ ...m, authorization_endpoint: 'javascript:alert(1)' }),
    });
    const { error, shown } = await tryLogin(mcp.url);
    expect(error).toMatch(/a metadata document is not valid \(authorization_endpoint: URL cannot use javascript:/);
    expect(shown).toBeUndefined();
    expect(as.received.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('a registration endpoint that will not be used (a pre-registered client) is not held against the server', async () => {
    const { mcp } = await servers({
      prm: 'names the AS',
      editMetadata: (m) => ({ ...m, registration_endpoint: 'https://10.0.0.9/register' }),
    });
    const { error, shown } = await tryLogin(mcp.url, { clientId: 'canary-public' });
    expect(error).toBeNull();
    expect(shown?.searchParams.get('client_id')).toBe('canary-public');
  });
});

describe('discovery starts at the MCP server’s own 401', () => {
  it('uses the resource_metadata URL the challenge names when the metadata is nowhere else (compliant)', async () => {
    const { mcp, paths } = await servers({ prm: 'names the AS', prmOnlyAt: '/meta/rates.json' });
    const { error, shown } = await tryLogin(mcp.url);
    expect(error).toBeNull();
    expect(shown?.searchParams.get('resource')).toBe(mcp.url);
    // The challenge was asked first, then the URL it named; no well-known URL was needed.
    expect(paths).toEqual(['POST /mcp', 'GET /meta/rates.json']);
    expect(mcp.received[0]!.rpcMethod).toBe('ping');
  });

  it('refuses a resource_metadata URL at the cloud metadata address, before anything is fetched from it', async () => {
    const { as, mcp, paths } = await servers({
      prm: 'names the AS',
      challengeMetadataUrl: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    });
    const { error, shown } = await tryLogin(mcp.url);
    expect(error).toMatch(
      /^login: the MCP server's 401 names resource_metadata http:\/\/169\.254\.169\.254\/latest\/meta-data\/iam\/security-credentials\/: .*Refused before anything was sent there/,
    );
    expect(shown).toBeUndefined();
    expect(paths).toEqual(['POST /mcp']);
    expect(as.received).toEqual([]);
  });

  it('refuses an authorization server at a cloud metadata address, in words naming it', async () => {
    const { mcp } = await servers({ prm: 'names the AS', authorizationServers: ['https://169.254.169.254/'] });
    const { error, shown } = await tryLogin(mcp.url);
    expect(error).toMatch(
      /^login: discovery and authorization: refused to fetch https:\/\/169\.254\.169\.254\/\S*: a cloud metadata address/,
    );
    expect(shown).toBeUndefined();
  });

  it('refuses metadata whose resource is another server (its tokens would be for that server)', async () => {
    const { as, mcp } = await servers({ prm: 'names the AS', prmResource: 'https://other.example.com/mcp' });
    const { error, shown } = await tryLogin(mcp.url);
    expect(error).toMatch(/Protected resource https:\/\/other\.example\.com\/mcp does not match expected/);
    expect(shown).toBeUndefined();
    expect(as.received.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it.each([
    ['the challenge’s scope, not every scope the metadata lists', { challengeScope: 'rates:read' }, undefined, 'rates:read'],
    ['every scope in scopes_supported when the challenge names none', {}, undefined, 'rates:read rates:write admin'],
    ['the configured scopes over both', { challengeScope: 'rates:read' }, ['rates:history'], 'rates:history'],
  ] as const)('asks for %s', async (_, challenge, scopes, asked) => {
    const { mcp } = await servers({ prm: 'names the AS', scopesSupported: ['rates:read', 'rates:write', 'admin'], ...challenge });
    const { error, shown } = await tryLogin(mcp.url, scopes ? { scopes: [...scopes] } : {});
    expect(error).toBeNull();
    expect(shown?.searchParams.get('scope')).toBe(asked);
  });
});
