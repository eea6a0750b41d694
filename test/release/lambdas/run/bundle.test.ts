/**
 * The deployable artifact: build the handler exactly as the CDK stack does (infra/constructs/bundle.ts), import
 * the built file in a fresh Node process and run it once against real MCP servers and moto. This is
 * what catches "Dynamic require of "node:zlib" is not supported" and its kin before a deploy.
 * Size and cold import time are printed, never asserted: speed is shown by benchmarks, not tests.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleRunHandler, type BuiltBundle } from '../../../../infra/constructs/bundle.ts';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import { LEDGER_KEY_ATTRIBUTE } from '../../../../functions/base/common/run-record.ts';
import type { RunSummary } from '../../../../functions/lambdas/run/run.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { deadUrl, HOME_REGION, motoSecretClients, PROBE_REGION } from '../../../helpers/run/fixtures.ts';
import { runToEnd, type Finished } from '../../../helpers/child.ts';
import { cloudWatchAt, listMetrics, readRuns } from '../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

/** Every suite here needs moto_server: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['moto_server']);

/** Runs in the fresh process: time the import, invoke once, print one RESULT line. */
const CHILD = `
const t0 = performance.now();
const { handler } = await import(process.env.BUNDLE_URL);
const importMs = performance.now() - t0;
const sinceProcessStartMs = performance.now();
const summary = await handler(JSON.parse(process.env.EVENT), { getRemainingTimeInMillis: () => 60_000 });
process.stdout.write('RESULT ' + JSON.stringify({ importMs, sinceProcessStartMs, summary }) + '\\n');
`;

/** The running Node: the suite's (engines ≥ 22.18), Node 24 in CI (.ci/run) as on the Lambda. */
const NODE = process.execPath;

/** A minimal environment: nothing of the test runner's (NODE_OPTIONS, loaders) leaks into the process. */
function runChild(env: Record<string, string>): Promise<Finished> {
  return runToEnd(NODE, ['--input-type=module', '-e', CHILD], { env });
}

