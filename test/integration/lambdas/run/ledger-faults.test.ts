/**
 * The run ledger's table misbehaving the ways DynamoDB can, through the handler as Lambda loads it:
 * moto_server behind a fault proxy for DynamoDB (AWS_ENDPOINT_URL_DYNAMODB), moto itself for CloudWatch.
 * A table that answers counts a run at most once; a table that does not fails open: the run is judged and
 * published, and the `ledger` own fault (an EMF line) tells the canary owner in the probe region.
 */
import { CreateTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import { LEDGER_KEY_ATTRIBUTE, LEDGER_TTL_ATTRIBUTE } from '../../../../functions/base/common/run-record.ts';
import { LEDGER_RECORD_SECONDS, ledgerKey } from '../../../../functions/lambdas/run/ledger.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { HOME_REGION, PROBE_REGION } from '../../../helpers/run/fixtures.ts';
import { startAwsFaultProxy, type AwsFaultProxy } from '../../../helpers/run/aws-fault-proxy.ts';
import { cloudWatchAt, readRuns } from '../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../helpers/tools.ts';
import { faultMetrics } from '../../../helpers/run/emf.ts';

/** Every suite here needs moto_server: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['moto_server']);
const TABLE = 'McpCanary-run-ledger';
let moto: Moto;
let api: RatesApi;
let server: RunningServer;
let proxy: AwsFaultProxy;
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
  proxy = await startAwsFaultProxy(moto.endpoint);
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
    expect(duplicate).toMatchObject({ verdicts: [], skipped: { duplicate: ['rates-prod'] } });
    expect(proxy.calls.filter((c) => c === 'PutItem')).toHaveLength(3);
    expect(await runs()).toMatchObject({ runs: 1 });
    expect(out.lines().filter((l) => l.message === 'mcp-canary run')).toHaveLength(1);
  });

  it("stops waiting for a claim that hangs at the ledger's 3 s cut, judges and publishes anyway, and writes nothing outside the JSON log", async () => {
    // Prepare: a table that accepts the connection and never answers
    const handler = await freshHandler();
    const out = capture();
    proxy.always('PutItem', 'hang');
    // Act
    const result = await handler(scheduled(9), context);
    // Assess
    expect(result).toEqual({
      verdicts: [{ target: 'rates-prod', outcome: 'healthy', failure: null }],
      published: true,
      faults: { ledger: 1 },
    });
    const fault = out.lines().find((l) => l.message === 'mcp-canary ledger fault');
    expect(String(fault?.detail)).toMatch(/the claim took longer than 3000 ms/);
    expect(faultMetrics(out.lines())).toEqual([{ fault: 'ledger', count: 1 }]);
    // The SDK warned on stderr about its requestTimeout, which only warns unless told to throw
    expect(out.stderr()).toBe('');
    expect(await runs()).toEqual({ runs: 1, worst: 0 });
  });

  it('still counts a run claimed by the first release (Powertools Idempotency) once: the key is unchanged', async () => {
    // Prepare: the first release's completed claim, as Powertools wrote it (key `mcp-canary-run#<md5 of the run>`, status, no token)
    const handler = await freshHandler();
    capture();
    await new DynamoDBClient({ region: PROBE_REGION, endpoint: moto.endpoint, credentials: motoCredentials }).send(
      new PutItemCommand({
        TableName: TABLE,
        Item: {
          [LEDGER_KEY_ATTRIBUTE]: {
            S:
              'mcp-canary-run#' +
              createHash('md5')
                .update(`{"period":"${at(5)}","target":"rates-prod"}`)
                .digest('base64'),
          },
          [LEDGER_TTL_ATTRIBUTE]: { N: String(Math.floor(Date.now() / 1000) + LEDGER_RECORD_SECONDS) },
          status: { S: 'COMPLETED' },
          data: { S: '{"done":true}' },
        },
      }),
    );
    // Act
    const result = await handler(scheduled(5), context);
    // Assess
    expect(ledgerKey({ period: at(5), target: 'rates-prod' })).toMatch(/^mcp-canary-run#/);
    expect(result).toEqual({ verdicts: [], published: false, skipped: { duplicate: ['rates-prod'] } });
  });

  it('retries a claim DynamoDB throttled once, then runs', async () => {
    const handler = await freshHandler();
    capture();
    proxy.plan('PutItem', ['throttle']);
    const result = await handler(scheduled(8), context);
    expect(result).toMatchObject({ verdicts: [{ target: 'rates-prod', outcome: 'healthy' }], published: true });
    expect(await runs()).toMatchObject({ runs: 1 });
  });

  for (const [fault, words] of [
    ['throttle', /ProvisionedThroughputExceededException/],
    ['server', /InternalServerError/],
    ['denied', /AccessDeniedException: .*explicit deny in a service control policy/],
  ] as const) {
    it(`fails open when every claim meets ${fault}: judges, publishes, names the DynamoDB error and counts a ledger fault`, async () => {
      // Prepare
      const handler = await freshHandler();
      const out = capture();
      proxy.always('PutItem', fault);
      // Act
      const result = await handler(scheduled(7), context);
      // Assess: the region still counts (a single-region fleet can still page), and the owner is told
      expect(result).toEqual({
        verdicts: [{ target: 'rates-prod', outcome: 'healthy', failure: null }],
        published: true,
        faults: { ledger: 1 },
      });
      expect(String(out.lines().find((l) => l.message === 'mcp-canary ledger fault')?.detail)).toMatch(words);
      expect(faultMetrics(out.lines())).toEqual([{ fault: 'ledger', count: 1 }]);
      expect(await runs()).toMatchObject({ runs: 1, worst: 0 });
    });
  }

  it('writes no fault metric when the ledger answers', async () => {
    const handler = await freshHandler();
    const out = capture();
    const result = await handler(scheduled(6), context);
    expect(result).toEqual({ verdicts: [{ target: 'rates-prod', outcome: 'healthy', failure: null }], published: true });
    expect(faultMetrics(out.lines())).toEqual([]);
  });
});
