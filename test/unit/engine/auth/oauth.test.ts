/**
 * The token step against a real authorization server (oidc-provider) and a real MCP server that
 * verifies the token's signature, issuer, audience, expiry and scope. Every case checks which probe
 * failed, which side the detail names, and that no secret or token reached the verdict.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Target, type TargetInput } from '../../../../functions/base/config/schema/target.ts';
import type { OAuthSettings } from '../../../../functions/base/config/schema/oauth.ts';
import { TokenCache } from '../../../../functions/engine/auth/tokens.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import type { Verdict } from '../../../../functions/base/common/verdict.ts';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  JWT_CLIENT_ID,
  SCOPE,
  rsaClientKey,
  startAuthServer,
  startProtectedMcp,
  type AuthServer,
  type ClientKey,
  type ProtectedMcp,
} from '../../../helpers/auth/servers.ts';

const OTHER_RESOURCE = 'https://other.example/mcp';
let key: ClientKey;
let as: AuthServer;
let mcp: ProtectedMcp;
const resources: string[] = [OTHER_RESOURCE];

beforeAll(async () => {
  key = rsaClientKey();
  as = await startAuthServer({ clientKey: key, resources: () => resources });
  mcp = await startProtectedMcp({ issuer: as.issuer });
  resources.push(mcp.url);
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
});

type OAuthInput = NonNullable<TargetInput['auth']>['oauth'];

function oauthTarget(url: string, oauth: Partial<OAuthInput> = {}): Target {
  return Target.parse({
    name: 'rates-oauth',
    url,
    tool: { name: 'get_rate' },
    timeoutMs: 3_000,
    budgetMs: 10_000,
    auth: { oauth: { clientId: CLIENT_ID, clientSecret: { env: 'CANARY_SECRET' }, scopes: [SCOPE], ...oauth } },
  });
}

/** A fresh cache per case: nothing carries over between cases unless a case says so. */
function run(
  t: Target,
  secrets: { clientSecret?: string; privateKey?: string } = { clientSecret: CLIENT_SECRET },
  cache = new TokenCache(),
): Promise<Verdict> {
  return judge(t, { oauthSecrets: secrets, tokenCache: cache });
}

