/**
 * A grant secret that holds another server's grant (a target pointed at the wrong `store`, a copied
 * config): the scheduled parts never send its tokens to the target. The refresher neither refreshes nor
 * publishes it for that target and tells the canary owner (CanaryCredentialRefused = 1, the fix); a probe
 * given a token published for another server ends inconclusive, canary_credential, and sends nothing.
 * Real parts: oidc-provider (login driven over HTTP), two SDK MCP servers that verify every token,
 * moto_server for Secrets Manager and CloudWatch.
 */
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { login } from '../../../../functions/engine/auth/login.ts';
import { CREDENTIAL_REFUSED_METRIC, publishedOf } from '../../../../functions/base/config/schema/oauth-delegated.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { refreshGrants } from '../../../../functions/lambdas/refresh/refresh.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import { publishAccess, readAccess, SecretsManagerGrantStore } from '../../../../functions/io/secrets/grant-store.ts';
import { SecretReader } from '../../../../functions/io/secrets/reader.ts';
import { consent, startDelegatedAuthServer, type DelegatedAuthServer } from '../../../helpers/auth/delegated.ts';
import { startProtectedMcp, type ProtectedMcp } from '../../../helpers/auth/servers.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { motoSecretClients } from '../../../helpers/run/fixtures.ts';
import { cloudWatchAt } from '../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);

const HOME = 'us-east-1';
const PROBE = 'eu-west-1';
const NAMESPACE = 'McpCanaryWrongServer';
const A_SECRET = 'mcp-canary/rates/grant';
const B_SECRET = 'mcp-canary/quotes/grant';

let moto: Moto;
let as: DelegatedAuthServer;
let a: ProtectedMcp;
let b: ProtectedMcp;
const resources: string[] = [];
const logs: string[] = [];
const started = Date.now();

const sm = (region: string) => new SecretsManagerClient({ region, endpoint: moto.endpoint, credentials: motoCredentials });

beforeAll(async () => {
  moto = await startMoto();
  as = await startDelegatedAuthServer({ resources: () => resources });
  [a, b] = await Promise.all([startProtectedMcp({ issuer: as.issuer }), startProtectedMcp({ issuer: as.issuer })]);
  resources.push(a.url, b.url);
  // A person logs in to A; the grant lands in A's secret, and by mistake in B's too.
  let answered: Promise<unknown> | undefined;
  const grant = await login({
    serverUrl: a.url,
    settings: { allowPrivateNetwork: false },
    onAuthorizationUrl: (u) => void (answered = consent(u)),
    onSecret: () => {},
  });
  await answered;
  for (const secret of [A_SECRET, B_SECRET])
    expect(await new SecretsManagerGrantStore(sm(HOME), secret, HOME).swap(null, grant)).not.toBe(false);
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await as?.close();
  await moto?.stop();
});

describe('a grant secret holding another server’s grant', () => {
  it('is neither refreshed nor published for the target: the refresher reports mismatch, CanaryCredentialRefused = 1, the fix', async () => {
    // Prepare: far past half the access token's life, so a grant that were B's would be refreshed now.
    const refreshes = as.refreshes();
    // Act
    const reports = await refreshGrants(
      {
        grants: [
          { target: 'rates', url: a.url, secret: A_SECRET, regions: [PROBE], allowPrivateNetwork: false },
          { target: 'quotes', url: b.url, secret: B_SECRET, regions: [PROBE], allowPrivateNetwork: false },
        ],
      },
      {
        homeRegion: HOME,
        namespace: NAMESPACE,
        secretsManager: sm,
        cloudWatch: cloudWatchAt(moto.endpoint, HOME),
        holder: 'refresher-1',
        now: () => started + 40 * 60_000,
        log: (l) => logs.push(l),
      },
    );
    // Assess
    const quotes = reports.find((r) => r.target === 'quotes')!;
    expect(quotes).toMatchObject({ result: 'mismatch', published: [], fix: `mcp-canary login ${b.url} --store-secret ${B_SECRET}` });
    expect(quotes.detail).toContain(`it was issued for ${a.url}, not ${b.url}`);
    expect(reports.find((r) => r.target === 'rates')).toMatchObject({ result: 'refreshed', published: [PROBE] });
    expect(as.refreshes() - refreshes).toBe(1); // A's own, once
    expect(await readAccess(sm(PROBE), B_SECRET)).toBeNull();
    const refused = await cloudWatchAt(moto.endpoint, HOME).send(
      new GetMetricDataCommand({
        StartTime: new Date(started - 3_600_000),
        EndTime: new Date(started + 3_600_000),
        MetricDataQueries: ['rates', 'quotes'].map((t) => ({
          Id: t,
          MetricStat: {
            Metric: { Namespace: NAMESPACE, MetricName: CREDENTIAL_REFUSED_METRIC, Dimensions: [{ Name: 'Target', Value: t }] },
            Period: 60,
            Stat: 'Maximum',
          },
        })),
      }),
    );
    expect(Object.fromEntries((refused.MetricDataResults ?? []).map((r) => [r.Id, r.Values]))).toEqual({ rates: [0], quotes: [1] });
    expect(b.received).toEqual([]);
  });

  it('published for the target anyway (by hand, or before grants were bound): the run ends inconclusive, canary_credential, and B receives nothing', async () => {
    // Prepare: A's access token published under B's secret, as a person copying secrets would.
    const grantA = (await new SecretsManagerGrantStore(sm(HOME), A_SECRET, HOME).read())!.grant;
    await publishAccess(sm(PROBE), B_SECRET, publishedOf(grantA));
    const secrets = new SecretReader(motoSecretClients(moto.endpoint), { defaultRegion: PROBE });
    // Act
    const summary = await run(
      {
        targets: [
          { name: 'quotes', url: b.url, tool: { name: 'get_rate' }, auth: { authorizationCode: { store: { secretsManager: B_SECRET } } } },
        ],
      },
      {
        probeRegion: PROBE,
        homeRegion: HOME,
        namespace: NAMESPACE,
        cloudWatch: cloudWatchAt(moto.endpoint, HOME),
        secrets,
        log: (l) => logs.push(l),
        judge: (t, oauthSecrets) => judge(t, { oauthSecrets }),
      },
    );
    // Assess: the canary's own credential, never a page to B's owner; not one request reached B.
    expect(summary.verdicts).toEqual([{ target: 'quotes', outcome: 'inconclusive', failure: 'canary_credential' }]);
    expect(b.received).toEqual([]);
    const line = logs.find((l) => l.includes('"mcp-canary run"') && l.includes('canary_credential'))!;
    expect(line).toContain('not for this server');
    expect(line).toContain(`mcp-canary login ${b.url}`);
    for (const token of as.issued) expect(logs.join('\n')).not.toContain(token);
  });
});
