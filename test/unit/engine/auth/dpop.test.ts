/**
 * DPoP (RFC 9449): an authorization server that answers with `token_type: "DPoP"` issued a token bound
 * to a key the canary does not hold; sent as Bearer, every probe would be refused and blamed on the MCP
 * server. Every path refuses it with the same words and what to do: `mcp-canary login` (storing no
 * grant), the client credentials token step (the refresher: refresh-refusals.test.ts). Real parts:
 * oidc-provider (its token answers' type rewritten to DPoP, or demanding a proof) and the SDK's own
 * login flow; a loopback token endpoint for client credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login } from '../../../../functions/engine/auth/login.ts';
import { Target } from '../../../../functions/base/config/schema/target.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { startFaultServer } from '../../../helpers/faults.ts';
import { consent, startDelegatedAuthServer, type DelegatedAuthServer } from '../../../helpers/auth/delegated.ts';
import { startProtectedMcp, type ProtectedMcp } from '../../../helpers/auth/servers.ts';

let as: DelegatedAuthServer;
let mcp: ProtectedMcp;
let demanding: DelegatedAuthServer;
let demandingMcp: ProtectedMcp;
const resources: string[] = [];

beforeAll(async () => {
  as = await startDelegatedAuthServer({ resources: () => resources, tokenType: 'DPoP' });
  mcp = await startProtectedMcp({ issuer: as.issuer });
  demanding = await startDelegatedAuthServer({ resources: () => resources, demandDpop: true });
  demandingMcp = await startProtectedMcp({ issuer: demanding.issuer });
  resources.push(mcp.url, demandingMcp.url);
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
  await demandingMcp?.close();
  await demanding?.close();
});

/** One login against `serverUrl`, the person consenting; its error, or null when it stored a grant. */
async function loginError(serverUrl: string): Promise<Error | null> {
  let answered: Promise<URLSearchParams> | undefined;
  const error = await login({
    serverUrl,
    settings: { allowPrivateNetwork: false },
    onAuthorizationUrl: (u) => {
      answered = consent(u);
    },
    onSecret: () => {},
    waitMs: 20_000,
  }).then(
    () => null,
    (e: Error) => e,
  );
  await answered;
  return error;
}

describe('mcp-canary login against a server that issues DPoP-bound tokens', () => {
  it('refuses the token with what to do, keeps no grant, and shows no token', async () => {
    const secrets: string[] = [];
    let answered: Promise<URLSearchParams> | undefined;
    const run = login({
      serverUrl: mcp.url,
      settings: { allowPrivateNetwork: false },
      onAuthorizationUrl: (u) => {
        answered = consent(u);
      },
      onSecret: (s) => secrets.push(s),
      waitMs: 20_000,
    });
    const error = await run.then(
      () => null,
      (e: Error) => e,
    );
    await answered;
    expect(error).not.toBeNull();
    expect(error!.message).toMatch(/issued a DPoP token/);
    expect(error!.message).toMatch(/does not support DPoP-bound tokens/);
    expect(error!.message).toMatch(/Bearer/);
    // The token was issued (so the refusal is ours, not the server's), and never shown.
    expect(as.issued.length).toBeGreaterThan(0);
    for (const t of as.issued) expect(error!.message).not.toContain(t);
  });

  it('a server that demands a DPoP proof (invalid_dpop_proof): the same words, not a bare OAuth code', async () => {
    const error = await loginError(demandingMcp.url);
    expect(error?.message).toMatch(/token exchange: the authorization server demands a DPoP proof \(invalid_dpop_proof\)/);
    expect(error?.message).toMatch(/does not support DPoP-bound tokens.*issue Bearer tokens/);
  });
});

describe('the client credentials token step against a token endpoint that issues DPoP', () => {
  it('is the auth probe, failed, with the same words, and no token in the verdict', async () => {
    const token = 'at-dpop-cc-5d1c8e-never-shown';
    const endpoint = await startFaultServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: token, token_type: 'DPoP', expires_in: 3600 }));
    });
    try {
      const target = Target.parse({
        name: 'cc-dpop',
        url: mcp.url,
        timeoutMs: 3_000,
        auth: { oauth: { clientId: 'canary-svc', clientSecret: { env: 'CANARY_SECRET' }, tokenUrl: `${endpoint.url}/token` } },
      });
      const v = await judge(target, { oauthSecrets: { clientSecret: 'cc-secret-never-shown' } });
      expect(v.probes[0]?.name).toBe('auth');
      expect(v.failure).toBe('auth');
      expect(v.detail).toMatch(/issued a DPoP token: the canary sends Bearer tokens only and does not support DPoP-bound tokens/);
      expect(v.detail).toContain("the canary's client canary-svc (turn off DPoP binding for it)");
      expect(JSON.stringify(v)).not.toContain(token);
    } finally {
      await endpoint.close();
    }
  });
});
