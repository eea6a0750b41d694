/**
 * `mcp-canary report` reads the fleet the config names: its alarms (`<name>/<target>/critical`) and its run log
 * (`/mcp-canary/<name>/run`). A fleet deployed as `AccFleet` is read as `AccFleet` from the config's `name`
 * (or `--fleet` when the config has none), and says where the name came from; a report pointed at a fleet
 * whose alarms or log do not exist says so, and never "not-paged" or "no class" for what it could not read.
 *
 * The world, against moto_server: real runs of `rates` from two probe regions for 16 minutes (minute m = B + m),
 * their log lines shipped to each region's `/mcp-canary/AccFleet/run`, the fleet's alarms created in moto, and
 * the page alarm's history replayed in front of it (moto keeps none). Computed by hand (2 regions, quorum 2, N 3):
 * - m3–m7 both regions fail: pages after m5 (the history has its ALARM at m6 + 6 s and OK at m8 + 6 s): m3→m8;
 * - m10–m13 both fail again: an incident m10→m14 whose page the history does not show: known not paged.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient, PutMetricAlarmCommand } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient, CreateLogGroupCommand, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../../../functions/cli/main.ts';
import type { Report } from '../../../../functions/cli/report/report.ts';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import { startAlarmHistoryReplay, type Replay } from '../../../helpers/history/alarm-history-replay.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { deadUrl, HOME_REGION, motoRunDeps, NAMESPACE } from '../../../helpers/run/fixtures.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);
const MIN = 60_000;
const REGIONS = ['us-east-1', 'eu-west-1'];
const FLEET = 'AccFleet';
const B = Math.floor(Date.now() / MIN) * MIN - 30 * MIN;
const iso = (m: number) => new Date(B + m * MIN).toISOString();
const failing = (m: number) => (m >= 3 && m <= 7) || (m >= 10 && m <= 13);

let moto: Moto;
let replay: Replay;
/**
 * The same world, behind a caller that may neither DescribeAlarms nor read eu-west-1's run log, with no alarm
 * history in the window (the alarms changed state before it): nothing shows whether the page alarm exists.
 */
let refusing: Replay;
let api: RatesApi;
let server: RunningServer;
let dir: string;
const saved = { ...process.env };

