/**
 * Where the token step's secrets could leak: the CLI run as a child process (stdout, stderr, exit
 * code) and the scheduled run (its log lines), each against the real authorization server and MCP
 * server. The client secret, the private key, the assertion and every issued token must be absent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../../functions/lambdas/run/run.ts';
import type { RunRecord } from '../../../../functions/base/common/run-record.ts';
import type { Verdict } from '../../../../functions/base/common/verdict.ts';
import { runToEnd, type Finished } from '../../../helpers/child.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { PROBE_REGION, motoRunDeps } from '../../../helpers/run/fixtures.ts';
import { describeWithTools } from '../../../helpers/tools.ts';
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
import { CLI_BIN } from '../../../helpers/cli-bin.ts';

const BIN = CLI_BIN;
const WRONG = 'cs-wrong-secret-7c1e9d0b';
let key: ClientKey;
let as: AuthServer;
let mcp: ProtectedMcp;
let dir: string;
const resources: string[] = [];

beforeAll(async () => {
  key = rsaClientKey();
  as = await startAuthServer({ clientKey: key, resources: () => resources });
  mcp = await startProtectedMcp({ issuer: as.issuer });
  resources.push(mcp.url);
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-oauth-'));
  writeFileSync(join(dir, 'canary.pem'), key.privateKeyPem);
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string> = {}): Promise<Finished> {
  return runToEnd(process.execPath, [BIN, 'check', ...args], { env: { ...process.env, ...env } });
}

function expectNothingSecret(text: string): void {
  expect(text).not.toContain(CLIENT_SECRET);
  expect(text).not.toContain(WRONG);
  for (const token of as.issued) expect(text).not.toContain(token);
  for (const line of key.privateKeyPem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'))) expect(text).not.toContain(line);
}

describe('the CLI, as a child process', () => {
  it('gets a token with --oauth-client-secret-env and prints the auth probe first; nothing secret on stdout or stderr', async () => {
    const r = await cli(
      [
        mcp.url,
        '--tool',
        'get_rate',
        '--oauth-client-id',
        CLIENT_ID,
        '--oauth-client-secret-env',
        'CANARY_OAUTH_SECRET',
        '--oauth-scope',
        SCOPE,
      ],
      { CANARY_OAUTH_SECRET: CLIENT_SECRET },
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[1]).toMatch(/^ {2}✓ auth {7} +\d+ ms {2}token from http:\/\/127\.0\.0\.1:\d+ \(new, expires in 60 minutes\)$/);
    expect(r.stdout).toMatch(/\nHEALTHY {2}2026-07-28 rates-oauth 2\.0\.0: get_rate answered as expected/);
    expectNothingSecret(r.stdout + r.stderr);
  });

  it('signs a private_key_jwt assertion with --oauth-private-key-file and prints one JSON verdict', async () => {
    const r = await cli([
      mcp.url,
      '--json',
      '--oauth-client-id',
      JWT_CLIENT_ID,
      '--oauth-private-key-file',
      join(dir, 'canary.pem'),
      '--oauth-alg',
      'RS256',
      '--oauth-scope',
      SCOPE,
    ]);
    expect(r.code).toBe(0);
    const v = (JSON.parse(r.stdout) as Verdict[])[0]!;
    expect(v).toMatchObject({ outcome: 'healthy', warnings: [] });
    expect(v.probes[0]).toMatchObject({ name: 'auth', ok: true });
    expectNothingSecret(r.stdout + r.stderr);
  });

  it("exits 1 with the token endpoint's invalid_client on the auth line, never echoing the wrong secret", async () => {
    const r = await cli([mcp.url, '--oauth-client-id', CLIENT_ID, '--oauth-client-secret-env', 'CANARY_OAUTH_SECRET'], {
      CANARY_OAUTH_SECRET: WRONG,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      / {2}✗ auth +\d+ ms {2}auth {2}auth: token endpoint http:\/\/127\.0\.0\.1:\d+\/token refused \(HTTP 401\): invalid_client/,
    );
    expect(r.stdout).toMatch(/\nFAILED {2}auth {2}auth: token endpoint/);
    expectNothingSecret(r.stdout + r.stderr);
  });

  it('redacts the token when a hostile server refuses it and echoes it back', async () => {
    const hostile = await startProtectedMcp({ issuer: as.issuer, clockAheadSeconds: 7200, echoToken: true });
    resources.push(hostile.url);
    try {
      const issuedBefore = as.issued.length;
      const r = await cli(
        [hostile.url, '--oauth-client-id', CLIENT_ID, '--oauth-client-secret-env', 'CANARY_OAUTH_SECRET', '--oauth-scope', SCOPE],
        { CANARY_OAUTH_SECRET: CLIENT_SECRET },
      );
      expect(r.code).toBe(1);
      expect(as.issued.length).toBe(issuedBefore + 1);
      expect(r.stdout).toMatch(/✗ discover .*the MCP server refused the OAuth token \(invalid_token\)/);
      expect(r.stdout).toContain('[redacted]');
      expectNothingSecret(r.stdout + r.stderr);
    } finally {
      await hostile.close();
    }
  });

  it("exits 2 naming the variable when the secret's env var is not set", async () => {
    const r = await cli([mcp.url, '--oauth-client-id', CLIENT_ID, '--oauth-client-secret-env', 'CANARY_NOT_SET_ANYWHERE']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(
      'mcp-canary: auth.oauth.clientSecret: environment variable CANARY_NOT_SET_ANYWHERE is not set or empty. Export the secret in it.',
    );
  });

  const bad: Array<[string[], string]> = [
    [['--oauth-client-secret-env', 'X'], 'the --oauth-* flags need --oauth-client-id ID'],
    [['--oauth-client-id', 'c'], 'give exactly one of --oauth-client-secret-env NAME'],
    [
      ['--oauth-client-id', 'c', '--oauth-client-secret-env', 'X', '--oauth-private-key-file', 'k.pem'],
      'give exactly one of --oauth-client-secret-env NAME',
    ],
    [['--oauth-client-id', 'c', '--oauth-private-key-file', 'k.pem', '--oauth-alg', 'HS256'], '--oauth-alg must be one of RS256'],
    [
      ['--oauth-client-id', 'c', '--oauth-client-secret-env', 'X', '--oauth-token-url', 'auth.example.com/token'],
      '--oauth-token-url is not an http(s) URL',
    ],
    [
      ['--oauth-client-id', 'c', '--oauth-client-secret-env', 'X', '--header', 'Authorization: Bearer x'],
      'and the Authorization header both set Authorization',
    ],
    [['--cert-warning-days', 'soon'], '--cert-warning-days must be a whole number'],
  ];
  for (const [flags, message] of bad) {
    it(`exits 2 with one line for ${flags.join(' ')}`, async () => {
      const r = await cli(['http://127.0.0.1:9/mcp', ...flags]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    });
  }
});

/** A credential expiry date two days from today (a date, as a config holds it). */
const IN_TWO_DAYS = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);

