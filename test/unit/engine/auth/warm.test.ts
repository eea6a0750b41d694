/**
 * A warm function: the token lives in the process, not in the run. Counted at the authorization
 * server itself (POST /token), so a cache that lies cannot pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Target } from '../../../../functions/base/config/schema/target.ts';
import { REFRESH_BEFORE_MS, TokenCache } from '../../../../functions/engine/auth/tokens.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  SCOPE,
  rsaClientKey,
  startAuthServer,
  startProtectedMcp,
  type AuthServer,
  type ProtectedMcp,
} from '../../../helpers/auth/servers.ts';

let as: AuthServer;
let mcp: ProtectedMcp;
const resources: string[] = [];

beforeAll(async () => {
  as = await startAuthServer({ clientKey: rsaClientKey(), resources: () => resources });
  mcp = await startProtectedMcp({ issuer: as.issuer });
  resources.push(mcp.url);
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
});

function target(name = 'rates-oauth'): Target {
  return Target.parse({
    name,
    url: mcp.url,
    tool: { name: 'get_rate' },
    timeoutMs: 3_000,
    budgetMs: 10_000,
    auth: { oauth: { clientId: CLIENT_ID, clientSecret: { secretsManager: 'canary/oauth' }, scopes: [SCOPE] } },
  });
}
const oauthSecrets = { clientSecret: CLIENT_SECRET };

describe('a warm function reuses its token', () => {
  it('makes one token request for two runs, and the second run says the token came from the cache', async () => {
    const cache = new TokenCache();
    const before = as.tokenRequests();
    const first = await judge(target(), { oauthSecrets, tokenCache: cache });
    const metadataAfterFirst = mcp.metadataRequests();
    const second = await judge(target(), { oauthSecrets, tokenCache: cache });
    expect([first.outcome, second.outcome]).toEqual(['healthy', 'healthy']);
    expect(as.tokenRequests() - before).toBe(1);
    expect(first.probes[0]!.detail).toContain('(new,');
    expect(second.probes[0]!.detail).toContain('(cached,');
    // No discovery either: the cached token skips the metadata requests too (counted, not timed: a step's
    // duration is a coin toss on a loaded machine).
    expect(metadataAfterFirst).toBeGreaterThan(0);
    expect(mcp.metadataRequests()).toBe(metadataAfterFirst);
  });

  it(`refreshes a token ${REFRESH_BEFORE_MS / 1000} s before it expires, not earlier`, async () => {
    let clock = Date.now();
    const cache = new TokenCache(() => clock);
    const deps = { oauthSecrets, tokenCache: cache, wallNow: () => clock };
    const before = as.tokenRequests();
    const first = await judge(target(), deps);
    expect(first.probes[0]!.detail).toMatch(/\(new, expires in (59|60) minutes\)/);
    // The server's tokens live 3600 s: just outside the refresh window the cached one is still used…
    clock += 3_600_000 - REFRESH_BEFORE_MS - 2_000;
    const cached = await judge(target(), deps);
    expect(cached.probes[0]!.detail).toMatch(/\(cached, expires in 1 minute\)/);
    expect(as.tokenRequests() - before).toBe(1);
    // …and inside it a new one is requested before the old one expires.
    clock += 4_000;
    const refreshed = await judge(target(), deps);
    expect(refreshed.outcome).toBe('healthy');
    expect(refreshed.probes[0]!.detail).toMatch(/\(new, expires in (59|60) minutes\)/);
    expect(as.tokenRequests() - before).toBe(2);
  });

  it('never makes two token requests at once for one key: eight concurrent judges share one', async () => {
    const cache = new TokenCache();
    const before = as.tokenRequests();
    const verdicts = await Promise.all(Array.from({ length: 8 }, (_, i) => judge(target(`t${i}`), { oauthSecrets, tokenCache: cache })));
    expect(verdicts.map((v) => v.outcome)).toEqual(Array(8).fill('healthy'));
    expect(as.tokenRequests() - before).toBe(1);
    expect(cache.requests).toBe(1);
    expect(verdicts.filter((v) => v.probes[0]!.detail.includes('(new,'))).toHaveLength(1);
  });

  it('keeps separate tokens for separate keys: a different secret never borrows a token', async () => {
    const cache = new TokenCache();
    await judge(target(), { oauthSecrets, tokenCache: cache });
    const wrong = await judge(target(), { oauthSecrets: { clientSecret: 'cs-not-the-right-one-42' }, tokenCache: cache });
    expect(wrong).toMatchObject({ outcome: 'failed', failure: 'auth' });
    expect(wrong.detail).toMatch(/invalid_client/);
  });
});