let moto: Moto;
let api: RatesApi;
let server: RunningServer;
let outdir: string;
let bundle: BuiltBundle;
const token = 'bundle-token-c0ffee4242';

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'mcp-canary-bundle-'));
  [moto, api, bundle] = await Promise.all([startMoto(), startRatesApi(), bundleRunHandler(outdir)]);
  server = await startMcpServer({ era: 'modern', requireAuthorization: `Bearer ${token}`, tools: [rateTool(api)] });
});
afterAll(async () => {
  await Promise.all([server?.close(), api?.close()]);
  await moto?.stop();
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

describe('the built Lambda bundle', () => {
  it('imports in a fresh Node process and runs once: secret read, verdicts logged, metrics in the home region', async () => {
    // Prepare
    await motoSecretClients(moto.endpoint)
      .secretsManager(PROBE_REGION)
      .send(new CreateSecretCommand({ Name: 'rates/token', SecretString: token }));
    const event = {
      targets: [
        {
          name: 'rates-prod',
          url: server.url,
          tool: { name: 'get_rate', expectJson: { rate: 1.08 } },
          headerSecrets: { Authorization: { secretsManager: 'rates/token', prefix: 'Bearer ' } },
        },
        { name: 'rates-dead', url: await deadUrl() },
      ],
    };
    // Act
    const child = await runChild({
      BUNDLE_URL: pathToFileURL(bundle.file).href,
      EVENT: JSON.stringify(event),
      MCP_CANARY_HOME_REGION: HOME_REGION,
      AWS_REGION: PROBE_REGION,
      AWS_ENDPOINT_URL: moto.endpoint,
      AWS_ACCESS_KEY_ID: motoCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: motoCredentials.secretAccessKey,
    });
    // Assess
    expect(child.stderr).not.toMatch(/Dynamic require|ERR_|TypeError|ReferenceError/);
    expect(child.code).toBe(0);
    const lines = child.stdout.split('\n').filter(Boolean);
    const resultLine = lines.find((l) => l.startsWith('RESULT '));
    expect(resultLine, child.stderr).toBeDefined();
    const result = JSON.parse(resultLine!.slice('RESULT '.length)) as {
      importMs: number;
      sinceProcessStartMs: number;
      summary: RunSummary;
    };
    expect(result.summary).toEqual({
      verdicts: [
        { target: 'rates-prod', outcome: 'healthy', failure: null },
        { target: 'rates-dead', outcome: 'failed', failure: 'unreachable' },
      ],
      published: true,
    });
    const runRecords = lines.filter((l) => !l.startsWith('RESULT ')).map((l) => JSON.parse(l) as { message: string; target: string });
    expect(runRecords.map((r) => `${r.message} ${r.target}`).sort()).toEqual(['mcp-canary run rates-dead', 'mcp-canary run rates-prod']);
    expect(child.stdout + child.stderr).not.toContain(token);
    const home = cloudWatchAt(moto.endpoint, HOME_REGION);
    expect(await listMetrics(home, 'McpCanary')).toHaveLength(3); // two targets and the probe region's RunDuration
    expect(await readRuns(home, 'McpCanary', 'rates-prod')).toMatchObject({ runs: 1, worst: 0 });
    expect(await readRuns(home, 'McpCanary', 'rates-dead')).toMatchObject({ runs: 1, worst: 1 });

    const gzipBytes = gzipSync(await readFile(bundle.file)).length;
    console.log(
      `bundle: ${(bundle.bytes / 1024).toFixed(0)} KiB (${(gzipBytes / 1024).toFixed(0)} KiB gzipped); ` +
        `cold import ${result.importMs.toFixed(0)} ms, ${result.sinceProcessStartMs.toFixed(0)} ms from process start (${NODE.includes('24') ? 'Node 24' : process.version})`,
    );
    for (const r of runRecords) console.log(`run record: ${JSON.stringify(r)}`);
  });

  it('claims each scheduled run in the ledger from the bundle: the same event twice, in two processes, publishes once', async () => {
    // Prepare: the ledger table the stack creates, in moto's DynamoDB
    await new DynamoDBClient({ region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials }).send(
      new CreateTableCommand({
        TableName: 'McpCanary-run-ledger',
        KeySchema: [{ AttributeName: LEDGER_KEY_ATTRIBUTE, KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: LEDGER_KEY_ATTRIBUTE, AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const scheduledTime = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 120_000).toISOString();
    const env = {
      BUNDLE_URL: pathToFileURL(bundle.file).href,
      EVENT: JSON.stringify({ targets: [{ name: 'rates-ledger', url: await deadUrl() }], scheduledTime, periodSeconds: 60 }),
      MCP_CANARY_HOME_REGION: HOME_REGION,
      MCP_CANARY_RUN_LEDGER: 'McpCanary-run-ledger',
      AWS_REGION: PROBE_REGION,
      AWS_LAMBDA_FUNCTION_NAME: 'McpCanary-run-1m',
      AWS_ENDPOINT_URL: moto.endpoint,
      AWS_ACCESS_KEY_ID: motoCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: motoCredentials.secretAccessKey,
    };
    // Act
    const first = await runChild(env);
    const second = await runChild(env);
    // Assess
    const summaryOf = (c: Finished) =>
      (
        JSON.parse(
          c.stdout
            .split('\n')
            .find((l) => l.startsWith('RESULT '))!
            .slice(7),
        ) as { summary: RunSummary }
      ).summary;
    for (const c of [first, second]) {
      expect(c.stderr).not.toMatch(/Dynamic require|ERR_|TypeError|ReferenceError|registerLambdaContext/);
      expect(c.code).toBe(0);
    }
    expect(summaryOf(first)).toEqual({
      verdicts: [{ target: 'rates-ledger', outcome: 'failed', failure: 'unreachable' }],
      published: true,
    });
    expect(summaryOf(second)).toEqual({ verdicts: [], published: false, skipped: { duplicate: ['rates-ledger'] } });
    expect(await readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), 'McpCanary', 'rates-ledger')).toMatchObject({ runs: 1, worst: 1 });
  });
});
