/**
 * The same scheduled event delivered twice, through the handler as Lambda loads it, against moto_server
 * (DynamoDB for the ledger, CloudWatch for the metrics): AWS documents at-least-once delivery for
 * Scheduler and for Lambda's asynchronous queue, and a second delivery that published again would count
 * its region twice in the period. Read back the way an alarm reads: SampleCount of the target's Verdict.
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import { LEDGER_KEY_ATTRIBUTE } from '../../../../functions/base/common/run-record.ts';
import { dynamoRunLedger } from '../../../../functions/lambdas/run/ledger.ts';
import { planFleet, SCHEDULED_TIME_PLACEHOLDER } from '../../../../infra/plan/plan.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { HOME_REGION, motoRunDeps, PROBE_REGION, startHangingServer } from '../../../helpers/run/fixtures.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import { startAwsFaultProxy, type AwsFaultProxy } from '../../../helpers/run/aws-fault-proxy.ts';
import { cloudWatchAt, readRuns } from '../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

/** Every suite here needs moto_server: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['moto_server']);

const TABLE = 'McpCanary-run-ledger';
const NAMESPACE = 'McpCanary';
let moto: Moto;
let api: RatesApi;
let server: RunningServer;
let hanging: { url: string; close(): Promise<void> };
/**
 * moto's DynamoDB with its writes to one item made atomic, as DynamoDB's are (aws-fault-proxy.ts; no
 * faults planned): two deliveries at once otherwise both won the claim about once in four runs here.
 */
let dynamoEndpoint: AwsFaultProxy;
const saved = { ...process.env };