/** No secret, key line or issued token anywhere in the verdict. */
function expectNoSecrets(v: Verdict): void {
  const text = JSON.stringify(v);
  expect(text).not.toContain(CLIENT_SECRET);
  for (const token of as.issued) expect(text).not.toContain(token);
  for (const line of key.privateKeyPem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'))) expect(text).not.toContain(line);
}

describe('healthy: the token step is the first probe and the MCP server accepts the token', () => {
  it('gets a token with a client secret (client_secret_basic) and judges the endpoint healthy', async () => {
    const acceptedBefore = mcp.accepted();
    const v = await run(oauthTarget(mcp.url));
    expect(v).toMatchObject({ outcome: 'healthy', failure: null, warnings: [] });
    expect(v.probes.map((p) => p.name)).toEqual(['auth', 'discover', 'tools/list', 'tools/call']);
    expect(v.probes[0]).toMatchObject({ ok: true, failure: null });
    expect(v.probes[0]!.detail).toMatch(new RegExp(`^token from ${as.issuer} \\(new, expires in (59|60) minutes\\)$`));
    expect(v.probes[0]!.durationMs).toBeGreaterThanOrEqual(0);
    // The server verified signature, issuer, audience and scope on every request it served.
    expect(mcp.accepted() - acceptedBefore).toBeGreaterThanOrEqual(3);
    expectNoSecrets(v);
  });

  it('gets a token with a private key JWT assertion (RFC 7523) and judges the endpoint healthy', async () => {
    const t = oauthTarget(mcp.url, {
      clientId: JWT_CLIENT_ID,
      clientSecret: undefined,
      privateKeyJwt: { privateKey: { file: '/unused' }, alg: 'RS256' },
    });
    const v = await run(t, { privateKey: key.privateKeyPem });
    expect(v).toMatchObject({ outcome: 'healthy', failure: null });
    expect(v.probes[0]).toMatchObject({ name: 'auth', ok: true });
    expectNoSecrets(v);
  });

  it('finds the metadata at the well-known URL when the 401 challenge names none', async () => {
    const quiet = await startProtectedMcp({ issuer: as.issuer, advertise: 'well-known' });
    resources.push(quiet.url);
    try {
      const v = await run(oauthTarget(quiet.url));
      expect(v.outcome).toBe('healthy');
      expect(quiet.metadataRequests()).toBeGreaterThanOrEqual(1);
    } finally {
      await quiet.close();
    }
  });

  it('skips discovery entirely with an explicit tokenUrl', async () => {
    const before = mcp.metadataRequests();
    const v = await run(oauthTarget(mcp.url, { tokenUrl: `${as.issuer}/token`, issuer: as.issuer }));
    expect(v.outcome).toBe('healthy');
    expect(mcp.metadataRequests()).toBe(before);
  });
});

describe('the token endpoint refused: auth on the auth probe, naming the endpoint and the OAuth error', () => {
  const cases: Array<[string, Partial<OAuthSettings>, { clientSecret?: string }, RegExp]> = [
    ['a revoked (unknown) client', { clientId: 'revoked-client' }, { clientSecret: CLIENT_SECRET }, /invalid_client/],
    ['a wrong client secret', {}, { clientSecret: 'cs-wrong-0000-1111-2222' }, /invalid_client/],
    ['a scope the client may not have', { scopes: ['mcp:admin'] }, { clientSecret: CLIENT_SECRET }, /invalid_scope/],
    [
      'a resource the authorization server does not serve (RFC 8707)',
      { resource: 'https://unknown.example/mcp' },
      { clientSecret: CLIENT_SECRET },
      /invalid_target/,
    ],
  ];
  for (const [name, oauth, secrets, code] of cases) {
    it(`ends auth for ${name}`, async () => {
      const acceptedBefore = mcp.accepted();
      const v = await run(oauthTarget(mcp.url, oauth as Partial<OAuthInput>), secrets);
      expect(v).toMatchObject({ outcome: 'failed', failure: 'auth' });
      expect(v.probes).toHaveLength(1);
      expect(v.probes[0]).toMatchObject({ name: 'auth', ok: false, failure: 'auth' });
      expect(v.detail).toContain(`token endpoint ${as.issuer}/token refused (HTTP 4`);
      expect(v.detail).toMatch(code);
      // No MCP request was made with a token we do not have.
      expect(mcp.accepted()).toBe(acceptedBefore);
      expect(JSON.stringify(v)).not.toContain('cs-wrong-0000-1111-2222');
      expectNoSecrets(v);
    });
  }
});

describe('discovery failed: auth on the auth probe, naming the URL and what came back', () => {
  it('ends auth when the server advertises no protected resource metadata', async () => {
    const bare = await startProtectedMcp({ issuer: as.issuer, advertise: 'none' });
    try {
      const v = await run(oauthTarget(bare.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'auth' });
      expect(v.probes[0]).toMatchObject({ name: 'auth', failure: 'auth' });
      const origin = new URL(bare.url).origin;
      expect(v.detail).toContain('discovery: the server advertises no protected resource metadata (RFC 9728)');
      expect(v.detail).toContain(`${origin}/.well-known/oauth-protected-resource/mcp → 404`);
      expect(v.detail).toContain('set auth.oauth.tokenUrl');
    } finally {
      await bare.close();
    }
  });

  it('ends auth on an issuer mismatch and sends no credentials', async () => {
    const tokensBefore = as.tokenRequests();
    const v = await run(oauthTarget(mcp.url, { issuer: 'https://login.example.com/tenant' }));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'auth' });
    expect(v.detail).toBe(
      `auth: discovery: issuer mismatch: the server names authorization server(s) ${as.issuer}, not the expected issuer https://login.example.com/tenant (auth.oauth.issuer)`,
    );
    expect(as.tokenRequests()).toBe(tokensBefore);
  });

  it('refuses metadata that points at a private address', async () => {
    const evil = await startProtectedMcp({ issuer: as.issuer, authorizationServers: ['https://10.20.30.40/'] });
    try {
      const v = await run(oauthTarget(evil.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'auth' });
      expect(v.detail).toContain(
        'discovery: authorization server metadata URL https://10.20.30.40/.well-known/oauth-authorization-server refused: a private address (10.20.30.40)',
      );
      expect(v.detail).toContain('allowPrivateNetwork');
    } finally {
      await evil.close();
    }
  });

  it('refuses metadata that points at the cloud metadata endpoint, even with allowPrivateNetwork', async () => {
    const evil = await startProtectedMcp({ issuer: as.issuer, authorizationServers: ['https://169.254.169.254/'] });
    try {
      const v = await run(oauthTarget(evil.url, { allowPrivateNetwork: true }));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'auth' });
      expect(v.detail).toContain('refused: a cloud metadata address (169.254.169.254), never followed');
    } finally {
      await evil.close();
    }
  });
});

