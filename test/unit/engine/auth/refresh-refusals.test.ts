/**
 * Whose fault a refresh that did not work is, for the answers real authorization servers give besides
 * oidc-provider's `invalid_grant`: consent withdrawn (`access_denied`), a new sign-in, MFA or consent
 * demanded (`login_required`, `interaction_required`, `consent_required`: Entra ID, Keycloak), a scope
 * the grant no longer covers. Each is the canary's own credential: kept `refused`, never sent again, and
 * the probe runs end `inconclusive`/`canary_credential` when the last token expires, never a page to the
 * endpoint's owner. An outage is said in on-call's words (status, timeout, a gateway's HTML), and stays
 * the agents' problem too. A real HTTP token endpoint on 127.0.0.1 answers, byte for byte.
 */
import { mkdtemp } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { delegatedToken } from '../../../../functions/engine/auth/delegated.ts';
import { FileGrantStore } from '../../../../functions/engine/auth/grant-file.ts';
import { withOAuthFetch } from '../../../../functions/engine/auth/oauth-fetch.ts';
import { keepFresh } from '../../../../functions/engine/auth/rotate.ts';
import { faultOutcome } from '../../../../functions/base/common/step.ts';
import { publishedOf, type StoredGrant } from '../../../../functions/base/config/schema/oauth-delegated.ts';
import { startFaultServer, type FaultServer } from '../../../helpers/faults.ts';

const REFRESH_TOKEN = 'rt-7c1e9a5f3b2d4e60-never-shown';
let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A token endpoint that answers every request with `answer`, and a grant due for refresh in a file. */
async function grantAgainst(answer: (res: ServerResponse) => void) {
  server = await startFaultServer((_req, res) => answer(res));
  const base = new URL(server.url).origin;
  const issued = Date.now() - 40 * 60_000;
  const grant: StoredGrant = {
    v: 1,
    serverUrl: `${base}/mcp`,
    issuer: base,
    metadata: { issuer: base, token_endpoint: `${base}/token` },
    resource: `${base}/mcp`,
    client: { client_id: 'canary-public' },
    refreshToken: REFRESH_TOKEN,
    accessToken: 'at-live-for-20-more-minutes',
    accessIssuedAt: new Date(issued).toISOString(),
    accessExpiresAt: new Date(issued + 60 * 60_000).toISOString(),
    generation: 4,
    status: 'ok',
  };
  const store = new FileGrantStore(join(await mkdtemp(join(tmpdir(), 'canary-refusal-')), 'grant.json'));
  await store.swap(null, grant);
  const refresh = (now = Date.now()) =>
    withOAuthFetch({ allowPrivateNetwork: false, serverUrl: grant.serverUrl, timeoutMs: 1_500 }, (fetch) =>
      keepFresh(store, { fetch, now: () => now, onSecret: () => {}, holder: `test-${Math.random()}` }),
    );
  return { refresh, grant, store, requests: () => server!.received.length };
}

const oauthError = (status: number, error: string, description?: string) => (res: ServerResponse) =>
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error, ...(description ? { error_description: description } : {}) }));

describe('a refresh only a person can mend → refused, the canary owner hears, the endpoint owner is never paged', () => {
  it.each([
    ['consent withdrawn', oauthError(400, 'access_denied', 'The user revoked consent')],
    ['a new sign-in demanded', oauthError(400, 'login_required')],
    ['MFA demanded (Entra ID)', oauthError(400, 'interaction_required', 'AADSTS50076: multi-factor authentication required')],
    ['consent demanded again', oauthError(400, 'consent_required')],
    ['the grant no longer covers its scope', oauthError(400, 'invalid_scope')],
    ['the client is gone', oauthError(401, 'invalid_client')],
    ['revoked', oauthError(400, 'invalid_grant', 'grant request is invalid')],
    // A client switched to DPoP at the server: only that server's owner and a new login can mend it, not retries.
    ['a DPoP proof demanded', oauthError(400, 'invalid_dpop_proof', 'DPoP proof JWT header is missing')],
    ['a DPoP nonce demanded', oauthError(400, 'use_dpop_nonce')],
  ])('%s', async (name, answer) => {
    const { refresh, grant, requests } = await grantAgainst(answer);
    const r = await refresh();
    expect(r.kind).toBe('refused');
    if (r.kind === 'missing') throw new Error('no grant');
    expect(r.grant.status).toBe('refused');
    // Never sent again: retrying cannot mend it.
    expect((await refresh()).kind).toBe('refused');
    expect(requests()).toBe(1);
    // Once the last access token has expired, the probes are inconclusive with the fix, not failed/auth.
    const after = Date.parse(grant.accessExpiresAt) + 60_000;
    const step = delegatedToken({ url: grant.serverUrl, credentialWarningDays: 7 }, { access: publishedOf(r.grant) }, after);
    expect(step.result.ok).toBe(false);
    if (step.result.ok) return;
    expect(`${faultOutcome(step.result.fault)}/${step.result.fault.failure}`).toBe('inconclusive/canary_credential');
    expect(step.result.fault.detail).toContain(`mcp-canary login ${grant.serverUrl}`);
    expect(JSON.stringify(r.grant.problem)).not.toContain(REFRESH_TOKEN);
    if (name.includes('DPoP')) expect(step.result.fault.detail).toMatch(/demands a DPoP proof .*does not support DPoP-bound tokens/);
  });
});

