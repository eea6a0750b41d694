/**
 * Every secret of delegated OAuth, planted against servers that echo back whatever they are sent:
 * the authorization code, the PKCE verifier, a dynamic registration's client secret, the access and
 * refresh tokens. `mcp-canary login` (a child process: stdout, stderr), the refresher (its log lines,
 * its reports, the metric dimensions it published to moto) and the scheduled run (its log lines and
 * result) must show none of them, in any form the canary sent them (plain, form-encoded, Basic). And
 * the client key, its passphrase and the proxy's password, against a proxy that quotes its
 * Proxy-Authorization back: the scheduled run (material from Secrets Manager, proxy credentials from
 * SSM; a wrong passphrase too) and `check --config --json` (files and SSM) show none of them.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListMetricsCommand } from '@aws-sdk/client-cloudwatch';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { writeFileSync } from 'node:fs';
import { EnvVar, readRunEnv } from '../../../../functions/base/config/env/env.ts';
import { runToEnd } from '../../../helpers/child.ts';
import { startEchoProxy } from '../../../helpers/net/echo-proxy.ts';
import { makePki } from '../../../helpers/net/pki.ts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { publishedOf, type StoredGrant } from '../../../../functions/base/config/schema/oauth-delegated.ts';
import { refreshGrants } from '../../../../functions/lambdas/refresh/refresh.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import { publishAccess } from '../../../../functions/io/secrets/grant-store.ts';
import { SecretReader } from '../../../../functions/io/secrets/reader.ts';
import { PLANTED, startEchoAuthServer, type EchoAuthServer } from '../../../helpers/auth/echo-auth-server.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { motoSecretClients } from '../../../helpers/run/fixtures.ts';
import { cloudWatchAt } from '../../../helpers/run/readback.ts';
import { describeWithTools } from '../../../helpers/tools.ts';
import { CLI_BIN } from '../../../helpers/cli-bin.ts';

const BIN = CLI_BIN;
const HOME = 'eu-west-1';
const NAMESPACE = 'McpCanaryEcho';
const SECRET = 'mcp-canary/echo';
const ACCESS = 'at-ACCESS-planted-0b7d55e1';
const REFRESH = 'rt-REFRESH-planted-93c2aa4f';

function loginProcess(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'login', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let answered = false;
    const read = (d: Buffer) => {
      out += d.toString();
      const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(out)?.[1];
      if (url && !answered) {
        answered = true;
        // The person's browser: the authorization endpoint redirects to the loopback callback with the code.
        void fetch(url, { redirect: 'follow' }).catch(() => {});
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('close', (code) => resolve({ code, out }));
  });
}

/** Every form a value could be shown in: plain, form-encoded, base64 (alone and as Basic user:password). */
function forms(values: readonly string[]): string[] {
  const out = new Set<string>();
  for (const v of values.filter((x) => x.length >= 8)) {
    out.add(v);
    out.add(encodeURIComponent(v));
    out.add(Buffer.from(v).toString('base64'));
  }
  out.add(Buffer.from(`${PLANTED.clientId}:${PLANTED.clientSecret}`).toString('base64'));
  return [...out];
}

/** The values the echo server saw: every field of every token request (the verifier among them). */
function sentValues(echo: EchoAuthServer): string[] {
  const values: string[] = [];
  for (const r of echo.received) {
    for (const [k, v] of new URLSearchParams(r)) if (/code|verifier|token|secret/.test(k)) values.push(v);
    const basic = /^Basic (.+)$/.exec(r)?.[1];
    if (basic) values.push(basic, ...Buffer.from(basic, 'base64').toString().split(':'));
  }
  return values;
}

