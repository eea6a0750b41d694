/**
 * Delegated OAuth unattended, against real parts: oidc-provider (authorization code + PKCE, dynamic
 * registration, rotating refresh tokens whose reuse revokes the grant), an SDK MCP server verifying
 * every token, moto_server for Secrets Manager (three regions) and CloudWatch. The login is driven end
 * to end over HTTP; then many writers and many warm probe functions in three regions run concurrently
 * through several rotations, on a clock the test moves.
 */
import { GetMetricDataCommand, GetMetricStatisticsCommand } from '@aws-sdk/client-cloudwatch';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login } from '../../../../functions/engine/auth/login.ts';
import {
  CREDENTIAL_REFUSED_METRIC,
  REFRESH_FAILED_METRIC,
  type RefreshEvent,
} from '../../../../functions/base/config/schema/oauth-delegated.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { refreshGrants, type GrantReport } from '../../../../functions/lambdas/refresh/refresh.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import { readAccess, SecretsManagerGrantStore } from '../../../../functions/io/secrets/grant-store.ts';
import { SecretReader } from '../../../../functions/io/secrets/reader.ts';
import { verdictValue } from '../../../../functions/base/common/run-record.ts';
import { consent, startDelegatedAuthServer, type DelegatedAuthServer } from '../../../helpers/auth/delegated.ts';
import { startProtectedMcp, type ProtectedMcp } from '../../../helpers/auth/servers.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { motoSecretClients } from '../../../helpers/run/fixtures.ts';
import { cloudWatchAt } from '../../../helpers/run/readback.ts';

const HOME = 'us-east-1';
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
const NAMESPACE = 'McpCanaryDelegated';
const DOWN = 'McpCanaryDelegatedDown';
const REVOKED = 'McpCanaryDelegatedRevoked';
const SECRET = 'mcp-canary/rates/grant';

let moto: Moto;
let as: DelegatedAuthServer;
let mcp: ProtectedMcp;
const resources: string[] = [];
const started = Date.now();
let clock = started;
const logs: string[] = [];

const sm = (region: string) => new SecretsManagerClient({ region, endpoint: moto.endpoint, credentials: motoCredentials });
const event = (): RefreshEvent => ({
  grants: [{ target: 'rates', url: mcp.url, secret: SECRET, regions: REGIONS, allowPrivateNetwork: false }],
});
const writer = (holder: string, namespace = NAMESPACE) =>
  refreshGrants(event(), {
    homeRegion: HOME,
    namespace,
    secretsManager: sm,
    cloudWatch: cloudWatchAt(moto.endpoint, HOME),
    holder,
    now: () => clock,
    log: (l) => logs.push(l),
  });
const targetInput = () => ({
  name: 'rates',
  url: mcp.url,
  tool: { name: 'get_rate' },
  auth: { authorizationCode: { store: { secretsManager: SECRET } } },
});

/** A warm probe function in a region: its own SecretReader (its own cache), the real run(). */
function warmProbe(region: string, namespace = NAMESPACE) {
  const secrets = new SecretReader(motoSecretClients(moto.endpoint), { defaultRegion: region, now: () => clock });
  return () =>
    run(
      { targets: [targetInput()] },
      {
        probeRegion: region,
        homeRegion: HOME,
        namespace,
        cloudWatch: cloudWatchAt(moto.endpoint, HOME),
        secrets,
        log: (l) => logs.push(l),
        judge: (t, oauthSecrets) => judge(t, { oauthSecrets, wallNow: () => clock }),
      },
    );
}

async function metric(name: string, namespace = NAMESPACE): Promise<number[]> {
  const out = await cloudWatchAt(moto.endpoint, HOME).send(
    new GetMetricDataCommand({
      StartTime: new Date(started - 3_600_000),
      EndTime: new Date(started + 12 * 3_600_000),
      MetricDataQueries: [
        {
          Id: 'm',
          MetricStat: {
            Metric: { Namespace: namespace, MetricName: name, Dimensions: [{ Name: 'Target', Value: 'rates' }] },
            Period: 60,
            Stat: 'Maximum',
          },
        },
      ],
    }),
  );
  return out.MetricDataResults?.[0]?.Values ?? [];
}

