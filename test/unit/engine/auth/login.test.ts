/**
 * `mcp-canary login`'s flow against a real authorization server (oidc-provider: authorization code,
 * PKCE required, dynamic registration, rotating refresh tokens), its sign-in and consent pages answered
 * over HTTP; then the grant kept fresh in a file under a lock, and the target judged with it.
 */
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login } from '../../../../functions/engine/auth/login.ts';
import { FileGrantStore } from '../../../../functions/engine/auth/grant-file.ts';
import { keepFresh } from '../../../../functions/engine/auth/rotate.ts';
import { publishedOf } from '../../../../functions/base/config/schema/oauth-delegated.ts';
import { Target } from '../../../../functions/base/config/schema/target.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { consent, PUBLIC_CLIENT_ID, startDelegatedAuthServer, type DelegatedAuthServer } from '../../../helpers/auth/delegated.ts';
import { startProtectedMcp, type ProtectedMcp } from '../../../helpers/auth/servers.ts';

let as: DelegatedAuthServer;
let mcp: ProtectedMcp;
const resources: string[] = [];
let dir: string;

beforeAll(async () => {
  as = await startDelegatedAuthServer({ resources: () => resources });
  mcp = await startProtectedMcp({ issuer: as.issuer });
  resources.push(mcp.url);
  dir = await mkdtemp(join(tmpdir(), 'canary-login-'));
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
});

async function loggedIn(settings: { clientId?: string } = {}) {
  const secrets: string[] = [];
  let seen: URL | undefined;
  let answered: Promise<URLSearchParams> | undefined;
  const grant = await login({
    serverUrl: mcp.url,
    settings: { allowPrivateNetwork: false, ...settings },
    onAuthorizationUrl: (u) => {
      seen = u;
      answered = consent(u);
    },
    onSecret: (s) => secrets.push(s),
    waitMs: 20_000,
  });
  await answered;
  return { grant, url: seen!, secrets };
}

describe('mcp-canary login (the flow)', () => {
  it('registers dynamically, sends PKCE S256, state and resource, and ends in a grant with a refresh token', async () => {
    const before = as.registrations();
    const { grant, url, secrets } = await loggedIn();
    expect(as.registrations()).toBe(before + 1);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')?.length).toBeGreaterThan(30);
    expect(url.searchParams.get('resource')).toBe(mcp.url);
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(grant).toMatchObject({ issuer: as.issuer, resource: mcp.url, status: 'ok', generation: 0 });
    expect(grant.refreshToken).toBeTruthy();
    expect(secrets).toContain(grant.refreshToken);
    expect(secrets).toContain(grant.accessToken);
  });

  it('uses a pre-registered client id without registering', async () => {
    const before = as.registrations();
    const { grant } = await loggedIn({ clientId: PUBLIC_CLIENT_ID });
    expect(as.registrations()).toBe(before);
    expect(grant.client.client_id).toBe(PUBLIC_CLIENT_ID);
  });

  it('refuses an answer whose state is not the one it sent', async () => {
    const run = login({
      serverUrl: mcp.url,
      settings: { allowPrivateNetwork: false },
      onAuthorizationUrl: async (u) => {
        const redirect = new URL(u.searchParams.get('redirect_uri')!);
        redirect.search = new URLSearchParams({ code: 'forged', state: 'someone-elses' }).toString();
        await fetch(redirect);
      },
      onSecret: () => {},
      waitMs: 10_000,
    });
    await expect(run).rejects.toThrow(/another state than this login sent/);
  });
});

describe('a file store (the CLI)', () => {
  it('is written 0600, refreshed at half life through rotations, and judges healthy', async () => {
    const { grant } = await loggedIn();
    const store = new FileGrantStore(join(dir, 'rates.grant.json'));
    expect(await store.swap(null, grant)).not.toBe(false);
    expect((await stat(join(dir, 'rates.grant.json'))).mode & 0o777).toBe(0o600);
    const issued = Date.parse(grant.accessIssuedAt);
    let t = issued;
    const tokens = new Set<string>();
    for (let i = 0; i < 3; i++) {
      t += 31 * 60_000;
      const r = await keepFresh(store, { fetch: fetch, now: () => t, onSecret: () => {}, holder: `cli-${i}` });
      expect(r.kind).toBe('refreshed');
      if (r.kind === 'missing') throw new Error('no grant');
      tokens.add(r.grant.refreshToken!);
    }
    expect(tokens.size).toBe(3);
    const now = await store.read();
    const target = Target.parse({
      name: 'delegated',
      url: mcp.url,
      tool: { name: 'get_rate' },
      auth: { authorizationCode: { store: { file: join(dir, 'rates.grant.json') } } },
    });
    const v = await judge(target, { oauthSecrets: { delegated: { access: publishedOf(now!.grant) } } });
    expect(v.outcome).toBe('healthy');
    expect(JSON.stringify(v)).not.toContain(now!.grant.accessToken);
    expect(as.tokenErrors).toEqual([]);
  });
});
