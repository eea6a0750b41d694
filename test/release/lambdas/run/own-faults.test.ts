/**
 * The canary's own faults, injected under the built Lambda bundle: the handler as the CDK stack bundles it
 * (infra/constructs/bundle.ts), in a fresh Node process as Lambda runs it, one warm "container" invoked once
 * per case, against real MCP servers and moto_server behind the AWS fault proxy, which answers SSM,
 * Secrets Manager, DynamoDB and CloudWatch the way AWS does under throttling, 5xx, AccessDenied and a
 * hang. For each case: what reaches the home region's `Verdict` metric (what the paging alarms count),
 * what the run records, and who hears: the `CanaryFaults` EMF datum it writes, held against the alarm of
 * the synthesized probe stack that reads it (same namespace, metric, dimensions; over the threshold).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleRunHandler } from '../../../../infra/constructs/bundle.ts';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import { INCONCLUSIVE_WEIGHT, LEDGER_KEY_ATTRIBUTE, TICKET_WEIGHT } from '../../../../functions/base/common/run-record.ts';
import type { RunSummary } from '../../../../functions/lambdas/run/run.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { HOME_REGION, PROBE_REGION } from '../../../helpers/run/fixtures.ts';
import { runToEnd, type Finished } from '../../../helpers/child.ts';
import { cloudWatchAt, readRuns, type ReadBack } from '../../../helpers/run/readback.ts';
import { startAwsFaultProxy, type AwsFault, type AwsFaultProxy } from '../../../helpers/run/aws-fault-proxy.ts';
import { emfData, type EmfDatum } from '../../../helpers/run/emf.ts';
import { synthFleet, resourcesOf } from '../../../helpers/infra/synth.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);
const TOKEN = 'tok-own-faults-5f2a91';
const TABLE = 'McpCanary-run-ledger';
const NAMESPACE = 'McpCanary';
const ACCOUNT = '123456789012';

/** One invocation per case, in one process (a warm container): before each, the proxy takes the case's faults. */
const CHILD = `
const { handler } = await import(process.env.BUNDLE_URL);
const cases = JSON.parse(process.env.CASES);
for (let i = 0; i < cases.length; i++) {
  await fetch(process.env.CONTROL_URL + '/case/' + i);
  process.stdout.write('CASE ' + i + '\\n');
  const summary = await handler(cases[i].event, { getRemainingTimeInMillis: () => 60_000 });
  process.stdout.write('RESULT ' + JSON.stringify(summary) + '\\n');
}
// A claim that hangs has no request timeout (it is abandoned at 3 s): Lambda freezes the container, this process exits.
process.exit(0);
`;

interface Case {
  readonly name: string;
  /** Faults by operation. */
  readonly faults: Readonly<Record<string, AwsFault>>;
  /** The case's one target (built once the MCP server is up). */
  readonly target: () => Record<string, unknown>;
}

interface Seen {
  readonly summary: RunSummary;
  readonly lines: Array<Record<string, unknown>>;
  readonly emf: EmfDatum[];
  readonly metric: ReadBack;
}

let moto: Moto;
let api: RatesApi;
let server: RunningServer;
let proxy: AwsFaultProxy;
let control: Server;
let outdir: string;
let child: Finished;
const seen = new Map<string, Seen>();

const scheduledTime = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 2 * 60_000).toISOString();
/** Short budgets: a hanging publish waits out the run's deadline (read window + budget + grace + publish reserve). */
const base = (name: string) => ({ name, url: server.url, timeoutMs: 5_000, budgetMs: 6_000 });
const withSsm = (name: string) => ({
  ...base(name),
  headerSecrets: {
    Authorization: { ssmParameter: `arn:aws:ssm:${HOME_REGION}:${ACCOUNT}:parameter/mcp-canary/${name}`, prefix: 'Bearer ' },
  },
});
const withSecret = (name: string) => ({
  ...base(name),
  headerSecrets: { Authorization: { secretsManager: `mcp-canary/${name}`, prefix: 'Bearer ' } },
});

