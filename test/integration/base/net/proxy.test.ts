/**
 * Forward proxies, with a real one from npm (`proxy`, CONNECT) on loopback:
 * - the CLI honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY (a real child process): healthy through the
 *   proxy (it saw the CONNECT), direct when NO_PROXY names the host (it saw none);
 * - a proxy that refuses (407 without credentials, 500 when it cannot reach the host) or does not
 *   answer is named as the proxy — `unreachable`, the proxy's origin, "the endpoint was not reached";
 * - the scheduled run's fleet proxy with credentials from Secrets Manager or SSM (moto): healthy;
 * - `check --config` uses the fleet's proxy (what the Lambda does), its credentials read from the store
 *   with the caller's identity; the environment's proxy only when the fleet has none;
 * - the SSRF guard still refuses a cloud-metadata or loopback OAuth URL through the proxy, and the
 *   proxy is never asked for it;
 * - no proxy password, in any form, in any output.
 */
import { join } from 'node:path';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, describe as plainDescribe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import type { RunRecord } from '../../../../functions/base/common/run-record.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import { EnvVar, readRunEnv } from '../../../../functions/base/config/env/env.ts';
import { SecretReader } from '../../../../functions/io/secrets/reader.ts';
import { guardedFetch } from '../../../../functions/base/net/ssrf-guard.ts';
import { Wire } from '../../../../functions/base/net/wire.ts';
import { runToEnd } from '../../../helpers/child.ts';
import { freePort, startMoto, type Moto } from '../../../helpers/moto.ts';
import { motoRunDeps, motoSecretClients, PROBE_REGION } from '../../../helpers/run/fixtures.ts';
import { makePki, type Pki } from '../../../helpers/net/pki.ts';
import { startMtlsMcp, type MtlsServer } from '../../../helpers/net/mtls-server.ts';
import { startForwardProxy, type ForwardProxy } from '../../../helpers/net/forward-proxy.ts';
import { describeNeeding } from '../../../helpers/tools.ts';
import { modernEndpoint, readOnlyRateTool, startFaultServer, type FaultServer } from '../../../helpers/faults.ts';
import { CLI_BIN } from '../../../helpers/cli-bin.ts';

const describe = describeNeeding(['openssl', 'moto_server']);
const BIN = CLI_BIN;
const tool = { name: 'get_rate', expectText: 'EURUSD' };
const PASSWORD = 'pr0xy-Pa55word-never-shown';
const CREDENTIALS = `canary:${PASSWORD}`;
const PROXY_ENV = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

interface Shown {
  outcome: string;
  failure: string | null;
  detail: string | null;
}