describe('a token endpoint that is down → unavailable, said in on-call words, tried again next run', () => {
  it.each([
    [
      'a gateway page (HTTP 502, HTML)',
      (res: ServerResponse) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>'),
      'HTTP 502, not an OAuth token answer',
    ],
    [
      'HTML with 200 (a sign-in page)',
      (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in</html>'),
      'HTTP 200, not an OAuth token answer',
    ],
    ['temporarily_unavailable', oauthError(503, 'temporarily_unavailable'), 'HTTP 503: temporarily_unavailable'],
    ['a reset connection', (res: ServerResponse) => res.socket?.destroy(), 'the connection failed ('],
    ['no answer', () => {}, 'no answer within the request timeout'],
  ])('%s', async (_, answer, words) => {
    const { refresh, requests } = await grantAgainst(answer);
    const r = await refresh();
    expect(r.kind).toBe('unavailable');
    if (r.kind === 'missing') throw new Error('no grant');
    expect(r.grant.status).toBe('ok');
    expect(r.grant.problem?.detail).toContain(words);
    expect(r.grant.problem?.detail).not.toMatch(/Error:|Bad Gateway|Sign in/);
    // Tried again on the next run (the grant is not given up).
    await refresh();
    expect(requests()).toBeGreaterThanOrEqual(2);
  });
});

describe('a refresh answered with a DPoP-bound token → refused as the canary’s own credential, never published', () => {
  const dpopToken = 'at-dpop-bound-2b6f1d-never-shown';
  const rotated = 'rt-rotated-9e4a7c-never-shown';
  it.each([['DPoP'], ['dpop']])('token_type %s', async (type) => {
    const { refresh, grant } = await grantAgainst((res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: dpopToken, token_type: type, expires_in: 3600, refresh_token: rotated })),
    );
    const r = await refresh();
    expect(r.kind).toBe('refused');
    if (r.kind === 'missing') throw new Error('no grant');
    // The bound token is never stored, so never published to a probe region as if it were Bearer.
    expect(r.grant.accessToken).toBe(grant.accessToken);
    expect(r.grant.problem?.detail).toMatch(
      /issued a DPoP token: the canary sends Bearer tokens only and does not support DPoP-bound tokens/,
    );
    expect(r.grant.problem?.detail).toContain("issue Bearer tokens to the canary's client canary-public (turn off DPoP binding for it)");
    const stored = JSON.stringify(r.grant);
    expect(stored).not.toContain(dpopToken);
    expect(stored).not.toContain(rotated);
    // While the last Bearer token lives the runs go on with a warning; after it, inconclusive with the fix.
    const live = delegatedToken({ url: grant.serverUrl, credentialWarningDays: 7 }, { access: publishedOf(r.grant) }, Date.now());
    expect(live.result.ok).toBe(true);
    expect(live.warnings.map((w) => w.detail).join('\n')).toContain('DPoP');
    const after = Date.parse(grant.accessExpiresAt) + 60_000;
    const step = delegatedToken({ url: grant.serverUrl, credentialWarningDays: 7 }, { access: publishedOf(r.grant) }, after);
    if (step.result.ok) throw new Error('expected a fault');
    expect(`${faultOutcome(step.result.fault)}/${step.result.fault.failure}`).toBe('inconclusive/canary_credential');
    expect(step.result.fault.detail).toContain('DPoP');
    expect(step.result.fault.detail).toContain(`mcp-canary login ${grant.serverUrl}`);
    expect(step.result.fault.detail).not.toContain(dpopToken);
  });
});
