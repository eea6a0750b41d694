/**
 * The run ledger's table misbehaving the ways DynamoDB can, through the handler as Lambda loads it:
 * moto_server behind a fault proxy for DynamoDB (AWS_ENDPOINT_URL_DYNAMODB), moto itself for CloudWatch.
 * Whatever the table does, a run counts at most once, and a run that did not happen says why.
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { LEDGER_KEY_ATTRIBUTE, LEDGER_TTL_ATTRIBUTE } from '../../../../functions/base/common/run-record.ts';
import { LEDGER_KEY_PREFIX, LEDGER_RECORD_SECONDS } from '../../../../functions/lambdas/run/ledger.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { HOME_REGION, PROBE_REGION } from '../../../helpers/run/fixtures.ts';
import { startLedgerFaultProxy, type LedgerFaultProxy } from '../../../helpers/run/ledger-fault-proxy.ts';
import { cloudWatchAt, readRuns } from '../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

/** Every suite here needs moto_server: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['moto_server']);
const TABLE = 'McpCanary-run-ledger';
let moto: Moto;
let api: RatesApi;
let server: RunningServer;
let proxy: LedgerFaultProxy;
const saved = { ...process.env };

beforeAll(async () => {
  [moto, api] = await Promise.all([startMoto(), startRatesApi()]);
  server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
});
afterAll(async () => {
  await Promise.all([server?.close(), api?.close()]);
  await moto?.stop();
});
beforeEach(async () => {
  await moto.reset();
  proxy = await startLedgerFaultProxy(moto.endpoint);
  await new DynamoDBClient({ region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials }).send(
    new CreateTableCommand({
      TableName: TABLE,
      KeySchema: [{ AttributeName: LEDGER_KEY_ATTRIBUTE, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: LEDGER_KEY_ATTRIBUTE, AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
});
afterEach(async () => {
  process.env = { ...saved };
  vi.restoreAllMocks();
  await proxy.close();
});

async function freshHandler() {
  process.env = {
    ...saved,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_ENDPOINT_URL: moto.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint,
    AWS_REGION: PROBE_REGION,
    AWS_LAMBDA_FUNCTION_NAME: 'McpCanary-run-1m',
    MCP_CANARY_HOME_REGION: HOME_REGION,
    MCP_CANARY_RUN_LEDGER: TABLE,
  };
  vi.resetModules();
  return (await import('../../../../functions/lambdas/run/handler.ts')).handler;
}

/** Keeps the handler's output off the test's, and returns its JSON log lines and whatever reached stderr. */
function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => (out.push(String(c)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => (err.push(String(c)), true));
  vi.spyOn(console, 'warn').mockImplementation((...a: unknown[]) => void err.push(a.map(String).join(' ')));
  return {
    lines: () =>
      out
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    stderr: () => err.join(''),
  };
}

const context = { getRemainingTimeInMillis: () => 60_000 };
const BASE = Math.floor(Date.now() / 60_000) * 60_000;
const at = (minutesAgo: number) => new Date(BASE - minutesAgo * 60_000).toISOString();
const scheduled = (minutesAgo: number) => ({
  targets: [{ name: 'rates-prod', url: server.url }],
  scheduledTime: at(minutesAgo),
  periodSeconds: 60,
});
const runs = () => readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), 'McpCanary', 'rates-prod');

