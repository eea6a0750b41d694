/**
 * `mcp-canary report` at a window's edges, against moto_server holding the `Verdict` datapoints runs publish
 * (one region, one per minute) and a replay of the page alarm's history: an outage that paged before the
 * window and ends one minute into it (fewer than N failed runs left inside), and a target with no data at
 * all under a 99.99 objective. Computed by hand: the window is the day before END; `rates` failed from
 * 30 minutes before its start to 1 minute after (the page at the 3rd failure, 27 minutes before the start,
 * older than the alarm history the report reads; its OK one minute in), then healthy for 30 minutes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient, PutMetricDataCommand, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../../../functions/cli/main.ts';
import type { Report } from '../../../../functions/cli/report/report.ts';
import { startAlarmHistoryReplay, type Replay } from '../../../helpers/history/alarm-history-replay.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);
const MIN = 60_000;
const DAY = 86_400_000;
const NAMESPACE = 'McpCanaryEdges';
/** A fixed end (an hour ago, on the minute), so the window cannot move while the test runs. */
const END = Math.floor(Date.now() / MIN) * MIN - 60 * MIN;
const START = END - DAY;
const iso = (ms: number) => new Date(ms).toISOString();

let moto: Moto;
let replay: Replay;
let dir: string;
const saved = { ...process.env };

beforeAll(async () => {
  moto = await startMoto();
  const data: MetricDatum[] = [];
  for (let m = -30; m < 31; m++)
    data.push({
      MetricName: 'Verdict',
      Dimensions: [{ Name: 'Target', Value: 'rates' }],
      Timestamp: new Date(START + m * MIN),
      Value: m < 1 ? 1 : 0,
      StorageResolution: 60,
    });
  const writer = new CloudWatchClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: motoCredentials });
  await writer.send(new PutMetricDataCommand({ Namespace: NAMESPACE, MetricData: data }));
  writer.destroy();
  replay = await startAlarmHistoryReplay(moto.endpoint, [
    { AlarmName: 'McpCanary/rates/critical', at: START - 27 * MIN + 6_000, from: 'OK', to: 'ALARM' },
    { AlarmName: 'McpCanary/rates/critical', at: START + 1 * MIN + 6_000, from: 'ALARM', to: 'OK' },
  ]);
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-report-edges-'));
}, 60_000);
afterAll(async () => {
  process.env = { ...saved };
  await replay?.close();
  await moto?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('mcp-canary report at the window edges', () => {
  it('counts an outage open at the window start from its first minute, as paged, without a time to resolve', async () => {
    // Prepare
    const config = join(dir, 'fleet.json');
    writeFileSync(
      config,
      JSON.stringify({
        homeRegion: 'us-east-1',
        namespace: NAMESPACE,
        slo: { objective: 99.99 },
        targets: [
          { name: 'rates', url: 'https://rates.example.com/mcp' },
          { name: 'never-ran', url: 'https://never.example.com/mcp' },
        ],
      }),
    );
    process.env = { ...saved, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_ENDPOINT_URL: replay.endpoint };
    const out: string[] = [];
    const err: string[] = [];
    const html = join(dir, 'report.html');

    // Act
    const code = await main(['report', '--config', config, '--days', '1', '--end', iso(END), '--json', '--html', html], {
      stdout: (s) => out.push(s),
      stderr: (s) => err.push(s),
    });

    // Assess: no run log group exists here, and the report says so (stderr, beside the JSON) rather than "no class".
    expect(err.join('')).toBe(
      'mcp-canary: warning: run log /mcp-canary/McpCanary/run not found in us-east-1 (McpCanary is the default: the config has no name): failure classes unknown there; if the fleet was deployed under another name, set `name` in the config or pass --fleet NAME\n',
    );
    expect(code).toBe(0);
    const report = JSON.parse(out.join('')) as Report;
    expect(report.window).toMatchObject({ start: iso(START), end: iso(END), endsNow: false });
    const rates = report.targets.find((t) => t.target === 'rates')!;
    expect(rates.incidents).toEqual([
      {
        start: iso(START),
        startedBeforeWindow: true,
        end: iso(START + MIN),
        // As far as the report reads back (the alarm's N + 2 periods): it paged there at the latest.
        pagedAt: iso(START - 2 * MIN),
        durationSeconds: 60,
        countedSeconds: 60,
        maintenance: 'none',
        failureClass: null,
        failureClassNote: 'run log /mcp-canary/McpCanary/run not found in us-east-1',
        alarm: 'paged',
        alarmNote: null,
      },
    ]);
    expect(rates.seconds).toMatchObject({ down: 60, up: 30 * 60, judged: 31 * 60 });
    expect(rates.timeToResolve).toEqual({ incidents: 1, open: 0, meanSeconds: null, maxSeconds: null });
    // 99.99 % of 31 minutes is 0.186 s of budget: 60 s spent, no division by zero anywhere.
    expect(rates.slo!.errorBudget).toMatchObject({ allowedSeconds: 0, downSeconds: 60, leftSeconds: -60 });
    const never = report.targets.find((t) => t.target === 'never-ran')!;
    expect(never.availabilityPercent).toBeNull();
    expect(never.slo!.errorBudget).toMatchObject({ allowedSeconds: 0, leftPercent: null, burnRate: null });
    const page = readFileSync(html, 'utf8');
    for (const text of [out.join(''), page]) expect(text).not.toMatch(/NaN|Infinity|undefined/);
    expect(page).toContain(`already open at ${iso(START).slice(0, 10)} ${iso(START).slice(11, 16)} UTC`);
    // The text says the same, and where the window cut it.
    const lines: string[] = [];
    expect(
      await main(['report', '--config', config, '--days', '1', '--end', iso(END)], { stdout: (s) => lines.push(s), stderr: () => {} }),
    ).toBe(0);
    expect(lines.join('')).toMatch(
      /rates {2}already open at \S+ \S+ UTC → \S+ \S+ UTC {2}1m in the window {2}class unknown: run log \/mcp-canary\/McpCanary\/run not found in us-east-1; paged/,
    );
  }, 60_000);
});
