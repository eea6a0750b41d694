/**
 * The handler as Lambda loads it: environment and clients at module scope (so each test imports a
 * fresh copy), the SDK pointed at moto through AWS_ENDPOINT_URL, real MCP servers.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import { lambdaTimeoutSeconds } from '../../../../functions/base/config/schema/budget.ts';
import { DEFAULT_BUDGET_MS } from '../../../../functions/base/config/schema/target.ts';
import type { CanaryError } from '../../../../functions/base/common/errors.ts';
import { startMoto, type Moto } from '../../../helpers/moto.ts';
import { deadUrl, HOME_REGION, PROBE_REGION, rejectionOf } from '../../../helpers/run/fixtures.ts';
import { cloudWatchAt, readRuns } from '../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

/** Every suite here needs moto_server: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['moto_server']);

let moto: Moto;
let api: RatesApi;
let server: RunningServer;
const saved = { ...process.env };

beforeAll(async () => {
  [moto, api] = await Promise.all([startMoto(), startRatesApi()]);
  server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
});
afterAll(async () => {
  await Promise.all([server?.close(), api?.close()]);
  await moto?.stop();
});
afterEach(() => {
  process.env = { ...saved };
  vi.restoreAllMocks();
});

async function freshHandler(env: Record<string, string | undefined>) {
  const merged = { ...saved, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_ENDPOINT_URL: moto.endpoint, ...env };
  process.env = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined));
  vi.resetModules();
  return import('../../../../functions/lambdas/run/handler.ts');
}

/** Captures what the handler writes to stdout, one JSON object per line. */
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

describe('the scheduled handler', () => {
  it('reads a dead target back from moto as a failed run for that target and region, without throwing', async () => {
    // Prepare
    await moto.reset();
    const { handler } = await freshHandler({
      MCP_CANARY_HOME_REGION: HOME_REGION,
      AWS_REGION: PROBE_REGION,
      MCP_CANARY_NAMESPACE: undefined,
    });
    const lines = captureStdout();
    // Act
    const summary = await handler(
      {
        targets: [
          { name: 'rates-dead', url: await deadUrl() },
          { name: 'rates-prod', url: server.url },
        ],
      },
      { getRemainingTimeInMillis: () => 60_000 },
    );
    // Assess
    expect(summary).toEqual({
      verdicts: [
        { target: 'rates-dead', outcome: 'failed', failure: 'unreachable' },
        { target: 'rates-prod', outcome: 'healthy', failure: null },
      ],
      published: true,
    });
    const home = cloudWatchAt(moto.endpoint, HOME_REGION);
    expect(await readRuns(home, 'McpCanary', 'rates-dead')).toMatchObject({ runs: 1, worst: 1 });
    expect(await readRuns(home, 'McpCanary', 'rates-prod')).toMatchObject({ runs: 1, worst: 0 });
    expect(lines().map((l) => [l.message, l.target, l.probeRegion])).toEqual(
      expect.arrayContaining([
        ['mcp-canary run', 'rates-dead', PROBE_REGION],
        ['mcp-canary run', 'rates-prod', PROBE_REGION],
      ]),
    );
  });

  it('throws a config error naming the expected payload when the envelope carries no targets', async () => {
    // Prepare
    const { handler } = await freshHandler({ MCP_CANARY_HOME_REGION: HOME_REGION, AWS_REGION: PROBE_REGION });
    // Act
    const error = await rejectionOf<CanaryError>(handler({ target: { name: 'rates' } }));
    // Assess
    expect(error.code).toBe('CONFIG');
    expect(error.message).toMatch(/must be \{ "targets": \[ <target>, \.\.\. \] \} with at least one target, got an object with "target"/);
  });

  it('fails the cold start with the variable name when MCP_CANARY_HOME_REGION is missing', async () => {
    // Act + Assess
    await expect(freshHandler({ MCP_CANARY_HOME_REGION: undefined, AWS_REGION: PROBE_REGION })).rejects.toThrow(
      /Environment variable MCP_CANARY_HOME_REGION is required/,
    );
  });
});

describe('the run budget', () => {
  it('fits a run of default-budget targets, and the Lambda timeout it needs, inside a one-minute schedule', () => {
    // Act
    const timeoutS = lambdaTimeoutSeconds(DEFAULT_BUDGET_MS);
    // Assess
    expect(timeoutS * 1000).toBeGreaterThan(DEFAULT_BUDGET_MS);
    expect(timeoutS).toBeLessThan(60);
  });
});
