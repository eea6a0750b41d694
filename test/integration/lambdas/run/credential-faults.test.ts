/**
 * Credentials at scale and under faults, through the scheduled run: SSM and Secrets Manager are moto_server
 * behind the AWS fault proxy (AWS's own throttling, 5xx, AccessDenied and hanging answers), the endpoint a
 * real MCP server that requires the token, CloudWatch moto itself. What is published, what is skipped, and
 * what the canary owner's `credentials` fault counts.
 */
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import { SecretReader } from '../../../../functions/io/secrets/reader.ts';
import { run, type RunSummary } from '../../../../functions/lambdas/run/run.ts';
import type { OwnFaultCounts } from '../../../../functions/base/common/own-faults.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { HOME_REGION, motoRunDeps, NAMESPACE, PROBE_REGION } from '../../../helpers/run/fixtures.ts';
import { startAwsFaultProxy, type AwsFault, type AwsFaultProxy } from '../../../helpers/run/aws-fault-proxy.ts';
import { cloudWatchAt, readRuns } from '../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);
const TOKEN = 'tok-7c9e6679f4a1';
/** moto's account. */
const ACCOUNT = '123456789012';
let moto: Moto;
let api: RatesApi;
let server: RunningServer;
let proxy: AwsFaultProxy;

beforeAll(async () => {
  [moto, api] = await Promise.all([startMoto(), startRatesApi()]);
  server = await startMcpServer({ era: 'modern', requireAuthorization: `Bearer ${TOKEN}`, tools: [rateTool(api)] });
  proxy = await startAwsFaultProxy(moto.endpoint);
});
afterAll(async () => {
  await Promise.all([server?.close(), api?.close(), proxy?.close()]);
  await moto?.stop();
});
beforeEach(async () => {
  await moto.reset();
  proxy.clear();
  proxy.calls.length = 0;
});
afterEach(() => vi.restoreAllMocks());

/** The recommended store: one SSM SecureString per credential in the home region, referenced by ARN. */
const ssmArn = (name: string) => `arn:aws:ssm:${HOME_REGION}:${ACCOUNT}:parameter/mcp-canary/${name}`;
async function storeParameters(names: readonly string[]) {
  const ssm = new SSMClient({ region: HOME_REGION, endpoint: moto.endpoint, credentials: motoCredentials });
  for (const n of names) await ssm.send(new PutParameterCommand({ Name: `/mcp-canary/${n}`, Value: TOKEN, Type: 'SecureString' }));
}
const ssmTarget = (name: string) => ({
  name,
  url: server.url,
  headerSecrets: { Authorization: { ssmParameter: ssmArn(name), prefix: 'Bearer ' } },
});

/** A reader whose SSM and Secrets Manager calls go through the fault proxy, one attempt each, on a clock the test moves. */
function proxiedReader(clock: { now: number }, readTimeoutMs?: number) {
  return new SecretReader(
    {
      ssm: (region) => new SSMClient({ region, endpoint: proxy.endpoint, credentials: motoCredentials, maxAttempts: 1 }),
      secretsManager: (region) =>
        new SecretsManagerClient({ region, endpoint: proxy.endpoint, credentials: motoCredentials, maxAttempts: 1 }),
    },
    { defaultRegion: PROBE_REGION, now: () => clock.now, random: () => 0, ...(readTimeoutMs ? { readTimeoutMs } : {}) },
  );
}

async function runOnce(
  targets: unknown[],
  secrets: SecretReader,
): Promise<{ summary: RunSummary; lines: Array<Record<string, unknown>>; faults: OwnFaultCounts[] }> {
  const out: string[] = [];
  const faults: OwnFaultCounts[] = [];
  const summary = await run({ targets }, motoRunDeps(moto.endpoint, out, { secrets, faults: (c) => faults.push(c) }));
  return { summary, lines: out.map((l) => JSON.parse(l) as Record<string, unknown>), faults };
}
const runsOf = (target: string) => readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, target);
const callsOf = (operation: string) => proxy.calls.filter((c) => c === operation).length;