const FAULTS: readonly AwsFault[] = ['throttle', 'server', 'denied', 'hang'];
const CASES: Case[] = [
  { name: 'all-well', faults: {}, target: () => withSsm('all-well') },
  ...FAULTS.map((f) => ({ name: `ssm-${f}`, faults: { GetParameter: f, GetParameters: f }, target: () => withSsm(`ssm-${f}`) })),
  ...FAULTS.map((f) => ({ name: `sm-${f}`, faults: { GetSecretValue: f, BatchGetSecretValue: f }, target: () => withSecret(`sm-${f}`) })),
  ...FAULTS.map((f) => ({ name: `ddb-${f}`, faults: { PutItem: f }, target: () => withSsm(`ddb-${f}`) })),
  ...FAULTS.map((f) => ({ name: `cw-${f}`, faults: { PutMetricData: f }, target: () => withSsm(`cw-${f}`) })),
];

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'mcp-canary-own-faults-'));
  let bundle;
  [moto, api, bundle] = await Promise.all([startMoto(), startRatesApi(), bundleRunHandler(outdir)]);
  server = await startMcpServer({ era: 'modern', requireAuthorization: `Bearer ${TOKEN}`, tools: [rateTool(api)] });
  proxy = await startAwsFaultProxy(moto.endpoint);
  // The stores and the ledger as a deploy has them: SSM parameters in the home region (by ARN), secrets in the probe region.
  const ssm = new SSMClient({ region: HOME_REGION, endpoint: moto.endpoint, credentials: motoCredentials });
  const sm = new SecretsManagerClient({ region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials });
  for (const c of CASES) {
    if (c.name.startsWith('sm-')) await sm.send(new CreateSecretCommand({ Name: `mcp-canary/${c.name}`, SecretString: TOKEN }));
    else await ssm.send(new PutParameterCommand({ Name: `/mcp-canary/${c.name}`, Value: TOKEN, Type: 'SecureString' }));
  }
  await new DynamoDBClient({ region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials }).send(
    new CreateTableCommand({
      TableName: TABLE,
      KeySchema: [{ AttributeName: LEDGER_KEY_ATTRIBUTE, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: LEDGER_KEY_ATTRIBUTE, AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  control = createServer((req, res) => {
    const c = CASES[Number(/\/case\/(\d+)/.exec(req.url ?? '')?.[1])]!;
    proxy.clear();
    for (const [operation, fault] of Object.entries(c.faults)) proxy.always(operation, fault);
    res.end('ok');
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  child = await runToEnd(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: {
      BUNDLE_URL: pathToFileURL(bundle.file).href,
      CASES: JSON.stringify(CASES.map((c) => ({ event: { targets: [c.target()], scheduledTime, periodSeconds: 60 } }))),
      CONTROL_URL: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
      MCP_CANARY_HOME_REGION: HOME_REGION,
      MCP_CANARY_RUN_LEDGER: TABLE,
      AWS_REGION: PROBE_REGION,
      AWS_ENDPOINT_URL: proxy.endpoint,
      AWS_ACCESS_KEY_ID: motoCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: motoCredentials.secretAccessKey,
    },
    killAfterMs: 240_000,
  });
  proxy.clear();
  // Each case's lines: from its CASE marker to the next.
  const parts = child.stdout.split(/^CASE \d+\n/m).slice(1);
  const home = cloudWatchAt(moto.endpoint, HOME_REGION);
  for (const [i, part] of parts.entries()) {
    const lines = part.split('\n').filter(Boolean);
    const result = lines.find((l) => l.startsWith('RESULT '));
    const json = lines.filter((l) => !l.startsWith('RESULT ')).map((l) => JSON.parse(l) as Record<string, unknown>);
    seen.set(CASES[i]!.name, {
      summary: JSON.parse(result!.slice('RESULT '.length)) as RunSummary,
      lines: json,
      emf: emfData(json),
      metric: await readRuns(home, NAMESPACE, CASES[i]!.name),
    });
  }
}, 300_000);
afterAll(async () => {
  await Promise.all([server?.close(), api?.close(), proxy?.close()]);
  await new Promise<void>((resolve) => (control ? control.close(() => resolve()) : resolve()));
  await moto?.stop();
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

/** The probe region's owner alarm that reads this EMF datum, from the synthesized stack (or undefined). */
function alarmHearing(datum: EmfDatum): Record<string, unknown> | undefined {
  const probe = synthFleet({
    homeRegion: HOME_REGION,
    probeRegions: [HOME_REGION, PROBE_REGION],
    targets: [{ name: 'x', url: 'https://x.example.com/mcp' }],
  }).json(`McpCanary-probe-${PROBE_REGION}`);
  return resourcesOf(probe, 'AWS::CloudWatch::Alarm')
    .map(([, p]) => p)
    .find(
      (a) =>
        a.Namespace === datum.namespace &&
        a.MetricName === datum.metric &&
        JSON.stringify((a.Dimensions as Array<{ Name: string; Value: string }>).map((d) => [d.Name, d.Value]).sort()) ===
          JSON.stringify(Object.entries(datum.dimensions).sort()),
    );
}

describe('the bundled run handler under its own faults', () => {
  it('ran every case in one warm process without a crash, and wrote nothing outside its JSON log', () => {
    expect(child.code, child.stderr).toBe(0);
    expect(child.stderr).toBe('');
    expect([...seen.keys()]).toEqual(CASES.map((c) => c.name));
    expect(child.stdout).not.toContain(TOKEN);
  });

  it('writes no fault metric when all is well, and counts the run', () => {
    const s = seen.get('all-well')!;
    expect(s.summary).toEqual({ verdicts: [{ target: 'all-well', outcome: 'healthy', failure: null }], published: true });
    expect(s.emf).toEqual([]);
    expect(s.metric).toEqual({ runs: 1, worst: 0 });
  });

  for (const store of ['ssm', 'sm'] as const) {
    for (const fault of ['throttle', 'server', 'hang'] as const) {
      it(`${store} ${fault}: the target is not judged (no verdict, no datapoint: silent, never healthy), and the credentials alarm hears`, () => {
        const s = seen.get(`${store}-${fault}`)!;
        expect(s.summary).toEqual({
          verdicts: [],
          published: false,
          skipped: { credentials: [`${store}-${fault}`] },
          faults: { credentials: 1 },
        });
        expect(s.metric).toEqual({ runs: 0, worst: undefined });
        expect(s.lines.find((l) => l.message === 'mcp-canary run skipped')).toMatchObject({ reason: 'credentials' });
        const [datum] = s.emf;
        expect(s.emf).toHaveLength(1);
        expect(datum).toMatchObject({
          namespace: NAMESPACE,
          metric: 'CanaryFaults',
          unit: 'Count',
          value: 1,
          dimensions: { Fault: 'credentials' },
        });
        expect(alarmHearing(datum!)).toMatchObject({ AlarmName: 'McpCanary/canary/run-credentials', Threshold: 1 });
      });
    }
    it(`${store} denied: an inconclusive verdict naming the grant (a ticket, never a page), and the credentials alarm hears`, () => {
      const s = seen.get(`${store}-denied`)!;
      expect(s.summary).toEqual({
        verdicts: [{ target: `${store}-denied`, outcome: 'inconclusive', failure: null }],
        published: true,
        faults: { credentials: 1 },
      });
      // The Verdict code of one inconclusive run: its own place plus the ticket place (run-record.ts).
      expect(s.metric).toEqual({ runs: 1, worst: INCONCLUSIVE_WEIGHT + TICKET_WEIGHT });
      expect(alarmHearing(s.emf[0]!)).toMatchObject({ AlarmName: 'McpCanary/canary/run-credentials' });
    });
  }

  for (const fault of FAULTS) {
    it(`DynamoDB ${fault} on the claim: the run fails open (judged, published, counted once), and the ledger alarm hears`, () => {
      const s = seen.get(`ddb-${fault}`)!;
      expect(s.summary).toEqual({
        verdicts: [{ target: `ddb-${fault}`, outcome: 'healthy', failure: null }],
        published: true,
        faults: { ledger: 1 },
      });
      expect(s.metric).toEqual({ runs: 1, worst: 0 });
      expect(s.lines.find((l) => l.message === 'mcp-canary ledger fault')).toMatchObject({ target: `ddb-${fault}` });
      expect(alarmHearing(s.emf[0]!)).toMatchObject({ AlarmName: 'McpCanary/canary/run-ledger' });
    });
  }

  for (const fault of FAULTS) {
    it(`CloudWatch ${fault} on PutMetricData: nothing reaches the home region (silent), and the publish alarm in the probe region hears`, () => {
      const s = seen.get(`cw-${fault}`)!;
      expect(s.summary).toEqual({
        verdicts: [{ target: `cw-${fault}`, outcome: 'healthy', failure: null }],
        published: false,
        faults: { publish: 1 },
      });
      expect(s.metric).toEqual({ runs: 0, worst: undefined });
      expect(s.lines.find((l) => l.message === 'mcp-canary publish failed')).toMatchObject({ targets: [`cw-${fault}`] });
      expect(alarmHearing(s.emf[0]!)).toMatchObject({ AlarmName: 'McpCanary/canary/run-publish' });
    });
  }
});