/** The runs' Verdict datapoints, as the alarms read them (GetMetricStatistics keeps to the namespace in moto). */
async function verdictPoints(namespace: string) {
  const stats = await cloudWatchAt(moto.endpoint, HOME).send(
    new GetMetricStatisticsCommand({
      Namespace: namespace,
      MetricName: 'Verdict',
      Dimensions: [{ Name: 'Target', Value: 'rates' }],
      StartTime: new Date(started - 3_600_000),
      EndTime: new Date(started + 12 * 3_600_000),
      Period: 60,
      Statistics: ['Maximum', 'SampleCount'],
    }),
  );
  return stats.Datapoints ?? [];
}

beforeAll(async () => {
  moto = await startMoto();
  as = await startDelegatedAuthServer({ resources: () => resources, accessTtlSeconds: 3600, refreshExpiresIn: 20 * 86_400 });
  mcp = await startProtectedMcp({ issuer: as.issuer });
  resources.push(mcp.url);
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await as?.close();
  await moto?.stop();
});

describe('delegated OAuth, unattended', () => {
  it('logs in end to end and stores the grant in Secrets Manager; the first refresher run publishes to every probe region', async () => {
    let answered: Promise<unknown> | undefined;
    const grant = await login({
      serverUrl: mcp.url,
      settings: { allowPrivateNetwork: false },
      onAuthorizationUrl: (u) => void (answered = consent(u)),
      onSecret: () => {},
      now: () => clock,
    });
    await answered;
    const store = new SecretsManagerGrantStore(sm(HOME), SECRET, HOME);
    expect(await store.swap(null, grant)).not.toBe(false);
    const [report] = await writer('first');
    expect(report).toMatchObject({ result: 'fresh', generation: 0, published: [...REGIONS].sort() });
    // A quiet run reads and writes nothing new.
    const [quiet] = await writer('quiet');
    expect(quiet).toMatchObject({ result: 'fresh', published: [] });
  });

  it('rotates four times under 6 concurrent writers and 9 warm probe functions in 3 regions: one refresh per rotation, no invalid_grant, every run healthy', async () => {
    const probes = REGIONS.flatMap((r) => [warmProbe(r), warmProbe(r), warmProbe(r)]);
    const refreshesBefore = as.refreshes();
    const outcomes: string[] = [];
    const generations = new Set<number>();
    for (let rotation = 1; rotation <= 4; rotation++) {
      clock += 31 * 60_000; // past half the access token's hour: due
      const [writes, runs] = await Promise.all([
        Promise.all(Array.from({ length: 6 }, (_, i) => writer(`writer-${rotation}-${i}`))),
        Promise.all(probes.map((p) => p())),
      ]);
      const results = writes.map((w) => (w[0] as GrantReport).result);
      expect(results.filter((r) => r === 'refreshed')).toHaveLength(1);
      expect(results.every((r) => r === 'refreshed' || r === 'busy' || r === 'fresh')).toBe(true);
      for (const w of writes) if (w[0]!.generation !== undefined) generations.add(w[0]!.generation);
      // A second wave after the writers: every region reads the new generation within the reader's minute.
      clock += 61_000;
      await writer(`publisher-${rotation}`);
      const after = await Promise.all(probes.map((p) => p()));
      outcomes.push(...[...runs, ...after].flatMap((s) => s.verdicts.map((v) => `${v.outcome}/${v.failure}`)));
    }
    expect(as.refreshes() - refreshesBefore).toBe(4);
    expect(as.tokenErrors).toEqual([]);
    expect(new Set(outcomes)).toEqual(new Set(['healthy/null']));
    expect(outcomes).toHaveLength(4 * 2 * probes.length);
    expect(generations).toContain(4);
    for (const region of REGIONS) expect((await readAccess(sm(region), SECRET))?.generation).toBe(4);
    expect(await metric(CREDENTIAL_REFUSED_METRIC)).not.toContain(1);
    const points = await verdictPoints(NAMESPACE);
    expect(points.reduce((n, p) => n + (p.SampleCount ?? 0), 0)).toBe(outcomes.length);
    expect(Math.max(...points.map((p) => p.Maximum ?? 0))).toBe(0);
  });

  it('no token, refresh token or client secret reaches any log line', () => {
    const text = logs.join('\n');
    expect(as.issued.length).toBeGreaterThan(8);
    for (const token of as.issued) expect(text).not.toContain(token);
  });

  it('the token endpoint down: the refresher reports it, the runs warn while the access token lives', async () => {
    as.setDown(true);
    clock += 31 * 60_000;
    const [report] = await writer('down-1', DOWN);
    expect(report).toMatchObject({ result: 'unavailable' });
    expect(report!.detail).toMatch(/did not refresh the grant/);
    expect(await metric(REFRESH_FAILED_METRIC, DOWN)).toContain(1);
    clock += 61_000;
    const summary = await warmProbe('eu-west-1', DOWN)();
    expect(summary.verdicts[0]).toMatchObject({ outcome: 'healthy' });
    const warned = [...logs].reverse().find((l) => l.includes('"mcp-canary run"'))!;
    expect(warned).toMatch(/token endpoint has not refreshed the delegated grant since/);
    // Past the access token's expiry, agents cannot get a token either: the endpoint's auth has failed.
    clock += 60 * 60_000;
    await writer('down-still', DOWN);
    clock += 61_000;
    const expired = await warmProbe('eu-west-1', DOWN)();
    expect(expired.verdicts[0]).toMatchObject({ outcome: 'failed', failure: 'auth' });
    as.setDown(false);
    const [back] = await writer('down-2');
    expect(back).toMatchObject({ result: 'refreshed' });
  });

  it('a revoked grant tells the canary owner (CanaryCredentialRefused = 1, the fix) and never the pager: the runs end inconclusive, canary_credential', async () => {
    const store = new SecretsManagerGrantStore(sm(HOME), SECRET, HOME);
    const current = (await store.read())!.grant;
    await as.revoke(current.refreshToken!, current.client.client_id);
    clock += 31 * 60_000;
    const [report] = await writer('after-revoke', REVOKED);
    expect(report).toMatchObject({ result: 'refused', fix: `mcp-canary login ${mcp.url}` });
    expect(report!.detail).toMatch(/invalid_grant/);
    expect(await metric(CREDENTIAL_REFUSED_METRIC, REVOKED)).toContain(1);
    const refreshes = as.refreshes();
    await writer('again', REVOKED);
    expect(as.refreshes()).toBe(refreshes); // a refused grant is never sent again
    // Once the last access token has expired, every run is the canary's own problem, not the endpoint's.
    clock += 40 * 60_000;
    const summaries = await Promise.all(REGIONS.map((r) => warmProbe(r, REVOKED)()));
    for (const s of summaries) expect(s.verdicts[0]).toMatchObject({ outcome: 'inconclusive', failure: 'canary_credential' });
    const line = [...logs].reverse().find((l) => l.includes('"mcp-canary run"') && l.includes('canary_credential'))!;
    expect(line).toContain(`mcp-canary login ${mcp.url}`);
    // The alarm input: each region's Verdict datapoint.
    const points = await verdictPoints(REVOKED);
    expect(points.reduce((n, p) => n + (p.SampleCount ?? 0), 0)).toBe(3);
    // The place of a run that could not judge: never the page value 1, and never read as a region that judged.
    expect(Math.max(...points.map((p) => p.Maximum ?? 0))).toBe(verdictValue({ outcome: 'inconclusive', warnings: [] }));
  });
});