describe('the run ledger when DynamoDB misbehaves', () => {
  it('judges and counts the run once when its claim was stored but the answer was lost, and the SDK retried it', async () => {
    // Prepare: the claim reaches the table, the connection is cut before the answer (a reset, or a timeout)
    const handler = await freshHandler();
    const out = capture();
    proxy.plan('PutItem', ['land-then-drop']);
    // Act
    const first = await handler(scheduled(10), context);
    const duplicate = await handler(scheduled(10), context);
    // Assess: the retry found its own claim, not another delivery's: it ran, and the real duplicate did not
    expect(first).toEqual({ verdicts: [{ target: 'rates-prod', outcome: 'healthy', failure: null }], published: true });
    expect(duplicate).toMatchObject({ verdicts: [], skipped: { 'duplicate-running': ['rates-prod'] } });
    expect(proxy.calls.filter((c) => c === 'PutItem')).toHaveLength(3);
    expect(await runs()).toMatchObject({ runs: 1 });
    expect(out.lines().filter((l) => l.message === 'mcp-canary run')).toHaveLength(1);
  });

  it("gives up on a claim that hangs at the ledger's 3 s cut, says why it did not run, and writes nothing outside the JSON log", async () => {
    // Prepare: a table that accepts the connection and never answers
    const handler = await freshHandler();
    const out = capture();
    proxy.always('PutItem', 'hang');
    // Act
    const result = await handler(scheduled(9), context);
    // Assess
    expect(result).toEqual({ verdicts: [], published: false, skipped: { unclaimed: ['rates-prod'] } });
    const skipped = out.lines().find((l) => l.message === 'mcp-canary run skipped');
    expect(String(skipped?.detail)).toMatch(/the claim took longer than 3000 ms/);
    // The SDK warned on stderr about its requestTimeout, which only warns unless told to throw
    expect(out.stderr()).toBe('');
    expect(await runs()).toEqual({ runs: 0, worst: undefined });
  });

  it('still counts a run claimed by the release before claim tokens once: the key is unchanged', async () => {
    // Prepare: the previous release's claim, written as it wrote it (no token, same key prefix and hash input)
    const handler = await freshHandler();
    capture();
    const table = new DynamoDBPersistenceLayer({
      tableName: TABLE,
      awsSdkV3Client: new DynamoDBClient({ region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials }),
      keyAttr: LEDGER_KEY_ATTRIBUTE,
      expiryAttr: LEDGER_TTL_ATTRIBUTE,
    });
    const before = makeIdempotent(async (_run: { period: string; target: string }) => ({ done: true }), {
      persistenceStore: table,
      config: new IdempotencyConfig({ expiresAfterSeconds: LEDGER_RECORD_SECONDS }),
      keyPrefix: LEDGER_KEY_PREFIX,
    });
    await before({ period: at(5), target: 'rates-prod' });
    // Act
    const result = await handler(scheduled(5), context);
    // Assess
    expect(result).toEqual({ verdicts: [], published: false, skipped: { 'duplicate-done': ['rates-prod'] } });
  });

  it('retries a claim DynamoDB throttled once, then runs', async () => {
    const handler = await freshHandler();
    capture();
    proxy.plan('PutItem', ['throttle']);
    const result = await handler(scheduled(8), context);
    expect(result).toMatchObject({ verdicts: [{ target: 'rates-prod', outcome: 'healthy' }], published: true });
    expect(await runs()).toMatchObject({ runs: 1 });
  });

  it('does not run, names the throttling, and leaves the period to a later delivery when every claim is throttled', async () => {
    // Prepare
    const handler = await freshHandler();
    const out = capture();
    proxy.always('PutItem', 'throttle');
    // Act
    const throttled = await handler(scheduled(7), context);
    proxy.always('PutItem', 'pass');
    const redelivered = await handler(scheduled(7), context);
    // Assess: nothing was claimed, so the next delivery of the same run may judge it, once
    expect(throttled).toEqual({ verdicts: [], published: false, skipped: { unclaimed: ['rates-prod'] } });
    expect(String(out.lines().find((l) => l.message === 'mcp-canary run skipped')?.detail)).toMatch(
      /ProvisionedThroughputExceededException/,
    );
    expect(redelivered).toMatchObject({ verdicts: [{ target: 'rates-prod' }], published: true });
    expect(await runs()).toMatchObject({ runs: 1 });
  });

  it('counts the run once when its completion cannot be recorded: the claim still holds against a duplicate', async () => {
    const handler = await freshHandler();
    capture();
    proxy.always('UpdateItem', 'throttle');
    const first = await handler(scheduled(6), context);
    const duplicate = await handler(scheduled(6), context);
    expect(first).toMatchObject({ verdicts: [{ target: 'rates-prod', outcome: 'healthy' }], published: true });
    expect(duplicate).toMatchObject({ verdicts: [], skipped: { 'duplicate-running': ['rates-prod'] } });
    expect(await runs()).toMatchObject({ runs: 1 });
  });
});
