/**
 * `mcp-canary login` and `check --grant-file` against a real authorization server (oidc-provider) and real
 * MCP servers that verify every token, in the variants a careful user meets in the second week: a server
 * that names its metadata only in its 401, a challenge that names fewer scopes than the metadata lists, an
 * authorization server whose metadata drops PKCE or points an endpoint at a cloud-metadata or private
 * address, and a grant used for another server. The CLI in a child process, the person's browser over
 * HTTP. Each test asserts what every server received: no token reaches a server it was not issued for.
 */
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consent, startDelegatedAuthServer, type DelegatedAuthServer } from '../../helpers/auth/delegated.ts';
import { startMetadataFront, type MetadataFront } from '../../helpers/auth/metadata-front.ts';
import { SCOPE, startProtectedMcp, type ProtectedMcp } from '../../helpers/auth/servers.ts';
import { runToEnd } from '../../helpers/child.ts';
import { CLI_BIN } from '../../helpers/cli-bin.ts';
import { shownUrl } from '../../../functions/base/common/shown-url.ts';

let as: DelegatedAuthServer;
const resources: string[] = [];
const closing: Array<{ close(): Promise<void> }> = [];
let dir: string;

beforeAll(async () => {
  as = await startDelegatedAuthServer({ resources: () => resources });
  dir = await mkdtemp(join(tmpdir(), 'canary-login-hostile-'));
});
afterAll(async () => {
  await Promise.all(closing.map((c) => c.close()));
  await as?.close();
});

async function mcpServer(o: Omit<Parameters<typeof startProtectedMcp>[0], 'issuer'> = {}): Promise<ProtectedMcp> {
  const s = await startProtectedMcp({ issuer: as.issuer, ...o });
  resources.push(s.url);
  closing.push(s);
  return s;
}

async function front(edit: (m: Record<string, unknown>) => Record<string, unknown>): Promise<MetadataFront> {
  const f = await startMetadataFront(as.issuer, edit);
  closing.push(f);
  return f;
}

/** `mcp-canary login`, a person consenting to whatever URL it prints; the URL is returned as seen. */
function loginProcess(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; shown: URL | undefined }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_BIN, 'login', ...args, '--no-browser'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let shown: URL | undefined;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const url = /^\s+(https?:\/\/\S+)$/m.exec(stderr)?.[1];
      if (url && !shown) {
        shown = new URL(url);
        void consent(shown).catch(() => undefined);
      }
    });
    child.once('close', (code) => resolve({ code, stdout, stderr, shown }));
  });
}

describe('login starts at the MCP server’s own 401', () => {
  it('logs in to a server whose metadata is only at the URL its challenge names, asking for the challenge’s scope, not every scope listed', async () => {
    // Prepare: the metadata lists a scope the challenge does not ask for (least privilege: the challenge wins).
    const mcp = await mcpServer({ advertise: 'challenge-only', challengeScope: SCOPE, scopesSupported: [SCOPE, 'mcp:admin'] });
    const file = join(dir, 'challenge-only.grant.json');
    // Act
    const r = await loginProcess([mcp.url, '--store-file', file]);
    // Assess
    expect(r.stderr).toContain('Open this URL to sign in and consent');
    expect(r.code).toBe(0);
    expect(r.shown?.searchParams.get('scope')).toBe(`${SCOPE} offline_access`);
    expect(r.shown?.searchParams.get('resource')).toBe(mcp.url);
    expect(mcp.received.map((x) => `${x.method} ${x.path}`)).toEqual(['POST /mcp', 'GET /meta/rates-resource.json']);
    // Then the grant judges that server healthy, and its token reached that server only.
    const check = await runToEnd(process.execPath, [CLI_BIN, 'check', mcp.url, '--tool', 'get_rate', '--grant-file', file]);
    expect(check.stdout).toMatch(/HEALTHY/);
    expect(check.code).toBe(0);
    const bearers = mcp.received.flatMap((x) => (x.authorization ? [x.authorization.slice('Bearer '.length)] : []));
    expect(bearers.length).toBeGreaterThan(0);
    for (const b of bearers) expect(as.issued).toContain(b);
    const all = [r, check].map((c) => c.stdout + c.stderr).join('\n');
    for (const token of as.issued) expect(all).not.toContain(token);
  });
});