describeWithTools(['moto_server', 'openssl'], 'no delegated secret in any output, whatever the servers echo', () => {
  let echo: EchoAuthServer;
  let moto: Moto;
  let dir: string;
  beforeAll(async () => {
    [echo, moto] = await Promise.all([startEchoAuthServer(), startMoto()]);
    dir = await mkdtemp(join(tmpdir(), 'canary-echo-'));
  });
  afterAll(async () => {
    await Promise.all([echo?.close(), moto?.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('login, the refresher and the scheduled run show none of them', async () => {
    // 1. A login whose token exchange is refused with the whole request quoted back.
    const refused = await loginProcess([echo.mcpUrl, '--store-file', join(dir, 'refused.json'), '--no-browser']);
    expect(refused.code).toBe(1);
    const verifier = new URLSearchParams(echo.received.find((r) => r.includes('code_verifier')) ?? '').get('code_verifier');
    expect(verifier, 'the token exchange carried the PKCE verifier').toBeTruthy();
    expect(refused.out).toMatch(/invalid_grant/);

    // 2. A login that succeeds: tokens planted.
    echo.issue({ access: ACCESS, refresh: REFRESH });
    const file = join(dir, 'grant.json');
    const ok = await loginProcess([echo.mcpUrl, '--store-file', file, '--no-browser']);
    expect(ok.out).toMatch(/Logged in to /);
    expect(ok.code).toBe(0);
    const grant = JSON.parse(await readFile(file, 'utf8')) as StoredGrant;
    expect(grant.refreshToken).toBe(REFRESH);

    // 3. The refresher, its refresh refused with the refresh token and the client secret quoted back.
    echo.issue(null);
    const sm = (region: string) => new SecretsManagerClient({ region, endpoint: moto.endpoint, credentials: motoCredentials });
    await sm(HOME).send(
      new CreateSecretCommand({ Name: SECRET, SecretString: JSON.stringify({ ...grant, accessExpiresAt: new Date(0).toISOString() }) }),
    );
    const refresherLogs: string[] = [];
    const reports = await refreshGrants(
      { grants: [{ target: 'echo', url: echo.mcpUrl, secret: SECRET, regions: [HOME], allowPrivateNetwork: false }] },
      {
        homeRegion: HOME,
        namespace: NAMESPACE,
        secretsManager: sm,
        cloudWatch: cloudWatchAt(moto.endpoint, HOME),
        holder: 'req-1',
        log: (l) => refresherLogs.push(l),
      },
    );
    expect(reports[0]!.result).toBe('refused');
    expect(
      echo.received.some((r) => r.includes(REFRESH)),
      'the refresh request carried the planted refresh token',
    ).toBe(true);
    const metrics = await cloudWatchAt(moto.endpoint, HOME).send(new ListMetricsCommand({ Namespace: NAMESPACE }));
    expect(metrics.Metrics?.length).toBeGreaterThan(0);

    // 4. The scheduled run, its access token quoted back in the 401's challenge and body.
    await publishAccess(sm(HOME), SECRET, publishedOf(grant));
    const runLogs: string[] = [];
    const summary = await run(
      { targets: [{ name: 'echo', url: echo.mcpUrl, auth: { authorizationCode: { store: { secretsManager: SECRET } } } }] },
      {
        probeRegion: HOME,
        homeRegion: HOME,
        namespace: NAMESPACE,
        cloudWatch: cloudWatchAt(moto.endpoint, HOME),
        secrets: new SecretReader(motoSecretClients(moto.endpoint), { defaultRegion: HOME }),
        log: (l) => runLogs.push(l),
      },
    );
    expect(summary.verdicts[0]!.outcome).not.toBe('healthy');
    const runMetrics = await cloudWatchAt(moto.endpoint, HOME).send(new ListMetricsCommand({ Namespace: NAMESPACE }));

    const planted = [PLANTED.code, PLANTED.clientSecret, verifier!, ACCESS, REFRESH, ...sentValues(echo)];
    const everything = {
      login: refused.out + ok.out,
      refresher: refresherLogs.join('\n') + JSON.stringify(reports),
      run: runLogs.join('\n') + JSON.stringify(summary),
      metrics: JSON.stringify([metrics.Metrics, runMetrics.Metrics]),
    };
    for (const [where, text] of Object.entries(everything)) {
      for (const secret of forms(planted)) expect(text, `${where} shows a secret`).not.toContain(secret);
    }
  });

  it('the client key, its passphrase and the proxy password: in no run result, log line or CLI output', async () => {
    const pki = makePki();
    const proxy = await startEchoProxy();
    const PROXY_PASSWORD = 'prx-PASS-planted-71ac0e';
    const WRONG_PASSPHRASE = 'wrong-PASSPHRASE-planted-c4d2';
    const clients = motoSecretClients(moto.endpoint);
    try {
      await clients
        .ssm(HOME)
        .send(new PutParameterCommand({ Name: '/mcp-canary/echo-proxy', Value: `canary:${PROXY_PASSWORD}`, Type: 'SecureString' }));
      for (const [Name, SecretString] of [
        ['mcp-canary/mesh/cert', pki.encrypted.cert],
        ['mcp-canary/mesh/key', pki.encrypted.key],
        ['mcp-canary/mesh/pass', pki.passphrase],
        ['mcp-canary/mesh/wrong', WRONG_PASSPHRASE],
        ['mcp-canary/mesh/ca', pki.caPem],
      ])
        await clients.secretsManager(HOME).send(new CreateSecretCommand({ Name, SecretString }));
      const { proxy: fleetProxy } = readRunEnv({
        [EnvVar.proxy]: JSON.stringify({ url: proxy.url, credentials: { ssmParameter: '/mcp-canary/echo-proxy' } }),
        [EnvVar.homeRegion]: HOME,
        AWS_REGION: HOME,
      });
      const tls = (passphrase: string) => ({
        clientCertificate: { secretsManager: 'mcp-canary/mesh/cert' },
        clientKey: { secretsManager: 'mcp-canary/mesh/key' },
        passphrase: { secretsManager: passphrase },
        ca: { secretsManager: 'mcp-canary/mesh/ca' },
      });
      const runLogs: string[] = [];
      const summary = await run(
        {
          targets: [
            { name: 'mesh', url: 'https://mesh.example.com/mcp', tls: tls('mcp-canary/mesh/pass') },
            { name: 'mesh-wrong', url: 'https://mesh.example.com/mcp', tls: tls('mcp-canary/mesh/wrong') },
          ],
        },
        {
          probeRegion: HOME,
          homeRegion: HOME,
          namespace: NAMESPACE,
          cloudWatch: cloudWatchAt(moto.endpoint, HOME),
          secrets: new SecretReader(clients, { defaultRegion: HOME, proxy: fleetProxy }),
          log: (l) => runLogs.push(l),
        },
      );
      expect(summary.verdicts.map((v) => v.outcome)).toEqual(['failed', 'inconclusive']);
      expect(runLogs.join('\n')).toMatch(/the proxy http:\/\/127\.0\.0\.1:\d+ refused CONNECT: 407/);
      expect(runLogs.join('\n')).toMatch(/passphrase/);
      expect(
        proxy.seen.some((a) => a.startsWith('Basic ')),
        'the proxy was sent the credentials',
      ).toBe(true);

      const passFile = join(dir, 'pass.txt');
      writeFileSync(passFile, pki.passphrase);
      const fleetFile = join(dir, 'fleet.json');
      writeFileSync(
        fleetFile,
        JSON.stringify({
          homeRegion: HOME,
          proxy: { url: proxy.url, credentials: { ssmParameter: '/mcp-canary/echo-proxy' } },
          targets: [
            {
              name: 'mesh',
              url: 'https://mesh.example.com/mcp',
              tls: {
                clientCertificate: `file:${pki.encrypted.certFile}`,
                clientKey: `file:${pki.encrypted.keyFile}`,
                passphrase: `file:${passFile}`,
              },
            },
          ],
        }),
      );
      const aws = { AWS_ENDPOINT_URL: moto.endpoint, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: HOME };
      const cli = await runToEnd(process.execPath, [BIN, 'check', '--config', fleetFile, '--json'], {
        env: { ...process.env, ...aws },
      });
      expect(cli.stdout).toMatch(/refused CONNECT: 407/);

      const keyLines = [pki.encrypted.key, pki.client.key].flatMap((k) =>
        k.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----')),
      );
      const planted = [PROXY_PASSWORD, `canary:${PROXY_PASSWORD}`, pki.passphrase, WRONG_PASSPHRASE, ...keyLines];
      const everything = { run: runLogs.join('\n') + JSON.stringify(summary), cli: cli.stdout + cli.stderr };
      for (const [where, text] of Object.entries(everything)) {
        for (const secret of forms(planted)) expect(text, `${where} shows a secret`).not.toContain(secret);
      }
    } finally {
      await proxy.close();
      pki.cleanup();
    }
  });
});