beforeAll(async () => {
  [moto, api] = await Promise.all([startMoto(), startRatesApi()]);
  server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
  const dead = await deadUrl();
  const logged = new Map<string, string[]>(REGIONS.map((r) => [r, []]));
  const tool = { name: 'get_rate', arguments: { pair: 'EURUSD' } };
  for (let m = 0; m < 16; m++)
    await Promise.all(
      REGIONS.map((region) =>
        run(
          {
            targets: [{ name: 'rates', url: failing(m) ? dead : server.url, tool, timeoutMs: 2_000 }],
            scheduledTime: iso(m),
            periodSeconds: 60,
          },
          motoRunDeps(moto.endpoint, logged.get(region)!, { probeRegion: region }),
        ),
      ),
    );
  // What Lambda does with the run function's stdout: each line an event in the region's run log group.
  for (const [region, lines] of logged) {
    const logs = new CloudWatchLogsClient({ region, endpoint: moto.endpoint, credentials: motoCredentials });
    const logGroupName = `/mcp-canary/${FLEET}/run`;
    await logs.send(new CreateLogGroupCommand({ logGroupName }));
    await logs.send(new CreateLogStreamCommand({ logGroupName, logStreamName: 's' }));
    const events = lines.map((message) => ({
      message,
      timestamp: Date.parse((JSON.parse(message) as { scheduledFor: string }).scheduledFor) + 5_000,
    }));
    await logs.send(
      new PutLogEventsCommand({ logGroupName, logStreamName: 's', logEvents: events.sort((a, b) => a.timestamp - b.timestamp) }),
    );
    logs.destroy();
  }
  // The fleet's alarms, as its stacks create them (moto's CloudFormation skips alarms, so they are put here).
  const cw = new CloudWatchClient({ region: HOME_REGION, endpoint: moto.endpoint, credentials: motoCredentials });
  for (const kind of ['critical', 'warning'])
    await cw.send(
      new PutMetricAlarmCommand({
        AlarmName: `${FLEET}/rates/${kind}`,
        Namespace: NAMESPACE,
        MetricName: 'Verdict',
        Dimensions: [{ Name: 'Target', Value: 'rates' }],
        Statistic: 'Sum',
        Period: 60,
        EvaluationPeriods: 3,
        Threshold: kind === 'critical' ? 2 : 0,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    );
  cw.destroy();
  const history = [
    { AlarmName: `${FLEET}/rates/critical`, at: B + 6 * MIN + 6_000, from: 'OK', to: 'ALARM' },
    { AlarmName: `${FLEET}/rates/critical`, at: B + 8 * MIN + 6_000, from: 'ALARM', to: 'OK' },
  ] as const;
  replay = await startAlarmHistoryReplay(moto.endpoint, history);
  refusing = await startAlarmHistoryReplay(
    moto.endpoint,
    [],
    [
      { action: 'DescribeAlarms', code: 'AccessDenied' },
      { action: 'FilterLogEvents', code: 'AccessDeniedException', regions: ['eu-west-1'] },
    ],
  );
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-report-fleet-'));
}, 120_000);
afterAll(async () => {
  process.env = { ...saved };
  await Promise.all([server?.close(), api?.close(), replay?.close(), refusing?.close()]);
  await moto?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function configFile(name: string | undefined): string {
  const file = join(dir, `fleet-${name ?? 'unnamed'}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      ...(name ? { name } : {}),
      homeRegion: HOME_REGION,
      probeRegions: REGIONS,
      namespace: NAMESPACE,
      targets: [{ name: 'rates', url: 'https://rates.internal.example.com/mcp' }],
    }),
  );
  return file;
}

async function report(argv: string[], through: Replay = replay) {
  process.env = { ...saved, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_ENDPOINT_URL: through.endpoint };
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['report', '--days', '1', ...argv], { stdout: (s) => out.push(s), stderr: (s) => err.push(s) });
  return { code, out: out.join(''), err: err.join('') };
}

describe('report reads the fleet the config names', () => {
  it("reads the config's fleet name: its alarms and its run log, and says where the name came from", async () => {
    // Act
    const { code, out, err } = await report(['--config', configFile(FLEET), '--json']);
    // Assess
    expect(err).toBe('');
    expect(code).toBe(0);
    const r = JSON.parse(out) as Report;
    expect(r).toMatchObject({ fleet: FLEET, fleetNameFrom: 'config', warnings: [] });
    const rates = r.targets[0]!;
    expect(rates.incidents.map((i) => [i.start, i.end, i.alarm, i.failureClass])).toEqual([
      [iso(3), iso(8), 'paged', 'unreachable'],
      [iso(10), iso(14), 'not-paged', 'unreachable'],
    ]);
    const text = await report(['--config', configFile(FLEET)]);
    expect(text.out).toMatch(/^mcp-canary report: fleet AccFleet \(the config's name\)/);
  }, 60_000);

  it('reads --fleet when the config has no name, and refuses a --fleet that contradicts the config', async () => {
    const named = await report(['--config', configFile(undefined), '--fleet', FLEET, '--json']);
    expect(named.code).toBe(0);
    expect(JSON.parse(named.out)).toMatchObject({ fleet: FLEET, fleetNameFrom: '--fleet' });
    const clash = await report(['--config', configFile(FLEET), '--fleet', 'Other']);
    expect(clash.code).toBe(2);
    expect(clash.err).toMatch(/--fleet Other, but the config's name is "AccFleet"/);
  }, 60_000);

  it('says the alarms and the run log it could not find, and never "not-paged" or "no class" for them', async () => {
    // Prepare: a config without a name reads the default fleet, McpCanary, which has no alarm and no log here.
    // Act
    const json = await report(['--config', configFile(undefined), '--json']);
    const text = await report(['--config', configFile(undefined)]);
    // Assess
    expect(json.code).toBe(0);
    const r = JSON.parse(json.out) as Report;
    expect(r).toMatchObject({ fleet: 'McpCanary', fleetNameFrom: 'default' });
    const incidents = r.targets[0]!.incidents;
    expect(incidents.map((i) => [i.alarm, i.failureClass])).toEqual([
      ['unknown', null],
      ['unknown', null],
    ]);
    expect(incidents[0]!.alarmNote).toBe('no alarm McpCanary/rates/critical in us-east-1');
    expect(incidents[0]!.failureClassNote).toBe('run log /mcp-canary/McpCanary/run not found in us-east-1, eu-west-1');
    expect(r.warnings.join('\n')).toMatch(/no alarm of fleet McpCanary found in us-east-1.*set `name` in the config or pass --fleet NAME/);
    expect(json.err).toMatch(/^mcp-canary: warning: no alarm of fleet McpCanary found/m);
    if (process.env.SHOW_REPORT) process.stderr.write(text.out);
    expect(text.out).not.toMatch(/not-paged|not paged/);
    expect(text.out).toMatch(/alarm unknown: no alarm McpCanary\/rates\/critical in us-east-1/);
    expect(text.out).toMatch(/^Warning: no alarm of fleet McpCanary found/m);
  }, 60_000);

  it("says what it was not allowed to read: the alarms, a region's run log; never not-paged for an alarm it could not see", async () => {
    // Act
    const { code, out, err } = await report(['--config', configFile(FLEET), '--json'], refusing);
    // Assess: an empty history and alarms it may not list: unknown, never not-paged; the class from the region it could read.
    expect(code).toBe(0);
    const r = JSON.parse(out) as Report;
    const why = 'could not list the alarms (AccessDenied): needs cloudwatch:DescribeAlarms';
    expect(r.targets[0]!.incidents.map((i) => [i.alarm, i.alarmNote, i.failureClass])).toEqual([
      ['unknown', why, 'unreachable'],
      ['unknown', why, 'unreachable'],
    ]);
    expect(r.warnings).toEqual([
      "could not list the fleet's alarms (AccessDenied): add cloudwatch:DescribeAlarms; an incident the alarm history does not show as paged reads unknown",
      'could not read run log /mcp-canary/AccFleet/run in eu-west-1 (AccessDeniedException): failure classes unknown there; the caller needs logs:FilterLogEvents',
    ]);
    expect(err.split('\n').filter(Boolean)).toHaveLength(2);
  }, 60_000);
});