describe('credential reads at scale', () => {
  it('reads a full payload of 25 SSM references by ARN in 3 GetParameters calls, and judges every target with them', async () => {
    // Prepare
    const names = Array.from({ length: 25 }, (_, i) => `rates-${String(i).padStart(2, '0')}`);
    await storeParameters(names);
    const secrets = proxiedReader({ now: 1_000_000 });
    // Act
    const { summary } = await runOnce(names.map(ssmTarget), secrets);
    // Assess
    expect(summary.verdicts.filter((v) => v.outcome === 'healthy')).toHaveLength(25);
    expect(callsOf('GetParameters')).toBe(3);
    expect(callsOf('GetParameter')).toBe(0);
    expect(secrets.calls).toEqual({ calls: 3, names: 25 });
  });

  it('reads Secrets Manager references of one payload in one BatchGetSecretValue call, and one by one when the role may not batch', async () => {
    // Prepare
    const sm = new SecretsManagerClient({ region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials });
    for (const n of ['a', 'b', 'c']) await sm.send(new CreateSecretCommand({ Name: `mcp-canary/${n}`, SecretString: TOKEN }));
    const targets = ['a', 'b', 'c'].map((n) => ({
      name: `rates-${n}`,
      url: server.url,
      headerSecrets: { Authorization: { secretsManager: `mcp-canary/${n}`, prefix: 'Bearer ' } },
    }));
    // Act
    const batched = await runOnce(targets, proxiedReader({ now: 1_000_000 }));
    proxy.always('BatchGetSecretValue', 'denied');
    const oneByOne = await runOnce(targets, proxiedReader({ now: 1_000_000 }));
    // Assess
    expect(batched.summary.verdicts.map((v) => v.outcome)).toEqual(['healthy', 'healthy', 'healthy']);
    expect(oneByOne.summary.verdicts.map((v) => v.outcome)).toEqual(['healthy', 'healthy', 'healthy']);
    expect(callsOf('BatchGetSecretValue')).toBe(2);
    expect(callsOf('GetSecretValue')).toBe(3);
    expect(oneByOne.faults).toEqual([]);
  });
});

describe('a credential store that throttles, fails or does not answer', () => {
  it('serves the last good value through throttling, re-reads behind the run, and counts the fault once', async () => {
    // Prepare: a first run reads the value; six minutes later SSM throttles every read
    await storeParameters(['rates-prod']);
    const clock = { now: 1_000_000 };
    const secrets = proxiedReader(clock);
    const first = await runOnce([ssmTarget('rates-prod')], secrets);
    clock.now += 6 * 60_000;
    proxy.always('GetParameter', 'throttle');
    proxy.always('GetParameters', 'throttle');
    // Act
    const stale = await runOnce([ssmTarget('rates-prod')], secrets);
    // The first run's read, then the one behind the stale run
    await vi.waitFor(() => expect(callsOf('GetParameter')).toBe(2));
    clock.now += 20_000;
    const next = await runOnce([ssmTarget('rates-prod')], secrets);
    // Assess: both runs judged with the kept token; one failed read, counted once; no read again within a minute
    for (const r of [first, stale, next]) expect(r.summary.verdicts).toEqual([{ target: 'rates-prod', outcome: 'healthy', failure: null }]);
    expect([...stale.faults, ...next.faults]).toEqual([{ credentials: 1 }]);
    expect(callsOf('GetParameter')).toBe(2);
    expect(await runsOf('rates-prod')).toMatchObject({ runs: 3, worst: 0 });
  });

  for (const [fault, words] of [
    ['throttle', /ThrottlingException: Rate exceeded/],
    ['server', /InternalServerError/],
    ['hang', /did not answer within 400 ms/],
  ] as Array<[AwsFault, RegExp]>) {
    it(`does not judge a target whose only read meets ${fault}: no verdict, no datapoint, a skip naming it and a credentials fault`, async () => {
      // Prepare
      await storeParameters(['rates-prod']);
      proxy.always('GetParameter', fault);
      // Act
      const { summary, lines, faults } = await runOnce([ssmTarget('rates-prod')], proxiedReader({ now: 1_000_000 }, 400));
      // Assess
      expect(summary).toEqual({ verdicts: [], published: false, skipped: { credentials: ['rates-prod'] }, faults: { credentials: 1 } });
      expect(faults).toEqual([{ credentials: 1 }]);
      const skip = lines.find((l) => l.message === 'mcp-canary run skipped');
      expect(skip).toMatchObject({ reason: 'credentials', targets: ['rates-prod'] });
      expect(String(skip?.detail)).toMatch(words);
      expect(lines.filter((l) => l.message === 'mcp-canary run')).toEqual([]);
      expect(await runsOf('rates-prod')).toEqual({ runs: 0, worst: undefined });
    });
  }

  it("makes a denied read inconclusive, naming the grant, and counts a credentials fault (an IAM or SCP change is the canary owner's too)", async () => {
    // Prepare
    await storeParameters(['rates-prod']);
    proxy.always('GetParameter', 'denied');
    // Act
    const { summary, lines } = await runOnce([ssmTarget('rates-prod')], proxiedReader({ now: 1_000_000 }));
    // Assess
    expect(summary).toEqual({
      verdicts: [{ target: 'rates-prod', outcome: 'inconclusive', failure: null }],
      published: true,
      faults: { credentials: 1 },
    });
    const record = lines.find((l) => l.message === 'mcp-canary run') as { verdict: { detail: string } };
    expect(record.verdict.detail).toMatch(/AccessDeniedException.*Grant the function ssm:GetParameter and ssm:GetParameters/);
  });

  it('makes a missing parameter inconclusive without counting a fault: the reference is wrong, not the canary', async () => {
    const { summary } = await runOnce([ssmTarget('rates-gone')], proxiedReader({ now: 1_000_000 }));
    expect(summary).toEqual({ verdicts: [{ target: 'rates-gone', outcome: 'inconclusive', failure: null }], published: true });
  });
});
