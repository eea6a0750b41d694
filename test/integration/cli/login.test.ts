/**
 * `mcp-canary login` and `check --grant-file` as a person runs them: the CLI in a child process,
 * the authorization URL read from its stderr and answered over HTTP (oidc-provider's sign-in and
 * consent pages), the grant in a 0600 file; then check refreshes it under the file's lock, and two
 * checks at once never both send one refresh token. No token on any stream.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consent, startDelegatedAuthServer, type DelegatedAuthServer } from '../../helpers/auth/delegated.ts';
import { startProtectedMcp, type ProtectedMcp } from '../../helpers/auth/servers.ts';
import { runToEnd } from '../../helpers/child.ts';
import { CLI_BIN } from '../../helpers/cli-bin.ts';

const BIN = CLI_BIN;
let as: DelegatedAuthServer;
let mcp: ProtectedMcp;
const resources: string[] = [];
let dir: string;

beforeAll(async () => {
  // A short-lived access token, so the second check finds it due and refreshes.
  as = await startDelegatedAuthServer({ resources: () => resources, accessTtlSeconds: 22 });
  mcp = await startProtectedMcp({ issuer: as.issuer });
  resources.push(mcp.url);
  dir = await mkdtemp(join(tmpdir(), 'canary-cli-login-'));
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
});

function loginProcess(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'login', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let answered = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(stderr)?.[1];
      if (url && !answered) {
        answered = true;
        void consent(new URL(url));
      }
    });
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('mcp-canary login, then check --grant-file', () => {
  it('logs in, stores the grant 0600, prints no token; check judges healthy, refreshing under the lock when two run at once', async () => {
    const file = join(dir, 'rates.grant.json');
    const r = await loginProcess([mcp.url, '--store-file', file, '--no-browser']);
    expect(r.stderr).toContain('Open this URL to sign in and consent:');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Logged in to http:\/\/127\.0\.0\.1:\d+ for .*\(client .*, registered\)\./);
    expect(r.stdout).toContain('the refresh token is stored, never printed');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, 'utf8')) as { refreshToken: string };
    expect(stored.refreshToken).toBeTruthy();
    await new Promise((res) => setTimeout(res, 11_500)); // past half the 22 s token: due
    const before = as.refreshes();
    const checks = await Promise.all(
      [1, 2].map(() => runToEnd(process.execPath, [BIN, 'check', mcp.url, '--tool', 'get_rate', '--grant-file', file])),
    );
    for (const c of checks) {
      expect(c.stdout).toMatch(/HEALTHY/);
      expect(c.code).toBe(0);
    }
    expect(as.refreshes() - before).toBe(1);
    expect(as.tokenErrors).toEqual([]);
    const all = [r, ...checks].map((c) => c.stdout + c.stderr).join('\n');
    for (const token of as.issued) expect(all).not.toContain(token);
  });

  it('a bad login flag exits 2 with one line naming the fix', async () => {
    const r = await runToEnd(process.execPath, [BIN, 'login', mcp.url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'mcp-canary: give exactly one of --store-file PATH (this machine) or --store-secret mcp-canary/NAME (the scheduled runs).\n',
    );
  });

  it('check with a grant file that holds nothing is inconclusive (exit 3), canary_credential, with the fix', async () => {
    const r = await runToEnd(process.execPath, [BIN, 'check', mcp.url, '--tool', 'get_rate', '--grant-file', join(dir, 'none.json')]);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('canary_credential');
    expect(r.stdout).toContain(`mcp-canary login ${mcp.url}`);
  });
});
