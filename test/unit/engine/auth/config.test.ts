/** The `auth.oauth` block and the warning windows in a fleet config: defaults, and one-line errors naming the field and the fix. */
import { describe, expect, it } from 'vitest';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import { CanaryError } from '../../../../functions/base/common/errors.ts';

const base = { name: 'rates', url: 'https://rates.example/mcp' };
const fleet = (target: Record<string, unknown>) => ({ homeRegion: 'eu-west-1', targets: [{ ...base, ...target }] });
const oauth = (o: Record<string, unknown>) =>
  fleet({ auth: { oauth: { clientId: 'canary', clientSecret: { secretsManager: 'canary/oauth' }, ...o } } });

function errorOf(raw: unknown): string {
  try {
    parseFleet(raw, 'mcp-canary.config.ts');
  } catch (e) {
    expect(e).toBeInstanceOf(CanaryError);
    return (e as Error).message;
  }
  throw new Error('expected a config error');
}

describe('auth.oauth in the fleet config', () => {
  it('fills the documented defaults', () => {
    const t = parseFleet(oauth({ privateKeyJwt: undefined })).targets[0]!;
    expect(t).toMatchObject({ certWarningDays: 14, credentialWarningDays: 7 });
    expect(t.auth?.oauth).toMatchObject({ clientId: 'canary', allowPrivateNetwork: false });
    const k = parseFleet(fleet({ auth: { oauth: { clientId: 'c', privateKeyJwt: { privateKey: { ssmParameter: '/canary/key' } } } } }))
      .targets[0]!;
    expect(k.auth?.oauth?.privateKeyJwt?.alg).toBe('RS256');
    expect(parseFleet(fleet({})).targets[0]!.auth).toBeUndefined();
  });

  it.each([
    [
      oauth({ clientSecret: 'plain-text-secret' }),
      'mcp-canary.config.ts: targets[0].auth.oauth.clientSecret must be a reference, never the secret itself: { secretsManager: "<arn or name>" }',
    ],
    [oauth({ privateKeyJwt: { privateKey: { env: 'KEY' } } }), 'targets[0].auth.oauth.clientSecret or privateKeyJwt: give exactly one'],
    [fleet({ auth: { oauth: { clientId: 'c' } } }), 'targets[0].auth.oauth.clientSecret or privateKeyJwt: give exactly one'],
    [
      oauth({ clientId: '' }),
      'targets[0].auth.oauth.clientId is empty: give the client_id the authorization server registered for the canary',
    ],
    [
      oauth({ scopes: ['mcp:read mcp:write'] }),
      'targets[0].auth.oauth.scopes[0] is not a scope token (no spaces: list each scope separately)',
    ],
    [oauth({ tokenUrl: 'auth.example.com/token' }), 'targets[0].auth.oauth.tokenUrl is not an http(s) URL: got "auth.example.com/token"'],
    [
      oauth({ clientSecret: { secretsManager: 'canary/oauth', expiresAt: 'next spring' } }),
      'targets[0].auth.oauth.clientSecret.expiresAt is not an ISO 8601 date: got "next spring"',
    ],
    [
      oauth({ privateKeyJwt: undefined, clientSecret: { env: 'S' }, tokenUrll: 'x' }),
      'targets[0].auth.oauth has unknown field(s) "tokenUrll"',
    ],
    [
      { ...oauth({}), targets: [{ ...oauth({}).targets[0], headerSecrets: { Authorization: { secretsManager: 'x' } } }] },
      'targets[0].auth.oauth and the Authorization header both set Authorization: drop the header',
    ],
    [fleet({ certWarningDays: -1 }), 'targets[0].certWarningDays must be 0 (off) or more'],
    [fleet({ credentialWarningDays: 1000 }), 'targets[0].credentialWarningDays must be at most 365'],
  ])('names the field and the fix: %#', (raw, message) => {
    const m = errorOf(raw);
    expect(m).toContain(message);
    expect(m).not.toContain('plain-text-secret');
    expect(m.split('\n')).toHaveLength(1);
  });
});

describe('references a deployed function can read', () => {
  it('lists the CLI-only references (env, file) and the store references for IAM', async () => {
    const { localOnlyRefs, oauthStoreRefs } = await import('../../../../functions/base/config/load/oauth-secrets.ts');
    const t = parseFleet(fleet({ auth: { oauth: { clientId: 'c', privateKeyJwt: { privateKey: { file: 'k.pem' } } } } })).targets[0]!;
    expect(localOnlyRefs(t.auth?.oauth)).toEqual(['auth.oauth.privateKeyJwt.privateKey']);
    expect(oauthStoreRefs(t.auth?.oauth)).toEqual([]);
    const s = parseFleet(oauth({})).targets[0]!;
    expect(localOnlyRefs(s.auth?.oauth)).toEqual([]);
    expect(oauthStoreRefs(s.auth?.oauth)).toEqual([{ secretsManager: 'canary/oauth' }]);
  });
});
