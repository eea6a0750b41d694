/**
 * The config `mcp-canary init` writes, from check's own flags: only what differs from the defaults,
 * OAuth as the references its flags already are, every header as an SSM reference, and always what
 * the config loader accepts.
 */
import { describe, expect, it } from 'vitest';
import { parseFleet } from '../../../functions/base/config/load/load.ts';
import { parseInit } from '../../../functions/cli/init-args.ts';
import { initConfig } from '../../../functions/cli/init-config.ts';

const URL = 'https://mcp.example.com/mcp';
const configFor = (...flags: string[]) => initConfig(parseInit([URL, ...flags]).target, null);
const targetOf = (c: ReturnType<typeof configFor>) => (c.json.targets as Array<Record<string, unknown>>)[0]!;

describe('the config init writes', () => {
  it('writes only the fields its flags changed from the defaults', () => {
    const c = configFor('--revision', '2025-11-25', '--timeout-ms', '5000', '--retries', '2', '--name', 'docs');
    expect(c.json).toEqual({
      homeRegion: 'us-east-1',
      targets: [{ name: 'docs', url: URL, revision: '2025-11-25', timeoutMs: 5000, retries: 2 }],
    });
    expect(parseFleet(c.json).targets[0]).toMatchObject({ name: 'docs', budgetMs: 30_000, degradedMs: 5_000 });
  });

  it('writes the OAuth flags as the references they are: an env var name, a key file path, a grant file', () => {
    const secret = targetOf(
      configFor('--oauth-client-id', 'canary', '--oauth-client-secret-env', 'CANARY_SECRET', '--oauth-scope', 'read'),
    );
    expect(secret.auth).toMatchObject({ oauth: { clientId: 'canary', clientSecret: { env: 'CANARY_SECRET' }, scopes: ['read'] } });
    const key = targetOf(configFor('--oauth-client-id', 'canary', '--oauth-private-key-file', 'keys/canary.pem', '--oauth-alg', 'ES256'));
    expect(key.auth).toMatchObject({ oauth: { privateKeyJwt: { privateKey: { file: 'keys/canary.pem' }, alg: 'ES256' } } });
    expect(targetOf(configFor('--grant-file', 'grant.json')).auth).toMatchObject({ authorizationCode: { store: { file: 'grant.json' } } });
  });

  it('turns every header into an SSM reference named for the target and the header, the scheme kept as the prefix', () => {
    const c = configFor(
      '--name',
      'rates',
      '--header',
      'Authorization: Basic dXNlcjpwYXNzd29yZA==',
      '--header',
      'X-Api-Key: key-2f9c41d7',
      '--header',
      'X-Weird!Name: tok-1',
    );
    const t = targetOf(c);
    expect(t.headers).toBeUndefined();
    expect(t.headerSecrets).toEqual({
      Authorization: { ssmParameter: '/mcp-canary/rates/authorization', prefix: 'Basic ' },
      'X-Api-Key': { ssmParameter: '/mcp-canary/rates/x-api-key' },
      'X-Weird!Name': { ssmParameter: '/mcp-canary/rates/x-weird-name' },
    });
    expect(JSON.stringify(c.json)).not.toMatch(/dXNlcjpwYXNzd29yZA|key-2f9c41d7|tok-1/);
  });

  it('writes a proposed tool with only the fields it needs', () => {
    const target = parseInit([URL]).target;
    const c = initConfig(target, {
      name: 'get_rate',
      arguments: { pair: 'EURUSD' },
      expectJson: {},
      expectText: 'EURUSD',
      allowUnsafe: false,
    });
    expect(targetOf(c).tool).toEqual({ name: 'get_rate', arguments: { pair: 'EURUSD' }, expectText: 'EURUSD' });
  });
});
