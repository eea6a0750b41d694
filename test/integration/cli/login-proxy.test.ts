/**
 * Behind an egress proxy, a person's `mcp-canary login` and `check --grant-file` reach the
 * authorization server through HTTPS_PROXY / HTTP_PROXY, as the run's requests do: a real forward proxy
 * from npm (`proxy`) that asks for Basic credentials with characters URLs must encode, a real
 * authorization server (oidc-provider), the CLI in child processes. Before, the login went direct,
 * which on a network whose only way out is the proxy fails. No token, no proxy password on any stream.
 */
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consent, startDelegatedAuthServer, type DelegatedAuthServer } from '../../helpers/auth/delegated.ts';
import { startProtectedMcp, type ProtectedMcp } from '../../helpers/auth/servers.ts';
import { runToEnd } from '../../helpers/child.ts';
import { startForwardProxy, type ForwardProxy } from '../../helpers/net/forward-proxy.ts';
import { CLI_BIN } from '../../helpers/cli-bin.ts';

const BIN = CLI_BIN;
const USER = 'canary@corp';
const PASSWORD = 'p@ss:w0rd/#%-never-shown';
let as: DelegatedAuthServer;
let mcp: ProtectedMcp;
let proxy: ForwardProxy;
const resources: string[] = [];
let dir: string;

beforeAll(async () => {
  as = await startDelegatedAuthServer({ resources: () => resources, accessTtlSeconds: 20 });
  mcp = await startProtectedMcp({ issuer: as.issuer });
  resources.push(mcp.url);
  proxy = await startForwardProxy({ credentials: `${USER}:${PASSWORD}` });
  dir = await mkdtemp(join(tmpdir(), 'canary-login-proxy-'));
});
afterAll(async () => {
  await proxy?.close();
  await mcp?.close();
  await as?.close();
});

/** Only these proxy variables: the servers are plain http on loopback, so HTTP_PROXY is the one used. */
function proxyEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']) delete env[k];
  const url = new URL(proxy.url);
  url.username = encodeURIComponent(USER);
  url.password = encodeURIComponent(PASSWORD);
  return { ...env, HTTP_PROXY: url.href, HTTPS_PROXY: url.href };
}

function loginProcess(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'login', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    let answered = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(stderr)?.[1];
      // The person's browser is not behind the CLI's proxy variables: it answers directly.
      if (url && !answered) {
        answered = true;
        void consent(new URL(url));
      }
    });
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('login and check --grant-file behind a proxy', () => {
  it('discovers, registers and redeems the code through the proxy; check refreshes through it; no secret shown', async () => {
    const file = join(dir, 'grant.json');
    const env = proxyEnv();
    const r = await loginProcess([mcp.url, '--store-file', file, '--no-browser'], env);
    expect(r.stderr).toContain('Open this URL to sign in and consent:');
    expect(r.code).toBe(0);
    // Plain http is forwarded in absolute form, as curl does: the proxy saw the authorization server and the MCP server.
    const asHost = new URL(as.issuer).host;
    const mcpHost = new URL(mcp.url).host;
    const seen = (host: string) => [...proxy.connects, ...proxy.forwarded.map((u) => new URL(u).host)].filter((h) => h === host).length;
    const afterLogin = seen(asHost);
    expect(afterLogin).toBeGreaterThan(0);
    expect(seen(mcpHost)).toBeGreaterThan(0);

    await new Promise((res) => setTimeout(res, 10_500)); // past half the 20 s token: the check refreshes it
    const refreshes = as.refreshes();
    const c = await runToEnd(process.execPath, [BIN, 'check', mcp.url, '--tool', 'get_rate', '--grant-file', file], { env });
    expect(c.stdout).toMatch(/HEALTHY/);
    expect(as.refreshes() - refreshes).toBe(1);
    expect(seen(asHost)).toBeGreaterThan(afterLogin);

    const all = [r.stdout, r.stderr, c.stdout, c.stderr].join('\n');
    for (const token of as.issued) expect(all).not.toContain(token);
    for (const form of [PASSWORD, encodeURIComponent(PASSWORD), Buffer.from(`${USER}:${PASSWORD}`).toString('base64')])
      expect(all).not.toContain(form);
  });
});
