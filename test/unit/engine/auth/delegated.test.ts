/**
 * The probe's side of a delegated grant, one block per row of the rule (functions/engine/auth/delegated.ts):
 * whose fault a missing, refused, stale or unrefreshed access token is. Pure: a published record and
 * a clock in, a step result and warnings out.
 */
import { describe, expect, it } from 'vitest';
import { delegatedToken } from '../../../../functions/engine/auth/delegated.ts';
import { faultOutcome } from '../../../../functions/base/common/step.ts';
import type { PublishedAccess } from '../../../../functions/base/config/schema/oauth-delegated.ts';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import { CanaryError } from '../../../../functions/base/common/errors.ts';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const target = { url: 'https://mcp.example.com/mcp', credentialWarningDays: 7 };
const access = (over: Partial<PublishedAccess> = {}): PublishedAccess => ({
  v: 1,
  accessToken: 'at-secret-value',
  accessExpiresAt: new Date(NOW + 30 * 60_000).toISOString(),
  generation: 3,
  status: 'ok',
  issuer: 'https://as.example.com',
  serverUrl: 'https://mcp.example.com/mcp',
  resource: 'https://mcp.example.com/mcp',
  ...over,
});
const outcomeOf = (s: ReturnType<typeof delegatedToken>) =>
  s.result.ok ? 'passed' : `${faultOutcome(s.result.fault)}/${s.result.fault.failure}`;

describe('row: a live access token, grant ok → the run goes on, no warning', () => {
  it('sends it', () => {
    const s = delegatedToken(target, { access: access() }, NOW);
    expect(s.result.ok && s.result.value.token).toBe('at-secret-value');
    expect(s.warnings).toEqual([]);
  });
});

describe('row: nothing published, or the grant refused and its token expired → inconclusive, canary_credential, with the fix', () => {
  it.each([
    ['missing', { missing: 'nothing is published in Secrets Manager secret "mcp-canary/x/access" in eu-west-1' }],
    [
      'refused + expired',
      {
        access: access({
          status: 'refused',
          accessExpiresAt: new Date(NOW - 1).toISOString(),
          problem: { kind: 'refused', detail: 'invalid_grant', since: '2026-12-01T11:00:00Z' },
        }),
      },
    ],
    ['stale (the refresher stopped)', { access: access({ accessExpiresAt: new Date(NOW - 60_000).toISOString() }) }],
  ] as const)('%s', (_, found) => {
    const s = delegatedToken(target, found, NOW);
    expect(outcomeOf(s)).toBe('inconclusive/canary_credential');
    expect(!s.result.ok && s.result.fault.detail).toContain('mcp-canary login https://mcp.example.com/mcp');
  });
});

describe('row: the grant refused, its last token still live → the run goes on, and warns with the fix', () => {
  it('warns credential_expiry', () => {
    const s = delegatedToken(
      target,
      { access: access({ status: 'refused', problem: { kind: 'refused', detail: 'invalid_grant', since: '2026-12-01T11:00:00Z' } }) },
      NOW,
    );
    expect(s.result.ok).toBe(true);
    expect(s.warnings).toEqual([
      expect.objectContaining({ kind: 'credential_expiry', detail: expect.stringContaining('was refused (invalid_grant)') }),
    ]);
  });
});

describe('row: the token endpoint down → a warning while the token lives, the endpoint’s auth failed once it expired', () => {
  const problem = {
    kind: 'unavailable' as const,
    detail: 'token endpoint https://as/token did not refresh the grant (HTTP 503)',
    since: '2026-12-01T11:30:00Z',
  };
  it('before expiry: passed, with a warning', () => {
    const s = delegatedToken(target, { access: access({ problem }) }, NOW);
    expect(s.result.ok).toBe(true);
    expect(s.warnings[0]).toMatchObject({
      kind: 'credential_expiry',
      detail: expect.stringContaining('has not refreshed the delegated grant since 2026-12-01T11:30:00Z'),
    });
  });
  it('after expiry: failed, auth (agents meet it too)', () => {
    const s = delegatedToken(target, { access: access({ problem, accessExpiresAt: new Date(NOW - 60_000).toISOString() }) }, NOW);
    expect(outcomeOf(s)).toBe('failed/auth');
    expect(!s.result.ok && s.result.fault.detail).toMatch(/agents cannot get a token either/);
  });
});

