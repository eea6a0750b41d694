/**
 * One scheduled run over the real wire: real MCP servers of both eras, moto_server for CloudWatch and
 * Secrets Manager. Metrics are read back from the home region the way an alarm reads them.
 */
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { verdictValue, type RunRecord } from '../../../../functions/base/common/run-record.ts';
import { REDACTED } from '../../../../functions/base/common/redact.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import type { Verdict } from '../../../../functions/base/common/verdict.ts';
import { startMoto, type Moto } from '../../../helpers/moto.ts';
import {
  HOME_REGION,
  NAMESPACE,
  PROBE_REGION,
  deadUrl,
  motoRunDeps,
  motoSecretClients,
  startHangingServer,
} from '../../../helpers/run/fixtures.ts';
import { cloudWatchAt, listMetrics, readInconclusive, readRuns } from '../../../helpers/run/readback.ts';

/** What a run that could not judge writes to its target's Verdict: its own place, never the page value 1. */
const INCONCLUSIVE = verdictValue({ outcome: 'inconclusive', warnings: [] });
import { describeNeeding } from '../../../helpers/tools.ts';

/** Every suite here needs moto_server: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['moto_server']);

let moto: Moto;
let api: RatesApi;
let modern: RunningServer;
let legacy: RunningServer;

beforeAll(async () => {
  [moto, api] = await Promise.all([startMoto(), startRatesApi()]);
  [modern, legacy] = await Promise.all([
    startMcpServer({ era: 'modern', tools: [rateTool(api)] }),
    startMcpServer({ era: 'legacy', name: 'rates-legacy', version: '0.9.1', tools: [rateTool(api)] }),
  ]);
});
afterAll(async () => {
  await Promise.all([modern?.close(), legacy?.close(), api?.close()]);
  await moto?.stop();
});
beforeEach(async () => {
  await moto.reset();
});

const rateCheck = { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } };
const records = (lines: string[]) => lines.map((l) => JSON.parse(l) as RunRecord & { message: string });

describe('a healthy target', () => {
  it('publishes one Verdict of 0 under Target alone, in the home region only, and logs its latency', async () => {
    // Prepare
    const lines: string[] = [];
    // Act
    const summary = await run({ targets: [{ name: 'rates-modern', url: modern.url, tool: rateCheck }] }, motoRunDeps(moto.endpoint, lines));
    // Assess
    expect(summary).toEqual({ verdicts: [{ target: 'rates-modern', outcome: 'healthy', failure: null }], published: true });
    const [record] = records(lines);
    const home = cloudWatchAt(moto.endpoint, HOME_REGION);
    expect(await readRuns(home, NAMESPACE, 'rates-modern')).toEqual({ runs: 1, worst: 0 });
    // One metric per target, and one per probe region for the dashboard's latency (no alarm reads it).
    expect(await listMetrics(home, NAMESPACE)).toEqual([`RunDuration ProbeRegion=${PROBE_REGION}`, 'Verdict Target=rates-modern']);
    expect(record!.verdict.durationMs).toBeGreaterThan(0);
    expect(record!.scheduledFor).toBe(new Date(Math.floor(Date.parse(record!.startedAt) / 60_000) * 60_000).toISOString());
    expect(await listMetrics(cloudWatchAt(moto.endpoint, PROBE_REGION), NAMESPACE)).toEqual([]);
  });

  it('logs one JSON run record with the verdict, probe region, era and server', async () => {
    // Prepare
    const lines: string[] = [];
    const before = Date.now();
    // Act
    await run({ targets: [{ name: 'rates-legacy', url: legacy.url, tool: rateCheck }] }, motoRunDeps(moto.endpoint, lines));
    // Assess
    expect(lines).toHaveLength(1);
    const [record] = records(lines);
    expect(record).toMatchObject({
      message: 'mcp-canary run',
      target: 'rates-legacy',
      probeRegion: PROBE_REGION,
      verdict: { target: 'rates-legacy', outcome: 'healthy', revision: '2025-11-25', server: { name: 'rates-legacy', version: '0.9.1' } },
    });
    expect(Date.parse(record!.startedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(record!.verdict.probes.map((p) => p.name)).toEqual(['initialize', 'tools/list', 'tools/call']);
  });
});

describe('a target that is down', () => {
  it('is published as a failed run (Verdict 1) for that target, and the run returns normally', async () => {
    // Prepare
    const lines: string[] = [];
    // Act
    const summary = await run({ targets: [{ name: 'rates-dead', url: await deadUrl() }] }, motoRunDeps(moto.endpoint, lines));
    // Assess
    expect(summary).toEqual({ verdicts: [{ target: 'rates-dead', outcome: 'failed', failure: 'unreachable' }], published: true });
    expect(await readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, 'rates-dead')).toMatchObject({ runs: 1, worst: 1 });
    expect(records(lines)[0]!.verdict.outcome).toBe('failed');
  });
});

describe('a group of targets', () => {
  it('judges them concurrently: an endpoint that never answers holds back neither the others nor their datapoints', async () => {
    // Prepare: note when each PutMetricData leaves, and for which targets
    const hanging = await startHangingServer();
    const lines: string[] = [];
    const cloudWatch = cloudWatchAt(moto.endpoint, HOME_REGION);
    const puts: Array<{ targets: string[]; loggedBefore: string[] }> = [];
    cloudWatch.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutMetricDataCommand') {
          const data = (args.input as { MetricData: Array<{ MetricName: string; Dimensions: Array<{ Value: string }> }> }).MetricData;
          puts.push({
            targets: data.filter((d) => d.MetricName === 'Verdict').map((d) => d.Dimensions[0]!.Value),
            loggedBefore: records(lines).map((r) => r.target),
          });
        }
        return next(args);
      },
      { step: 'initialize' },
    );
    try {
      // Act
      const summary = await run(
        {
          targets: [
            { name: 'rates-hanging', url: hanging.url, timeoutMs: 2_500, budgetMs: 3_000 },
            { name: 'rates-modern', url: modern.url, tool: rateCheck },
            { name: 'rates-legacy', url: legacy.url, tool: rateCheck },
          ],
        },
        motoRunDeps(moto.endpoint, lines, { cloudWatch, publish: { windowMs: 2_000 } }),
      );
      // Assess
      expect(summary.verdicts).toEqual([
        { target: 'rates-hanging', outcome: 'failed', failure: 'timeout' },
        { target: 'rates-modern', outcome: 'healthy', failure: null },
        { target: 'rates-legacy', outcome: 'healthy', failure: null },
      ]);
      // Each verdict is logged as soon as it is known: the healthy ones do not wait for the hanging one.
      expect(
        records(lines)
          .map((r) => r.target)
          .at(-1),
      ).toBe('rates-hanging');
      // The healthy ones' datapoints went out in a wave of their own, before the hanging one had a verdict.
      expect(puts.map((p) => p.targets.sort())).toEqual([['rates-legacy', 'rates-modern'], ['rates-hanging']]);
      expect(puts[0]!.loggedBefore).not.toContain('rates-hanging');
      const home = cloudWatchAt(moto.endpoint, HOME_REGION);
      expect(await listMetrics(home, NAMESPACE)).toHaveLength(4);
      for (const [target, value] of [
        ['rates-hanging', 1],
        ['rates-modern', 0],
        ['rates-legacy', 0],
      ] as const) {
        expect(await readRuns(home, NAMESPACE, target)).toMatchObject({ runs: 1, worst: value });
      }
    } finally {
      await hanging.close();
    }
  });

  it('abandons an engine that never returns at budgetMs plus grace, as a failed timeout, and keeps the others', async () => {
    // Prepare
    const lines: string[] = [];
    const stuckOrReal = (t: Parameters<typeof judge>[0]): Promise<Verdict> =>
      t.name === 'stuck' ? new Promise<Verdict>(() => {}) : judge(t);
    // Act
    const summary = await run(
      {
        targets: [
          { name: 'stuck', url: modern.url, budgetMs: 1_000, timeoutMs: 500 },
          { name: 'rates-modern', url: modern.url, tool: rateCheck },
        ],
      },
      motoRunDeps(moto.endpoint, lines, { judge: stuckOrReal }),
    );
    // Assess
    expect(summary.verdicts).toEqual([
      { target: 'stuck', outcome: 'failed', failure: 'timeout' },
      { target: 'rates-modern', outcome: 'healthy', failure: null },
    ]);
    expect(records(lines).find((r) => r.target === 'stuck')!.verdict.detail).toMatch(/budgetMs 1000 \+ 2000 ms grace/);
    expect(await readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, 'stuck')).toMatchObject({ runs: 1, worst: 1 });
  });

  it('makes an engine crash inconclusive for that target only', async () => {
    // Prepare
    const lines: string[] = [];
    const crashOrReal = async (t: Parameters<typeof judge>[0]): Promise<Verdict> => {
      if (t.name === 'crashy') throw new TypeError('cannot read properties of undefined');
      return judge(t);
    };
    // Act
    const summary = await run(
      {
        targets: [
          { name: 'crashy', url: modern.url },
          { name: 'rates-legacy', url: legacy.url, tool: rateCheck },
        ],
      },
      motoRunDeps(moto.endpoint, lines, { judge: crashOrReal }),
    );
    // Assess
    expect(summary.verdicts).toEqual([
      { target: 'crashy', outcome: 'inconclusive', failure: null },
      { target: 'rates-legacy', outcome: 'healthy', failure: null },
    ]);
    expect(records(lines).find((r) => r.target === 'crashy')!.verdict.detail).toMatch(/TypeError: cannot read properties.*canary bug/);
    expect(await readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, 'crashy')).toMatchObject({ runs: 1, worst: INCONCLUSIVE });
  });

  it('makes an invalid definition inconclusive, names the field, and still runs the valid ones', async () => {
    // Prepare
    const lines: string[] = [];
    // Act
    const summary = await run(
      {
        targets: [{ name: 'rates-typo', url: 'mcp.example.com' }, { url: modern.url }, { name: 'rates-modern', url: modern.url }],
      },
      motoRunDeps(moto.endpoint, lines),
    );
    // Assess
    expect(summary.verdicts).toEqual([
      { target: 'rates-typo', outcome: 'inconclusive', failure: null },
      { target: 'targets[1]', outcome: 'inconclusive', failure: null },
      { target: 'rates-modern', outcome: 'healthy', failure: null },
    ]);
    expect(records(lines).find((r) => r.target === 'rates-typo')!.verdict.detail).toMatch(/targets\[0\]\.url is not an http\(s\) URL/);
    expect(records(lines).find((r) => r.target === 'targets[1]')!.verdict.detail).toMatch(/targets\[1\]\.name is required/);
    // A nameless target is logged but not published: no alarm could watch a `targets[1]` metric.
    expect(await listMetrics(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE)).toEqual([
      'Inconclusive Rate=1m',
      `RunDuration ProbeRegion=${PROBE_REGION}`,
      'Verdict Target=rates-modern',
      'Verdict Target=rates-typo',
    ]);
  });
});

describe('credentials by reference', () => {
  it('reads the bearer token from Secrets Manager, sends it, and never lets it into a log line or the result', async () => {
    // Prepare
    const token = 'sm-token-7f3a9c1e5b';
    await motoSecretClients(moto.endpoint)
      .secretsManager(PROBE_REGION)
      .send(new CreateSecretCommand({ Name: 'rates/canary-token', SecretString: token }));
    const guarded = await startMcpServer({ era: 'modern', requireAuthorization: `Bearer ${token}`, tools: [rateTool(api)] });
    // An engine that leaks the header into its detail: the run's own redaction must still catch it.
    const leaky = async (t: Parameters<typeof judge>[0]): Promise<Verdict> => {
      const v = await judge(t);
      return { ...v, detail: `${v.detail} (sent ${t.headers.Authorization})` };
    };
    const lines: string[] = [];
    try {
      // Act
      const summary = await run(
        {
          targets: [
            {
              name: 'rates-guarded',
              url: guarded.url,
              tool: rateCheck,
              headerSecrets: { Authorization: { secretsManager: 'rates/canary-token', prefix: 'Bearer ' } },
            },
          ],
        },
        motoRunDeps(moto.endpoint, lines, { judge: leaky }),
      );
      // Assess
      expect(summary.verdicts).toEqual([{ target: 'rates-guarded', outcome: 'healthy', failure: null }]);
      expect(guarded.requests.every((r) => r.authorization === `Bearer ${token}`)).toBe(true);
      expect(lines.join('\n')).not.toContain(token);
      expect(records(lines)[0]!.verdict.detail).toContain(`(sent ${REDACTED})`);
      expect(JSON.stringify(summary)).not.toContain(token);
    } finally {
      await guarded.close();
    }
  });

  it("makes a missing secret inconclusive (the canary's fault), without calling the endpoint", async () => {
    // Prepare
    const lines: string[] = [];
    const before = modern.requests.length;
    const unjudgedBefore = await readInconclusive(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, '1m');
    // Act
    const summary = await run(
      {
        targets: [
          {
            name: 'rates-nosecret',
            url: modern.url,
            headerSecrets: { Authorization: { secretsManager: 'rates/missing', prefix: 'Bearer ' } },
          },
        ],
      },
      motoRunDeps(moto.endpoint, lines),
    );
    // Assess
    expect(summary.verdicts).toEqual([{ target: 'rates-nosecret', outcome: 'inconclusive', failure: null }]);
    expect(records(lines)[0]!.verdict.detail).toMatch(
      /headerSecrets\.Authorization: Secrets Manager secret "rates\/missing" in eu-west-1 cannot be read \(ResourceNotFoundException.*Create it in eu-west-1/,
    );
    expect(modern.requests.length).toBe(before);
    expect(await readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, 'rates-nosecret')).toMatchObject({
      runs: 1,
      worst: INCONCLUSIVE,
    });
    // The credential read that failed also reaches the canary owner's fleet-level metric (its alarm: inconclusive-1m).
    expect(await readInconclusive(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, '1m')).toBe(unjudgedBefore + 1);
  });
});

describe('the run budget', () => {
  it('calls a Lambda timeout shorter than budgetMs inconclusive and says which timeout to set', async () => {
    // Prepare
    const lines: string[] = [];
    const never = (): Promise<Verdict> => new Promise<Verdict>(() => {});
    // Act: 7 s left in the invocation, a 30 s target budget.
    const summary = await run(
      { targets: [{ name: 'rates-modern', url: modern.url }] },
      motoRunDeps(moto.endpoint, lines, { judge: never, remainingMs: 7_000 }),
    );
    // Assess
    expect(summary).toEqual({ verdicts: [{ target: 'rates-modern', outcome: 'inconclusive', failure: null }], published: true });
    expect(records(lines)[0]!.verdict.detail).toMatch(/Raise the Lambda timeout to at least 43 s/);
  });
});

describe('when the home region cannot be reached', () => {
  it('retries until the run deadline, logs the failure after the verdicts, and returns normally', async () => {
    // Prepare: CloudWatch on a port nobody listens on; backoff sleeps move a fake clock instead of waiting.
    const lines: string[] = [];
    let skewMs = 0;
    const sleeps: number[] = [];
    const faults: unknown[] = [];
    const deps = motoRunDeps(moto.endpoint, lines, {
      cloudWatch: cloudWatchAt(await deadUrl(), HOME_REGION),
      now: () => Date.now() + skewMs,
      publish: {
        sleep: async (ms) => {
          sleeps.push(ms);
          skewMs += ms;
        },
      },
      faults: (c) => void faults.push(c),
    });
    // Act
    const summary = await run({ targets: [{ name: 'rates-modern', url: modern.url }] }, deps);
    // Assess: the canary owner's publish fault, in the probe region (own-faults.ts)
    expect(summary).toEqual({
      verdicts: [{ target: 'rates-modern', outcome: 'healthy', failure: null }],
      published: false,
      faults: { publish: 1 },
    });
    expect(faults).toEqual([{ publish: 1 }]);
    const [runLine, failureLine] = lines.map(
      (l) => JSON.parse(l) as { message: string; attempts?: number; errors?: string[]; targets?: string[] },
    );
    expect(runLine!.message).toBe('mcp-canary run');
    expect(failureLine).toMatchObject({ message: 'mcp-canary publish failed', homeRegion: HOME_REGION, targets: ['rates-modern'] });
    expect(failureLine!.attempts).toBe(sleeps.length + 1);
    expect(sleeps.length).toBeGreaterThan(3);
    expect(failureLine!.errors![0]).toMatch(/ECONNREFUSED|connect/i);
  });
});