beforeAll(async () => {
  [moto, api, hanging] = await Promise.all([startMoto(), startRatesApi(), startHangingServer()]);
  server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
  dynamoEndpoint = await startAwsFaultProxy(moto.endpoint);
});
afterAll(async () => {
  await Promise.all([server?.close(), api?.close(), hanging?.close(), dynamoEndpoint?.close()]);
  await moto?.stop();
});
beforeEach(async () => {
  await moto.reset();
  await dynamo().send(
    new CreateTableCommand({
      TableName: TABLE,
      KeySchema: [{ AttributeName: LEDGER_KEY_ATTRIBUTE, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: LEDGER_KEY_ATTRIBUTE, AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
});
afterEach(() => {
  process.env = { ...saved };
  vi.restoreAllMocks();
});

function dynamo(): DynamoDBClient {
  return new DynamoDBClient({ region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials });
}

/** `dynamo`: where DynamoDB calls go (moto itself, or through the proxy that makes its item writes atomic). */
async function freshHandler(table: string | null = TABLE, dynamo = moto.endpoint) {
  const env = {
    ...saved,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_ENDPOINT_URL: moto.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo,
    AWS_REGION: PROBE_REGION,
    AWS_LAMBDA_FUNCTION_NAME: 'McpCanary-run-1m',
    MCP_CANARY_HOME_REGION: HOME_REGION,
    MCP_CANARY_RUN_LEDGER: table ?? undefined,
  };
  process.env = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;
  vi.resetModules();
  return (await import('../../../../functions/lambdas/run/handler.ts')).handler;
}

/** Keeps the handler's log lines off the test output, and returns them. */
function captureStdout(): () => Array<Record<string, unknown>> {
  const chunks: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  return () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const context = { getRemainingTimeInMillis: () => 60_000 };
/** A scheduled time `minutesAgo` before this minute: readRuns looks at the last quarter hour. */
const BASE = Math.floor(Date.now() / 60_000) * 60_000;
const at = (minutesAgo: number) => new Date(BASE - minutesAgo * 60_000).toISOString();
const scheduled = (minutesAgo: number, targets: unknown[]) => ({ targets, scheduledTime: at(minutesAgo), periodSeconds: 60 });
const runsOf = (target: string) => readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, target);

describe('a scheduled event delivered twice', () => {
  it('publishes once when the second delivery comes after the first has finished', async () => {
    // Prepare
    const handler = await freshHandler();
    const lines = captureStdout();
    const event = scheduled(10, [{ name: 'rates-prod', url: server.url }]);
    // Act
    const first = await handler(event, context);
    const second = await handler(event, context);
    // Assess
    expect(first).toEqual({ verdicts: [{ target: 'rates-prod', outcome: 'healthy', failure: null }], published: true });
    expect(second).toEqual({ verdicts: [], published: false, skipped: { duplicate: ['rates-prod'] } });
    expect(await runsOf('rates-prod')).toMatchObject({ runs: 1 });
    expect(lines().filter((l) => l.message === 'mcp-canary run')).toHaveLength(1);
    expect(lines().find((l) => l.message === 'mcp-canary run skipped')).toMatchObject({
      reason: 'duplicate',
      scheduledFor: at(10),
      targets: ['rates-prod'],
    });
  });

  it('publishes each target once, and neither delivery fails, when the second arrives while the first is still judging', async () => {
    // Prepare: a target that holds the first run open for its whole (short) budget
    const handler = await freshHandler(TABLE, dynamoEndpoint.endpoint);
    captureStdout();
    const event = scheduled(9, [
      { name: 'rates-hanging', url: hanging.url, timeoutMs: 1_000, budgetMs: 1_500 },
      { name: 'rates-prod', url: server.url },
    ]);
    // Act
    const results = await Promise.all([handler(event, context), handler(event, context)]);
    // Assess
    // Assess: each target judged by one of them (the claim is per target), the other skips it
    const judged = results.flatMap((r) => r.verdicts.map((v) => `${v.target} ${v.outcome}`)).sort();
    expect(judged).toEqual(['rates-hanging failed', 'rates-prod healthy']);
    const skipped = results.flatMap((r) => Object.entries(r.skipped ?? {}).flatMap(([reason, ts]) => ts.map((t) => `${t} ${reason}`)));
    expect(skipped.sort()).toEqual(['rates-hanging duplicate', 'rates-prod duplicate']);

    expect(await runsOf('rates-hanging')).toMatchObject({ runs: 1, worst: 1 });
    expect(await runsOf('rates-prod')).toMatchObject({ runs: 1, worst: 0 });
  });

  it('counts every period once: the next minute of the same schedule runs again', async () => {
    const handler = await freshHandler();
    captureStdout();
    const targets = [{ name: 'rates-prod', url: server.url }];
    await handler(scheduled(8, targets), context);
    await handler(scheduled(8, targets), context);
    await handler(scheduled(7, targets), context);
    expect(await runsOf('rates-prod')).toMatchObject({ runs: 2 });
  });

  it('never runs a period whose first delivery claimed it and died, even after that delivery would have timed out', async () => {
    // Prepare: a delivery that claimed the period and never finished (a crash after some datapoints went out)
    const handler = await freshHandler();
    captureStdout();
    const event = scheduled(6, [{ name: 'rates-prod', url: server.url }]);
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'McpCanary-run-1m';
    const crashed = dynamoRunLedger({ tableName: TABLE, client: dynamo() });
    let claimedByCrashedRun = false;
    void crashed.once({ period: at(6), target: 'rates-prod' }, () => {
      claimedByCrashedRun = true;
      return new Promise<never>(() => undefined);
    });
    await vi.waitFor(() => expect(claimedByCrashedRun).toBe(true));
    // Act
    const duplicate = await handler(event, context);
    // Assess
    expect(duplicate).toEqual({ verdicts: [], published: false, skipped: { duplicate: ['rates-prod'] } });
    expect(await runsOf('rates-prod')).toEqual({ runs: 0, worst: undefined });
  });

  it('judges and publishes anyway, and counts a ledger fault, when no claim can be written (the ledger table is missing)', async () => {
    const handler = await freshHandler('McpCanary-no-such-table');
    const lines = captureStdout();
    const result = await handler(scheduled(5, [{ name: 'rates-prod', url: server.url }]), context);
    expect(result).toEqual({
      verdicts: [{ target: 'rates-prod', outcome: 'healthy', failure: null }],
      published: true,
      faults: { ledger: 1 },
    });
    expect(String(lines().find((l) => l.message === 'mcp-canary ledger fault')!.detail)).toMatch(/ResourceNotFoundException/);
    expect(await runsOf('rates-prod')).toEqual({ runs: 1, worst: 0 });
  });

  it('without a ledger configured (the old deploy), counts the duplicate twice: what the ledger is for', async () => {
    const handler = await freshHandler(null);
    captureStdout();
    const event = scheduled(4, [{ name: 'rates-prod', url: server.url }]);
    await handler(event, context);
    await handler(event, context);
    expect(await runsOf('rates-prod')).toMatchObject({ runs: 2 });
  });

  it('counts each target once when a deploy re-packs the schedules and the old and the new ones both fire, each delivered twice', async () => {
    // Prepare: 30 targets pack into schedules of 25 + 5 in name order; a target inserted first shifts every
    // schedule's set (CloudFormation replaces the schedules stack by stack, so both sets fire for a while).
    // 62 deliveries claim at once, each in a container of its own (its own DynamoDB client, as Lambda runs
    // them: one client shared by 62 runs would queue past its 50 sockets and its 500 ms connection timeout),
    // through the proxy that makes moto's item writes atomic, as DynamoDB's are.
    const out: string[] = [];
    const deliver = (event: unknown) =>
      run(
        event,
        motoRunDeps(moto.endpoint, out, {
          namespace: NAMESPACE,
          faults: () => undefined,
          ledger: dynamoRunLedger({
            tableName: TABLE,
            // 122 claims through one loaded process and moto take longer than a container's 25 take on
            // DynamoDB: the 3 s cut (its own test is in ledger-faults.test.ts) would fail them open here.
            claimTimeoutMs: 30_000,
            client: new DynamoDBClient({
              region: PROBE_REGION,
              endpoint: dynamoEndpoint.endpoint,
              credentials: motoCredentials,
              maxAttempts: 2,
              requestHandler: { connectionTimeout: 500 },
            }),
          }),
        }),
      );
    const lines = () => out.map((l) => JSON.parse(l) as Record<string, unknown>);
    const names = Array.from({ length: 30 }, (_, i) => `rates-${String(i).padStart(2, '0')}`);
    const fleet = (ns: readonly string[]) => ({
      homeRegion: HOME_REGION,
      probeRegions: [PROBE_REGION],
      targets: ns.map((name) => ({ name, url: server.url })),
    });
    const inputsOf = (ns: readonly string[]) => planFleet(fleet(ns)).regions[0]!.rates[0]!.schedules;
    const before = inputsOf(names);
    const after = inputsOf(['rates-0-inserted', ...names]);
    expect(before.map((s) => s.targets.length)).toEqual([25, 5]);
    expect(after[0]!.targets.slice(0, 2)).toEqual(['rates-0-inserted', 'rates-00']);
    expect(after[1]!.targets[0]).toBe('rates-24'); // moved from the first schedule to the second
    const deliveries = [...before, ...after].map((s) => JSON.parse(s.input.replace(SCHEDULED_TIME_PLACEHOLDER, at(3))) as unknown);
    // Act: every payload of both deploys, each delivered twice, all at once
    const results = await Promise.all([...deliveries, ...deliveries].map((event) => deliver(event)));
    // Assess: each target judged by exactly one delivery, and counted once in its period
    const judged = results.flatMap((r) => r.verdicts.map((v) => v.target)).sort();
    expect(judged).toEqual(['rates-0-inserted', ...names].sort());
    const counts = await Promise.all(judged.map(async (t) => [t, (await runsOf(t)).runs] as const));
    expect(counts.filter(([, runs]) => runs !== 1)).toEqual([]);
    expect(lines().filter((l) => l.message === 'mcp-canary run')).toHaveLength(31);
    expect(
      lines()
        .filter((l) => l.message === 'mcp-canary run skipped')
        .flatMap((l) => l.targets as string[]),
    ).toHaveLength(2 * 30 + 2 * 31 - 31);
  });
});