describeWithTools(['moto_server'], 'the scheduled run', () => {
  let moto: Moto;
  beforeAll(async () => {
    moto = await startMoto();
    const sm = new SecretsManagerClient({ region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials });
    await sm.send(new CreateSecretCommand({ Name: 'canary/oauth', SecretString: JSON.stringify({ client_secret: CLIENT_SECRET }) }));
  });
  afterAll(async () => {
    await moto?.stop();
  });

  it('reads the client secret from Secrets Manager, gets a token, and logs a record with the auth probe and no secret', async () => {
    const lines: string[] = [];
    const summary = await run(
      {
        targets: [
          {
            name: 'rates-oauth',
            url: mcp.url,
            tool: { name: 'get_rate' },
            auth: {
              oauth: {
                clientId: CLIENT_ID,
                clientSecret: { secretsManager: 'canary/oauth', jsonKey: 'client_secret', expiresAt: IN_TWO_DAYS },
                scopes: [SCOPE],
              },
            },
          },
        ],
      },
      motoRunDeps(moto.endpoint, lines),
    );
    expect(summary.verdicts).toEqual([{ target: 'rates-oauth', outcome: 'healthy', failure: null }]);
    const record = lines.map((l) => JSON.parse(l) as RunRecord).find((r) => r.message === 'mcp-canary run')!;
    expect(record.verdict.probes.map((p) => p.name)).toEqual(['auth', 'discover', 'tools/list', 'tools/call']);
    // The secret reference's expiresAt is within the 7-day window, whatever today is.
    expect(record.verdict.warnings).toEqual([
      expect.objectContaining({ kind: 'credential_expiry', expiresAt: `${IN_TWO_DAYS}T00:00:00.000Z` }),
    ]);
    expectNothingSecret(lines.join('\n'));
  });

  it('is inconclusive, naming the field and the fix, when the OAuth secret cannot be read', async () => {
    const lines: string[] = [];
    const summary = await run(
      {
        targets: [
          {
            name: 'rates-oauth',
            url: mcp.url,
            auth: { oauth: { clientId: CLIENT_ID, clientSecret: { secretsManager: 'canary/missing' } } },
          },
        ],
      },
      motoRunDeps(moto.endpoint, lines),
    );
    expect(summary.verdicts).toEqual([{ target: 'rates-oauth', outcome: 'inconclusive', failure: null }]);
    const record = lines.map((l) => JSON.parse(l) as RunRecord).find((r) => r.message === 'mcp-canary run')!;
    expect(record.verdict.detail).toMatch(
      /^auth\.oauth\.clientSecret: Secrets Manager secret "canary\/missing" in eu-west-1 cannot be read \(ResourceNotFoundException.*Create it in eu-west-1, or reference it by ARN\.$/,
    );
  });
});
