/**
 * A gateway's scheduled run over the real wire: a loopback aggregating gateway (test/helpers/gateway.ts)
 * in front of real SDK backends, moto_server for CloudWatch. Each backend's verdict is a run record and
 * a datapoint of its own (`Target=<gateway>/<backend>`), read back as its alarm reads it.
 */
import { afterEach, beforeAll, afterAll, beforeEach, expect, it } from 'vitest';
import { startMcpServer, type RunningServer } from '../../../../functions/demo/servers.ts';
import { verdictValue, type RunRecord } from '../../../../functions/base/common/run-record.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import { startMoto, type Moto } from '../../../helpers/moto.ts';
import { HOME_REGION, NAMESPACE, motoRunDeps } from '../../../helpers/run/fixtures.ts';
import { cloudWatchAt, readInconclusive, readRuns } from '../../../helpers/run/readback.ts';
import { startGateway } from '../../../helpers/gateway.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);
const INCONCLUSIVE = verdictValue({ outcome: 'inconclusive', warnings: [] });

let moto: Moto;
const running: RunningServer[] = [];
beforeAll(async () => {
  moto = await startMoto();
});
afterAll(async () => {
  await moto?.stop();
});
beforeEach(async () => {
  await moto.reset();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close().catch(() => {})));
});

async function gatewayOf(names: readonly string[]): Promise<{ gateway: RunningServer; backends: RunningServer[] }> {
  const backends = await Promise.all(
    names.map((name, i) =>
      startMcpServer({
        era: i % 2 ? 'legacy' : 'modern',
        name,
        tools: [
          { name: 'get_status', annotations: { readOnlyHint: true }, handler: () => ({ content: [{ type: 'text', text: `${name} ok` }] }) },
        ],
      }),
    ),
  );
  running.push(...backends);
  const gateway = await startGateway(names.map((name, i) => ({ name, url: backends[i]!.url })));
  running.push(gateway);
  return { gateway, backends };
}

const target = (url: string, names: readonly string[]) => ({
  name: 'gw',
  url,
  timeoutMs: 2_000,
  budgetMs: 20_000,
  backends: names.map((name) => ({ name, tool: { name: 'get_status', expectText: `${name} ok` } })),
});
const records = (lines: string[]) => lines.map((l) => JSON.parse(l) as RunRecord);

describe("a gateway's scheduled run", () => {
  it('publishes a datapoint and logs a run record per backend; a dead backend fails alone', async () => {
    const names = ['github', 'docs', 'tickets'];
    const { gateway, backends } = await gatewayOf(names);
    await backends[1]!.close();
    const lines: string[] = [];
    const summary = await run({ targets: [target(gateway.url, names)] }, motoRunDeps(moto.endpoint, lines));
    expect(summary).toEqual({
      verdicts: [
        { target: 'gw', outcome: 'healthy', failure: null },
        { target: 'gw/github', outcome: 'healthy', failure: null },
        { target: 'gw/docs', outcome: 'failed', failure: 'tool_error' },
        { target: 'gw/tickets', outcome: 'healthy', failure: null },
      ],
      published: true,
    });
    expect(records(lines).map((r) => [r.target, r.verdict.gateway ?? null])).toEqual([
      ['gw', null],
      ['gw/github', 'gw'],
      ['gw/docs', 'gw'],
      ['gw/tickets', 'gw'],
    ]);
    const home = cloudWatchAt(moto.endpoint, HOME_REGION);
    expect(await readRuns(home, NAMESPACE, 'gw')).toEqual({ runs: 1, worst: 0 });
    expect(await readRuns(home, NAMESPACE, 'gw/docs')).toEqual({ runs: 1, worst: 1 });
    expect(await readRuns(home, NAMESPACE, 'gw/github')).toEqual({ runs: 1, worst: 0 });
  });

  it('publishes one failure for a dead gateway, and each backend inconclusive, never 1', async () => {
    const names = ['github', 'docs'];
    const { gateway } = await gatewayOf(names);
    await gateway.close();
    const lines: string[] = [];
    const unjudgedBefore = await readInconclusive(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, '1m');
    const summary = await run({ targets: [target(gateway.url, names)] }, motoRunDeps(moto.endpoint, lines));
    expect(summary.verdicts).toEqual([
      { target: 'gw', outcome: 'failed', failure: 'unreachable' },
      { target: 'gw/github', outcome: 'inconclusive', failure: 'gateway_down' },
      { target: 'gw/docs', outcome: 'inconclusive', failure: 'gateway_down' },
    ]);
    const home = cloudWatchAt(moto.endpoint, HOME_REGION);
    expect(await readRuns(home, NAMESPACE, 'gw')).toEqual({ runs: 1, worst: 1 });
    expect(await readRuns(home, NAMESPACE, 'gw/github')).toEqual({ runs: 1, worst: INCONCLUSIVE });
    // The canary could judge: the owner's Inconclusive alarm hears nothing of a gateway that is down.
    expect(await readInconclusive(home, NAMESPACE, '1m')).toBe(unjudgedBefore);
  });

  it('names each backend not judged when the engine crashed on the gateway', async () => {
    const lines: string[] = [];
    const crash = async () => {
      throw new TypeError('boom');
    };
    const summary = await run(
      { targets: [target('http://127.0.0.1:9/mcp', ['github'])] },
      motoRunDeps(moto.endpoint, lines, { judge: crash }),
    );
    expect(summary.verdicts).toEqual([
      { target: 'gw', outcome: 'inconclusive', failure: null },
      { target: 'gw/github', outcome: 'inconclusive', failure: 'gateway_down' },
    ]);
    expect(records(lines)[1]!.verdict.detail).toContain('not judged: the gateway "gw" was not judged (inconclusive)');
  });
});