describe('forward proxies', () => {
  let pki: Pki;
  let server: MtlsServer;
  let open: ForwardProxy;
  let guarded: ForwardProxy;
  let moto: Moto;
  let fleetFile: string;
  beforeAll(async () => {
    pki = makePki();
    [server, open, guarded, moto] = await Promise.all([
      startMtlsMcp(pki, { version: 'TLSv1.3', requireClientCert: false }),
      startForwardProxy(),
      startForwardProxy({ credentials: CREDENTIALS }),
      startMoto(),
    ]);
    fleetFile = join(pki.dir, 'fleet-proxy.json');
    writeFileSync(
      fleetFile,
      JSON.stringify({
        homeRegion: 'eu-west-1',
        targets: [{ name: 'behind-proxy', url: server.url, tool, tls: { ca: `file:${pki.caFile}` } }],
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([server?.close(), open?.close(), guarded?.close(), moto?.stop()]);
    pki?.cleanup();
  });
  beforeEach(async () => {
    open.connects.length = 0;
    guarded.connects.length = 0;
    await moto.reset();
  });

  /** `check --config` in a child process with exactly these proxy variables. */
  async function check(vars: Record<string, string>, file = fleetFile) {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of PROXY_ENV) delete env[k];
    const r = await runToEnd(process.execPath, [BIN, 'check', '--config', file, '--json'], { env: { ...env, ...vars } });
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(encodeURIComponent(PASSWORD));
      expect(text).not.toContain(Buffer.from(CREDENTIALS).toString('base64'));
    }
    return { ...r, verdict: (JSON.parse(r.stdout) as Shown[])[0]! };
  }

  it('the CLI goes through HTTPS_PROXY: healthy, and the proxy carried the CONNECT', async () => {
    const r = await check({ HTTPS_PROXY: open.url });
    expect(r.verdict.outcome).toBe('healthy');
    expect(open.connects).toContain(`127.0.0.1:${server.port}`);
  });

  it('lowercase https_proxy too, and NO_PROXY naming the host sends it direct', async () => {
    expect((await check({ https_proxy: open.url })).verdict.outcome).toBe('healthy');
    expect(open.connects.length).toBeGreaterThan(0);
    open.connects.length = 0;
    const direct = await check({ HTTPS_PROXY: open.url, NO_PROXY: 'localhost,127.0.0.1' });
    expect(direct.verdict.outcome).toBe('healthy');
    expect(open.connects).toEqual([]);
  });

  plainDescribe('plain http:// targets, as curl does: HTTP_PROXY forwards them in absolute form, never a CONNECT', () => {
    let plain: FaultServer;
    beforeAll(async () => {
      plain = await startFaultServer(
        modernEndpoint({
          tools: [readOnlyRateTool],
          call: () => ({ content: [{ type: 'text', text: 'EURUSD 1.08' }], structuredContent: { rate: 1.08 } }),
        }),
      );
    });
    afterAll(async () => plain?.close());
    beforeEach(() => {
      open.forwarded.length = 0;
      guarded.forwarded.length = 0;
    });
    const file = () => {
      const f = join(pki.dir, 'fleet-plain.json');
      writeFileSync(f, JSON.stringify({ homeRegion: 'eu-west-1', targets: [{ name: 'plain', url: plain.url, tool }] }));
      return f;
    };

    it.each(['HTTP_PROXY', 'http_proxy'])('only %s set: healthy, and the proxy forwarded every request (no CONNECT)', async (name) => {
      const r = await check({ [name]: open.url }, file());
      expect(r.verdict.outcome).toBe('healthy');
      expect(open.forwarded.length).toBeGreaterThanOrEqual(3);
      // The endpoint's requests, and the Server Card read after the verdict: through the proxy too.
      expect(new Set(open.forwarded)).toEqual(new Set([plain.url, `${new URL(plain.url).origin}/.well-known/mcp/server-card`]));
      expect(open.connects).toEqual([]);
      expect(plain.received.length).toBeGreaterThanOrEqual(3);
    });

    it('NO_PROXY naming the host (either case): direct, the proxy sees nothing', async () => {
      for (const name of ['NO_PROXY', 'no_proxy']) {
        const r = await check({ HTTP_PROXY: open.url, [name]: '127.0.0.1' }, file());
        expect(r.verdict.outcome).toBe('healthy');
        expect([...open.forwarded, ...open.connects]).toEqual([]);
      }
    });

    it('only HTTPS_PROXY set: an http:// target goes direct, as curl does', async () => {
      const r = await check({ HTTPS_PROXY: open.url }, file());
      expect(r.verdict.outcome).toBe('healthy');
      expect([...open.forwarded, ...open.connects]).toEqual([]);
    });

    it('a proxy that wants credentials (407 to the forwarded request) is named as the proxy; with them in HTTP_PROXY, healthy', async () => {
      const refused = await check({ HTTP_PROXY: guarded.url }, file());
      expect(refused.verdict).toMatchObject({ outcome: 'failed', failure: 'unreachable' });
      expect(refused.verdict.detail).toMatch(
        /the proxy http:\/\/127\.0\.0\.1:\d+ refused to forward the request: 407 .*the endpoint was not reached/,
      );
      const url = new URL(guarded.url);
      url.username = 'canary';
      url.password = PASSWORD;
      const ok = await check({ HTTP_PROXY: url.href }, file());
      expect(ok.verdict.outcome).toBe('healthy');
      expect(guarded.forwarded).toContain(plain.url);
    });
  });

  it('a proxy asking for credentials (407) is named as the proxy, not blamed on the endpoint; with them, healthy', async () => {
    const refused = await check({ HTTPS_PROXY: guarded.url });
    expect(refused.verdict).toMatchObject({ outcome: 'failed', failure: 'unreachable' });
    expect(refused.verdict.detail).toContain(`the proxy ${guarded.url} refused CONNECT: 407 (Proxy Authentication Required)`);
    expect(refused.verdict.detail).toMatch(/the endpoint was not reached/);
    const withCredentials = await check({ HTTPS_PROXY: `http://canary:${encodeURIComponent(PASSWORD)}@127.0.0.1:${guarded.port}` });
    expect(withCredentials.verdict.outcome).toBe('healthy');
  });

  it('a proxy that cannot reach the host (500 to CONNECT), and one that does not answer, are named as the proxy', async () => {
    const deadTarget = join(pki.dir, 'fleet-dead.json');
    writeFileSync(
      deadTarget,
      JSON.stringify({ homeRegion: 'eu-west-1', targets: [{ name: 'gone', url: `https://127.0.0.1:${await freePort()}/mcp` }] }),
    );
    const upstream = await check({ HTTPS_PROXY: open.url }, deadTarget);
    expect(upstream.verdict).toMatchObject({ outcome: 'failed', failure: 'unreachable' });
    expect(upstream.verdict.detail).toMatch(/the proxy http:\/\/127\.0\.0\.1:\d+ refused CONNECT: 500 .*could not reach the endpoint/);
    const deadProxy = `http://127.0.0.1:${await freePort()}`;
    const silent = await check({ HTTPS_PROXY: deadProxy });
    expect(silent.verdict).toMatchObject({ outcome: 'failed', failure: 'unreachable' });
    expect(silent.verdict.detail).toContain(`the proxy ${deadProxy} cannot be reached (ECONNREFUSED)`);
  });

  it('an HTTPS_PROXY that is not a URL is a config error naming the variable, and never echoed', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of PROXY_ENV) delete env[k];
    const r = await runToEnd(process.execPath, [BIN, 'check', '--config', fleetFile], {
      env: { ...env, HTTPS_PROXY: `proxy-with-${PASSWORD}` },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/HTTPS_PROXY is not an http\(s\) URL: set it as http:\/\/proxy\.example\.com:3128/);
    expect(r.stderr + r.stdout).not.toContain(PASSWORD);
  });

  it("the scheduled run: the fleet's proxy with credentials from Secrets Manager; no password in any line", async () => {
    await motoSecretClients(moto.endpoint)
      .secretsManager(PROBE_REGION)
      .send(new CreateSecretCommand({ Name: 'mcp-canary/proxy', SecretString: CREDENTIALS }));
    await motoSecretClients(moto.endpoint)
      .secretsManager(PROBE_REGION)
      .send(new CreateSecretCommand({ Name: 'mcp-canary/ca', SecretString: pki.caPem }));
    const proxy = { url: guarded.url, credentials: { secretsManager: 'mcp-canary/proxy' }, noProxy: [] };
    const secrets = new SecretReader(motoSecretClients(moto.endpoint), { defaultRegion: PROBE_REGION, proxy });
    const lines: string[] = [];
    const summary = await run(
      { targets: [{ name: 'fleet-proxy', url: server.url, tool, tls: { ca: { secretsManager: 'mcp-canary/ca' } } }] },
      motoRunDeps(moto.endpoint, lines, { secrets }),
    );
    expect(summary.verdicts[0]).toMatchObject({ outcome: 'healthy' });
    expect(guarded.connects).toContain(`127.0.0.1:${server.port}`);
    const all = lines.join('\n') + JSON.stringify(summary);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(Buffer.from(CREDENTIALS).toString('base64'));
    expect(lines.map((l) => JSON.parse(l) as RunRecord).some((r) => r.message === 'mcp-canary run')).toBe(true);
  });

  it('the scheduled run: proxy credentials from an SSM SecureString, as every other credential may be', async () => {
    await motoSecretClients(moto.endpoint)
      .ssm(PROBE_REGION)
      .send(new PutParameterCommand({ Name: '/mcp-canary/proxy', Value: CREDENTIALS, Type: 'SecureString' }));
    // As the stack passes it: the function's environment, read by the run's own schema.
    const { proxy } = readRunEnv({
      [EnvVar.proxy]: JSON.stringify({ url: guarded.url, credentials: { ssmParameter: '/mcp-canary/proxy' } }),
      [EnvVar.homeRegion]: PROBE_REGION,
      AWS_REGION: PROBE_REGION,
    });
    const secrets = new SecretReader(motoSecretClients(moto.endpoint), { defaultRegion: PROBE_REGION, proxy });
    await motoSecretClients(moto.endpoint)
      .secretsManager(PROBE_REGION)
      .send(new CreateSecretCommand({ Name: 'mcp-canary/ca', SecretString: pki.caPem }));
    guarded.connects.length = 0;
    const lines2: string[] = [];
    const ok = await run(
      { targets: [{ name: 'ssm-proxy', url: server.url, tool, tls: { ca: { secretsManager: 'mcp-canary/ca' } } }] },
      motoRunDeps(moto.endpoint, lines2, { secrets }),
    );
    expect(ok.verdicts[0]).toMatchObject({ outcome: 'healthy' });
    expect(guarded.connects).toContain(`127.0.0.1:${server.port}`);
    const all = lines2.join('\n') + JSON.stringify(ok);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(Buffer.from(CREDENTIALS).toString('base64'));
  });

  it("check --config goes through the fleet's proxy, whatever HTTPS_PROXY says; its credentials read from SSM", async () => {
    await motoSecretClients(moto.endpoint)
      .ssm('eu-west-1')
      .send(new PutParameterCommand({ Name: '/mcp-canary/proxy', Value: CREDENTIALS, Type: 'SecureString' }));
    const withProxy = join(pki.dir, 'fleet-with-proxy.json');
    const fleetWith = (proxy: object) =>
      writeFileSync(
        withProxy,
        JSON.stringify({
          homeRegion: 'eu-west-1',
          proxy,
          targets: [{ name: 'behind-proxy', url: server.url, tool, tls: { ca: `file:${pki.caFile}` } }],
        }),
      );
    const aws = {
      AWS_ENDPOINT_URL: moto.endpoint,
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      AWS_REGION: 'eu-west-1',
    };
    const deadProxy = `http://127.0.0.1:${await freePort()}`;
    fleetWith({ url: open.url });
    const plain = await check({ HTTPS_PROXY: deadProxy }, withProxy);
    expect(plain.verdict.outcome).toBe('healthy');
    expect(open.connects).toContain(`127.0.0.1:${server.port}`);
    fleetWith({ url: guarded.url, credentials: { ssmParameter: '/mcp-canary/proxy' } });
    const credentialed = await check({ ...aws }, withProxy);
    expect(credentialed.verdict.outcome).toBe('healthy');
    expect(guarded.connects).toContain(`127.0.0.1:${server.port}`);
    // The fleet's noProxy is the Lambda's; NO_PROXY in the laptop's environment does not change what is checked.
    open.connects.length = 0;
    fleetWith({ url: open.url, noProxy: ['127.0.0.1'] });
    expect((await check({}, withProxy)).verdict.outcome).toBe('healthy');
    expect(open.connects).toEqual([]);
  });

  it('the SSRF guard still judges the final destination through the proxy: metadata and loopback refused, never sent', async () => {
    const wire = new Wire({ timeoutMs: 3_000, budget: new AbortController().signal, reach: { proxy: { url: open.url, noProxy: [] } } });
    const oauthFetch = guardedFetch(wire.fetch, { allowPrivateNetwork: false, loopbackAllowed: false });
    try {
      await expect(oauthFetch('https://169.254.169.254/latest/meta-data/iam/')).rejects.toThrow(
        /cloud metadata address \(169\.254\.169\.254\)/,
      );
      await expect(oauthFetch(`https://127.0.0.1:${server.port}/.well-known/oauth-authorization-server`)).rejects.toThrow(
        /a loopback address \(127\.0\.0\.1\)/,
      );
      // And the MCP wire itself never tunnels to a metadata address, whatever URL it is given.
      await expect(wire.fetch('https://169.254.169.254/mcp', { method: 'POST', body: '{}' })).rejects.toThrow(
        /through the proxy: a cloud metadata address/,
      );
      expect(open.connects).toEqual([]);
    } finally {
      await wire.close();
    }
  });
});