describe('the MCP server refused the token: auth on a later probe', () => {
  it('names a wrong audience as the server refusing the token', async () => {
    const v = await run(oauthTarget(mcp.url, { resource: OTHER_RESOURCE }));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'auth' });
    expect(v.probes[0]).toMatchObject({ name: 'auth', ok: true });
    expect(v.probes[1]).toMatchObject({ name: 'discover', ok: false, failure: 'auth' });
    expect(v.detail).toMatch(
      /^discover: the MCP server refused the OAuth token \(invalid_token\); HTTP 401.*The token audience is not this server/,
    );
    expectNoSecrets(v);
  });

  it('names a token without the scope the server requires (insufficient_scope)', async () => {
    // oidc-provider drops a scope it does not know at all and issues the token without it.
    const v = await run(oauthTarget(mcp.url, { scopes: ['mcp:write'] }));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'auth' });
    expect(v.probes[0]).toMatchObject({ name: 'auth', ok: true });
    expect(v.detail).toMatch(/^discover: the MCP server refused the OAuth token \(insufficient_scope\); HTTP 403/);
  });

  it('names an expired token as the server refusing it, and gets a new token on the next run', async () => {
    const ahead = await startProtectedMcp({ issuer: as.issuer, clockAheadSeconds: 7200 });
    resources.push(ahead.url);
    const cache = new TokenCache();
    try {
      const v = await run(oauthTarget(ahead.url), { clientSecret: CLIENT_SECRET }, cache);
      expect(v).toMatchObject({ outcome: 'failed', failure: 'auth' });
      expect(v.probes[0]).toMatchObject({ name: 'auth', ok: true });
      expect(v.detail).toMatch(/the MCP server refused the OAuth token \(invalid_token\).*The access token expired/);
      expectNoSecrets(v);
      // The refused token is dropped: the next run asks the authorization server again.
      const before = as.tokenRequests();
      const again = await run(oauthTarget(ahead.url), { clientSecret: CLIENT_SECRET }, cache);
      expect(again.probes[0]!.detail).toContain('(new,');
      expect(as.tokenRequests()).toBe(before + 1);
    } finally {
      await ahead.close();
    }
  });
});

describe("the canary's own configuration", () => {
  it('is inconclusive, not auth, when the private key does not parse', async () => {
    const t = oauthTarget(mcp.url, {
      clientId: JWT_CLIENT_ID,
      clientSecret: undefined,
      privateKeyJwt: { privateKey: { file: '/unused' }, alg: 'RS256' },
    });
    // PEM armour around no key at all (built from parts, so no scanner mistakes the test for a leak).
    const armour = (edge: string) => `-----${edge} PRIVATE KEY-----`;
    const v = await run(t, { privateKey: `${armour('BEGIN')}\nnot-a-key-at-all-0123456789\n${armour('END')}` });
    expect(v).toMatchObject({ outcome: 'inconclusive', failure: null });
    expect(v.detail).toContain('auth.oauth.privateKeyJwt.privateKey is not a PKCS#8 PEM private key for RS256');
    expect(JSON.stringify(v)).not.toContain('not-a-key-at-all-0123456789');
  });
});
