/**
 * `mcp-canary report` on a gateway: each backend is reported as a target of its own (its own `Verdict`
 * metric, `Target=<gateway>/<backend>`), by the gateway's rule, so on-call reads which backend was down.
 *
 * The world, against moto_server: real scheduled runs of a loopback aggregating gateway (test/helpers/gateway.ts)
 * in front of two real SDK backends, one region, for 12 minutes (minute m = B + m). The `docs` backend's tool
 * answers isError for m3–m7; the gateway and `github` answer throughout. By hand (1 region, quorum 1, N 3):
 * docs is down m3→m8, and nothing else is.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../../../functions/cli/main.ts';
import type { Report } from '../../../../functions/cli/report/report.ts';
import { startMcpServer, type RunningServer } from '../../../../functions/demo/servers.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import { startGateway } from '../../../helpers/gateway.ts';
import { startAlarmHistoryReplay, type Replay } from '../../../helpers/history/alarm-history-replay.ts';
import { startMoto, type Moto } from '../../../helpers/moto.ts';
import { HOME_REGION, motoRunDeps, NAMESPACE } from '../../../helpers/run/fixtures.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);
const MIN = 60_000;
const B = Math.floor(Date.now() / MIN) * MIN - 30 * MIN;
const iso = (m: number) => new Date(B + m * MIN).toISOString();
const docsDown = (m: number) => m >= 3 && m <= 7;

let moto: Moto;
let replay: Replay;
const running: RunningServer[] = [];
let dir: string;
let file: string;
const saved = { ...process.env };

beforeAll(async () => {
  moto = await startMoto();
  let minute = 0;
  const backends = await Promise.all(
    ['github', 'docs'].map((name) =>
      startMcpServer({
        era: 'modern',
        name,
        tools: [
          {
            name: 'get_status',
            annotations: { readOnlyHint: true },
            handler: () =>
              name === 'docs' && docsDown(minute)
                ? { content: [{ type: 'text', text: 'index unavailable' }], isError: true }
                : { content: [{ type: 'text', text: `${name} ok` }] },
          },
        ],
      }),
    ),
  );
  const gateway = await startGateway([
    { name: 'github', url: backends[0]!.url },
    { name: 'docs', url: backends[1]!.url },
  ]);
  running.push(...backends, gateway);
  const backendsConfig = ['github', 'docs'].map((name) => ({ name, tool: { name: 'get_status', expectText: `${name} ok` } }));
  for (minute = 0; minute < 12; minute++)
    await run(
      {
        targets: [{ name: 'gw', url: gateway.url, timeoutMs: 2_000, backends: backendsConfig }],
        scheduledTime: iso(minute),
        periodSeconds: 60,
      },
      motoRunDeps(moto.endpoint, [], { probeRegion: HOME_REGION }),
    );
  replay = await startAlarmHistoryReplay(moto.endpoint, []);
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-report-gw-'));
  file = join(dir, 'fleet.json');
  writeFileSync(
    file,
    JSON.stringify({
      homeRegion: HOME_REGION,
      probeRegions: [HOME_REGION],
      namespace: NAMESPACE,
      targets: [{ name: 'gw', url: 'https://gateway.internal.example.com/mcp', backends: backendsConfig }],
    }),
  );
}, 120_000);
afterAll(async () => {
  process.env = { ...saved };
  await Promise.all([...running.map((s) => s.close().catch(() => {})), replay?.close()]);
  await moto?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function report(argv: string[]) {
  process.env = { ...saved, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_ENDPOINT_URL: replay.endpoint };
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['report', '--days', '1', '--config', file, ...argv], { stdout: (s) => out.push(s), stderr: (s) => err.push(s) });
  return { code, out: out.join(''), err: err.join('') };
}

const incidents = (r: Report) => Object.fromEntries(r.targets.map((t) => [t.target, t.incidents.map((i) => [i.start, i.end])]));

describe("report on a gateway's backends", () => {
  it('reports each backend by itself: the dead one down m3→m8, the gateway and the other backend never', async () => {
    const { code, out, err } = await report(['--json']);
    // No alarm was created here (moto's CloudFormation skips them): the report says so, and reports anyway.
    expect(err).toMatch(/^mcp-canary: warning: no alarm of fleet/);
    expect(code).toBe(0);
    const r = JSON.parse(out) as Report;
    expect(incidents(r)).toEqual({ gw: [], 'gw/github': [], 'gw/docs': [[iso(3), iso(8)]] });
    const github = r.targets.find((t) => t.target === 'gw/github')!;
    expect(github.availabilityPercent).toBe(100);
    expect(r.targets.find((t) => t.target === 'gw/docs')!.availabilityPercent).toBeLessThan(100);
  }, 60_000);

  it('--target <gateway> reports its backends with it; --target <gateway>/<backend> that one; an unknown one lists the names', async () => {
    const gw = await report(['--json', '--target', 'gw']);
    expect((JSON.parse(gw.out) as Report).targets.map((t) => t.target)).toEqual(['gw', 'gw/github', 'gw/docs']);
    const docs = await report(['--json', '--target', 'gw/docs']);
    expect((JSON.parse(docs.out) as Report).targets.map((t) => t.target)).toEqual(['gw/docs']);
    const unknown = await report(['--target', 'gw/search']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('--target gw/search is not in the config. Targets: gw, gw/github, gw/docs');
  }, 60_000);
});