describe('row: the refresh token’s known end within credentialWarningDays → credential_expiry with its date', () => {
  it('warns 5 days ahead, not 9', () => {
    const soon = new Date(NOW + 5 * 86_400_000).toISOString();
    const s = delegatedToken(target, { access: access({ refreshExpiresAt: soon }) }, NOW);
    expect(s.warnings).toEqual([expect.objectContaining({ kind: 'credential_expiry', expiresAt: soon })]);
    expect(
      delegatedToken(target, { access: access({ refreshExpiresAt: new Date(NOW + 9 * 86_400_000).toISOString() }) }, NOW).warnings,
    ).toEqual([]);
    expect(delegatedToken({ ...target, credentialWarningDays: 0 }, { access: access({ refreshExpiresAt: soon }) }, NOW).warnings).toEqual(
      [],
    );
  });
});

describe('auth.authorizationCode in the fleet config', () => {
  const fleet = (auth: unknown) => ({
    homeRegion: 'eu-west-1',
    notify: { pages: [{ email: 'a@example.com' }] },
    targets: [{ name: 't', url: 'https://mcp.example.com/mcp', auth }],
  });
  const problem = (auth: unknown) => {
    try {
      parseFleet(fleet(auth));
    } catch (e) {
      return (e as CanaryError).message;
    }
    return 'no error';
  };
  it('fills the defaults', () => {
    const t = parseFleet(fleet({ authorizationCode: { store: { secretsManager: 'mcp-canary/t/grant' } } })).targets[0]!;
    expect(t.auth?.authorizationCode).toEqual({ store: { secretsManager: 'mcp-canary/t/grant' }, allowPrivateNetwork: false });
  });
  it.each([
    [{ authorizationCode: {} }, 'targets[0].auth.authorizationCode.store'],
    [
      { authorizationCode: { store: 'plain' } },
      'must be { secretsManager: "mcp-canary/<name>" } (scheduled runs) or { file: "path" } (the CLI)',
    ],
    [
      { authorizationCode: { store: { secretsManager: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mcp-canary/x' } } },
      'is an ARN: give the plain name',
    ],
    [
      { authorizationCode: { store: { file: 'g.json' }, clientId: 'a', clientMetadataUrl: 'https://c.example.com/client.json' } },
      'clientId and clientMetadataUrl both name the client',
    ],
    [
      { authorizationCode: { store: { file: 'g.json' }, clientMetadataUrl: 'http://c.example.com/client.json' } },
      'is not an https URL with a path',
    ],
    [
      { oauth: { clientId: 'c', clientSecret: { env: 'X' } }, authorizationCode: { store: { file: 'g.json' } } },
      'must hold exactly one of oauth (client credentials) or authorizationCode',
    ],
  ])('%j → %s', (auth, message) => {
    expect(problem(auth)).toContain(message);
  });
});

describe('row: a token for another server → inconclusive, canary_credential, never sent', () => {
  it.each([
    [
      'another server',
      { serverUrl: 'https://other.example.com/mcp', resource: 'https://other.example.com/mcp' },
      /issued for https:\/\/other\.example\.com\/mcp, not https:\/\/mcp\.example\.com\/mcp/,
    ],
    ['unbound (published before grants were bound)', { serverUrl: undefined }, /re-published bound by the refresher/],
  ] as const)('%s', (_, binding, words) => {
    const s = delegatedToken(target, { access: access(binding) }, NOW);
    expect(outcomeOf(s)).toBe('inconclusive/canary_credential');
    expect(!s.result.ok && s.result.fault.detail).toMatch(words);
    expect(!s.result.ok && s.result.fault.detail).toContain('It was not sent');
  });

  it('even when the token is live and the grant ok: the binding is judged first', () => {
    const s = delegatedToken(target, { access: access({ serverUrl: 'https://mcp.example.com/mcp-evil' }) }, NOW);
    expect(s.result.ok).toBe(false);
  });
});