describe('an authorization server whose metadata a careful client must refuse → exit 1 before any URL is shown, nothing registered, no token', () => {
  const variants: Array<[string, (m: Record<string, unknown>) => Record<string, unknown>, RegExp]> = [
    [
      'no code_challenge_methods_supported',
      ({ code_challenge_methods_supported: _, ...m }) => m,
      /does not advertise PKCE \(its metadata has no code_challenge_methods_supported\)/,
    ],
    ['PKCE plain only', (m) => ({ ...m, code_challenge_methods_supported: ['plain'] }), /advertises PKCE "plain" but not S256/],
    [
      'an authorization endpoint at the cloud metadata address',
      (m) => ({ ...m, authorization_endpoint: 'https://169.254.169.254/latest/meta-data/iam/security-credentials/' }),
      /names authorization_endpoint https:\/\/169\.254\.169\.254\/latest\/meta-data\/iam\/security-credentials\/: a cloud metadata address/,
    ],
    [
      'an authorization endpoint at a private address',
      (m) => ({ ...m, authorization_endpoint: 'https://10.20.30.40/authorize' }),
      /names authorization_endpoint https:\/\/10\.20\.30\.40\/authorize: a private address/,
    ],
    [
      'a token endpoint at the ECS credentials address',
      (m) => ({ ...m, token_endpoint: 'https://169.254.170.2/v2/credentials' }),
      /names token_endpoint https:\/\/169\.254\.170\.2\/v2\/credentials: a cloud metadata address/,
    ],
    [
      'a registration endpoint at a private address',
      (m) => ({ ...m, registration_endpoint: 'https://192.168.1.20/reg' }),
      /names registration_endpoint https:\/\/192\.168\.1\.20\/reg: a private address/,
    ],
  ];

  it.each(variants)('%s', async (_, edit, words) => {
    // Prepare
    const f = await front(edit);
    const mcp = await mcpServer({ authorizationServers: [f.url] });
    const issuedBefore = as.issued.length;
    const registrationsBefore = as.registrations();
    // Act
    const r = await loginProcess([mcp.url, '--store-file', join(dir, 'refused.grant.json')]);
    // Assess: one line naming the field and the fix; no URL was shown to a person.
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(words);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.shown).toBeUndefined();
    expect(r.stderr).not.toContain('Open this URL');
    // The authorization server saw its discovery document asked for, nothing else: no registration, no token request.
    expect(f.received.filter((x) => !x.startsWith('GET /.well-known/'))).toEqual([]);
    expect(as.registrations()).toBe(registrationsBefore);
    expect(as.issued.length).toBe(issuedBefore);
    // The MCP server saw the challenge and its metadata asked for, never a token.
    expect(mcp.received.every((x) => x.authorization === undefined)).toBe(true);
  });
});

describe('a grant used for another server → exit 2 before any request, one line with the fix', () => {
  let a: ProtectedMcp;
  let file: string;
  beforeAll(async () => {
    a = await mcpServer();
    file = join(dir, 'a.grant.json');
    const r = await loginProcess([a.url, '--store-file', file]);
    expect(r.code).toBe(0);
  });

  it.each([
    ['another server (the same host, another port)', () => mcpServer().then((b) => ({ b, url: b.url }))],
    ['a path on the same server that only starts alike', async () => ({ b: a, url: a.url.replace(/\/mcp$/, '/mcp-admin') })],
    ['the same server with another tenant in the query', async () => ({ b: a, url: `${a.url}?tenant=other` })],
  ] as const)('%s', async (_, make) => {
    // Prepare: B verifies tokens against the same authorization server, and would accept A's token nowhere but at A.
    const { b, url } = await make();
    const seenByA = a.received.length;
    const seenByB = b.received.length;
    const refreshes = as.refreshes();
    // Act
    const r = await runToEnd(process.execPath, [CLI_BIN, 'check', url, '--tool', 'get_rate', '--grant-file', file]);
    // Assess: the canary's own configuration error, before any request: no verdict that would page B's owner.
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    // The words name both servers and the fix, each URL shown by its structure (query values masked, as everywhere).
    const asShown = shownUrl(url);
    for (const [key, value] of new URL(url).searchParams) expect(r.stderr).not.toContain(`${key}=${value}`);
    expect(r.stderr).toContain(`grant file "${file}" holds a grant that is not for ${asShown}: it was issued for ${a.url}, not `);
    expect(r.stderr).toContain(`mcp-canary login ${asShown} --store-file ${file}`);
    expect(b.received.length).toBe(seenByB);
    expect(a.received.length).toBe(seenByA);
    expect(as.refreshes()).toBe(refreshes);
    for (const token of as.issued) expect(r.stderr + r.stdout).not.toContain(token);
  });

  it('the grant still works for its own server', async () => {
    const r = await runToEnd(process.execPath, [CLI_BIN, 'check', a.url, '--tool', 'get_rate', '--grant-file', file]);
    expect(r.stdout).toMatch(/HEALTHY/);
    expect(r.code).toBe(0);
  });
});
