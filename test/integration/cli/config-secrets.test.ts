/**
 * `mcp-canary check --config` on a target whose credential is stored by reference (`headerSecrets`):
 * the CLI reads it with the caller's AWS credentials, as the scheduled run does with its role — here
 * from moto's real Secrets Manager and SSM wire (AWS_ENDPOINT_URL), the default credential chain
 * reading static keys from the environment. Without credentials, or without the secret, it says which
 * target, which reference and what to set, and sends nothing: never a silent 401 "check the credentials".
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../functions/demo/servers.ts';
import { runToEnd, type Finished } from '../../helpers/child.ts';
import { motoCredentials, startMoto, type Moto } from '../../helpers/moto.ts';
import { describeWithTools } from '../../helpers/tools.ts';
import { CLI_BIN } from '../../helpers/cli-bin.ts';
import { modernEndpoint, readOnlyRateTool, startFaultServer } from '../../helpers/faults.ts';

const BIN = CLI_BIN;
const TOKEN = 'tok-7f3a9c1e5b2d4f60';
const API_KEY = 'key-0c4e8a2f6b1d3e57';
/** The fleet probes from eu-west-1 first: the secrets exist there only, as a deploy puts them. */
const PROBE_REGION = 'eu-west-1';

let moto: Moto;
let api: RatesApi;
let server: RunningServer;
let dir: string;
let config: string;

/** A shell with no AWS settings at all: no keys, no profile files, no instance metadata. */
function bareEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AWS_')) env[k] = v;
  return {
    ...env,
    HOME: dir,
    AWS_CONFIG_FILE: join(dir, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}
/** The caller's credentials as the default chain finds them in the environment, against moto. */
const withCredentials = (): NodeJS.ProcessEnv => ({
  ...bareEnv(),
  AWS_ENDPOINT_URL: moto.endpoint,
  AWS_ACCESS_KEY_ID: motoCredentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: motoCredentials.secretAccessKey,
});

const check = (env: NodeJS.ProcessEnv, ...args: string[]): Promise<Finished> =>
  runToEnd(process.execPath, [BIN, 'check', '--config', config, ...args], { env, killAfterMs: 30_000 });

describeWithTools(['moto_server'], 'check --config with stored credentials', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-canary-config-secrets-'));
    [moto, api] = await Promise.all([startMoto(), startRatesApi(API_KEY)]);
    server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)], requireAuthorization: `Bearer ${TOKEN}` });
    config = join(dir, 'fleet.json');
    writeFileSync(
      config,
      JSON.stringify({
        homeRegion: 'us-east-1',
        probeRegions: [PROBE_REGION, 'ap-southeast-2'],
        targets: [
          {
            name: 'rates-prod',
            url: server.url,
            headerSecrets: {
              Authorization: { secretsManager: 'mcp-canary/rates-prod', prefix: 'Bearer ' },
              'X-Api-Team': { ssmParameter: '/mcp-canary/rates-team' },
            },
            tool: { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } },
          },
        ],
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([server?.close(), api?.close(), moto?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await moto.reset();
    server.requests.length = 0;
  });

  const store = async () => {
    const at = { region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials };
    await new SecretsManagerClient(at).send(new CreateSecretCommand({ Name: 'mcp-canary/rates-prod', SecretString: `${TOKEN}\n` }));
    await new SSMClient(at).send(new PutParameterCommand({ Name: '/mcp-canary/rates-team', Value: 'payments', Type: 'SecureString' }));
  };

  it('reads the references in the probe region with the caller’s credentials and judges the target healthy', async () => {
    await store();
    const r = await check(withCredentials(), '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject([{ target: 'rates-prod', outcome: 'healthy', failure: null }]);
    expect(server.requests.every((q) => q.authorization === `Bearer ${TOKEN}`)).toBe(true);
    const human = await check(withCredentials());
    expect(human.code).toBe(0);
    for (const out of [r.stdout, human.stdout, human.stderr]) expect(out).not.toContain(TOKEN);
  });

  it('reads a query secret by reference and sends it after the url’s own query; no output shows it', async () => {
    // Prepare: an endpoint that records the request line it got, and a fleet whose target holds the token by reference.
    const QUERY_TOKEN = 'qt-9e4b1c7a2f80';
    const endpoint = await startFaultServer(
      modernEndpoint({ tools: [readOnlyRateTool], call: () => ({ content: [], structuredContent: { rate: 1.08 } }) }),
    );
    const withQuery = join(dir, 'query.json');
    writeFileSync(
      withQuery,
      JSON.stringify({
        homeRegion: 'us-east-1',
        probeRegions: [PROBE_REGION],
        targets: [
          {
            name: 'rates-query',
            url: `${endpoint.url}?read_only=true`,
            querySecrets: { token: { ssmParameter: '/mcp-canary/rates-query/token' } },
            tool: { name: 'get_rate', expectJson: { rate: 1.08 } },
          },
        ],
      }),
    );
    const at = { region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials };
    await new SSMClient(at).send(
      new PutParameterCommand({ Name: '/mcp-canary/rates-query/token', Value: QUERY_TOKEN, Type: 'SecureString' }),
    );
    try {
      // Act
      const json = await runToEnd(process.execPath, [BIN, 'check', '--config', withQuery, '--json'], {
        env: withCredentials(),
        killAfterMs: 30_000,
      });
      const human = await runToEnd(process.execPath, [BIN, 'check', '--config', withQuery], {
        env: withCredentials(),
        killAfterMs: 30_000,
      });
      // Assess
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject([{ target: 'rates-query', outcome: 'healthy' }]);
      expect(new Set(endpoint.received.map((r) => r.url))).toEqual(new Set([`/mcp?read_only=true&token=${QUERY_TOKEN}`]));
      expect(human.stdout.split('\n')[0]).toMatch(/^rates-query {2}http:\/\/127\.0\.0\.1:\d+\/mcp\?read_only=\*\*\*&token=\*\*\* /);
      for (const out of [json.stdout, json.stderr, human.stdout, human.stderr]) expect(out).not.toContain(QUERY_TOKEN);
    } finally {
      await endpoint.close();
    }
  });

  it('without AWS credentials: exit 2 naming the target, each reference and what to set, and no request sent', async () => {
    const r = await check(bareEnv(), '--json');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('target "rates-prod" headerSecrets.Authorization: Secrets Manager secret "mcp-canary/rates-prod"');
    expect(r.stderr).toContain('target "rates-prod" headerSecrets.X-Api-Team: SSM parameter "/mcp-canary/rates-team"');
    expect(r.stderr).toMatch(/no AWS credentials were found .*set AWS_PROFILE \(or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY\)/);
    expect(server.requests).toEqual([]);
  });

  it('with credentials but no such secret: exit 2 naming the target, the reference, the region and the fix', async () => {
    const at = { region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials };
    await new SSMClient(at).send(new PutParameterCommand({ Name: '/mcp-canary/rates-team', Value: 'payments', Type: 'SecureString' }));
    const r = await check(withCredentials());
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /target "rates-prod": headerSecrets\.Authorization: Secrets Manager secret "mcp-canary\/rates-prod" in eu-west-1 cannot be read \(ResourceNotFoundException.*Create it in eu-west-1/,
    );
    expect(server.requests).toEqual([]);
  });
});
