/**
 * `mcp-canary report` end to end: the run handler, as Lambda loads it, judges real MCP endpoints from three
 * probe regions for 40 scheduled minutes and publishes to moto_server; alarm-history records are replayed
 * through a proxy in front of moto (moto keeps none); then the CLI reads it all back. The figures are
 * checked against the window computed by hand below (data, not the code's own arithmetic).
 *
 * The window (minute m = B + m, B an hour ago; 3 regions, quorum 2, N = 3, failureThreshold default):
 * - m5–m9: eu-west-1 and us-west-2 fail → pages after m7: an incident m5→m10, 5 min down.
 * - m14–m15: all three fail, 2 in a row → below N: no page, no ticket; up.
 * - m18–m22: ap-southeast-2 degraded → the ticket rule (N in a row): degraded m18→m23, 5 min.
 * - maintenance at(B+28) for 6 minutes; m29–m32 all fail inside it: an incident, shown, not counted.
 * - m36–m37: ap-southeast-2 silent; the other two healthy: still determined, up.
 * - `docs` healthy throughout.
 * Judged: 40 − 6 = 34 min; down 5; degraded 5; up 24; availability 29/34 = 85.294 %; SLO 99 → budget 20.4 s,
 * left 20.4 − 300 = −279.6 s = −1370.6 %.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import { main } from '../../../../functions/cli/main.ts';
import type { Report } from '../../../../functions/cli/report/report.ts';
import { CloudWatchLogsClient, CreateLogGroupCommand, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { deadUrl } from '../../../helpers/run/fixtures.ts';
import { describeNeeding } from '../../../helpers/tools.ts';
import { startAlarmHistoryReplay, type RecordedItem, type Replay } from '../../../helpers/history/alarm-history-replay.ts';

const describe = describeNeeding(['moto_server']);

const HOME = 'us-east-1';
const NAMESPACE = 'McpCanaryReport';
const REGIONS = ['eu-west-1', 'us-west-2', 'ap-southeast-2'] as const;
const MIN = 60_000;
const B = Math.floor(Date.now() / MIN) * MIN - 60 * MIN;
const at = (m: number) => new Date(B + m * MIN).toISOString();
const atRule = (m: number) => `at(${at(m).slice(0, 16)})`;

/** What each region's run of `rates` is, per minute: F failed, D degraded, H healthy, - no run. */
function plan(region: (typeof REGIONS)[number], m: number): 'F' | 'D' | 'H' | '-' {
  if (m >= 5 && m <= 9 && region !== 'ap-southeast-2') return 'F';
  if (m >= 14 && m <= 15) return 'F';
  if (m >= 18 && m <= 22 && region === 'ap-southeast-2') return 'D';
  if (m >= 29 && m <= 32) return 'F';
  if (m >= 36 && m <= 37 && region === 'ap-southeast-2') return '-';
  return 'H';
}

/** The hand computation, as data. */
const EXPECTED = {
  seconds: { up: 24 * 60, degraded: 5 * 60, down: 5 * 60, maintenance: 6 * 60, judged: 34 * 60 },
  availabilityPercent: (29 / 34) * 100,
  incidents: [
    {
      start: at(5),
      startedBeforeWindow: false,
      end: at(10),
      pagedAt: at(8),
      durationSeconds: 300,
      countedSeconds: 300,
      maintenance: 'none',
      failureClass: 'unreachable',
      failureClassNote: null,
      alarm: 'paged',
      alarmNote: null,
    },
    {
      start: at(29),
      startedBeforeWindow: false,
      end: at(33),
      pagedAt: at(32),
      durationSeconds: 240,
      countedSeconds: 0,
      maintenance: 'inside',
      failureClass: 'unreachable',
      failureClassNote: null,
      alarm: 'paged',
      alarmNote: null,
    },
  ],
  timeToResolve: { incidents: 1, open: 0, meanSeconds: 300, maxSeconds: 300 },
  errorBudget: { allowedSeconds: 20, downSeconds: 300, leftSeconds: -280 },
  maintenance: [{ name: 'deploy', start: at(28), end: at(34) }],
};

/** What CloudWatch would have recorded: the page, its OK, the ticket, the muted page in the window, and another fleet's noise. */
const RECORDS: RecordedItem[] = [
  { AlarmName: 'McpCanary/rates/critical', at: B + 8 * MIN + 6_000, from: 'OK', to: 'ALARM' },
  { AlarmName: 'McpCanary/rates/warning', at: B + 8 * MIN + 6_000, from: 'OK', to: 'ALARM' },
  { AlarmName: 'McpCanary/rates/critical', at: B + 11 * MIN + 6_000, from: 'ALARM', to: 'OK' },
  { AlarmName: 'McpCanary/rates/critical', at: B + 32 * MIN + 7_000, from: 'OK', to: 'ALARM' },
  { AlarmName: 'McpCanary/rates/critical', at: B + 34 * MIN + 7_000, from: 'ALARM', to: 'OK' },
  ...Array.from({ length: 150 }, (_, i): RecordedItem => ({
    AlarmName: 'Other/rates/critical',
    at: B + i * 10_000,
    from: 'OK',
    to: 'ALARM',
  })),
];

let moto: Moto;
let replay: Replay;
let api: RatesApi;
let server: RunningServer;
let dir: string;
const saved = { ...process.env };

beforeAll(async () => {
  [moto, api] = await Promise.all([startMoto(), startRatesApi()]);
  server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
  replay = await startAlarmHistoryReplay(moto.endpoint, RECORDS);
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-report-'));
}, 60_000);
afterAll(async () => {
  process.env = { ...saved };
  await Promise.all([server?.close(), api?.close(), replay?.close()]);
  await moto?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What Lambda does with a run function's stdout: each line an event in the region's run log group, stamped when written (here: its period, plus a few seconds). */
async function shipToRunLog(region: string, lines: readonly string[]): Promise<void> {
  const logs = new CloudWatchLogsClient({ region, endpoint: moto.endpoint, credentials: motoCredentials });
  const logGroupName = '/mcp-canary/McpCanary/run';
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

async function handlerIn(region: string) {
  process.env = {
    ...saved,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_ENDPOINT_URL: moto.endpoint,
    MCP_CANARY_HOME_REGION: HOME,
    MCP_CANARY_NAMESPACE: NAMESPACE,
    AWS_REGION: region,
  };
  vi.resetModules();
  return (await import('../../../../functions/lambdas/run/handler.ts')).handler;
}

describe('mcp-canary report', () => {
  it('reads back real runs by the paging rule: the hand-computed availability, incidents, budget and maintenance', async () => {
    // Prepare: 40 minutes of scheduled runs in three regions.
    const dead = await deadUrl();
    const tool = { name: 'get_rate', arguments: { pair: 'EURUSD' } };
    // The run's log lines, kept per region: Lambda ships them to the run log group, as done below.
    const logged = new Map<string, string[]>(REGIONS.map((r) => [r, []]));
    let region: (typeof REGIONS)[number] = REGIONS[0];
    const quiet = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged.get(region)!.push(...String(chunk).split('\n').filter(Boolean));
      return true;
    });
    for (region of REGIONS) {
      const handler = await handlerIn(region);
      for (let m = 0; m < 40; m++) {
        const code = plan(region, m);
        if (code === '-') continue;
        const rates = { name: 'rates', url: code === 'F' ? dead : server.url, tool, ...(code === 'D' ? { degradedMs: 1 } : {}) };
        const summary = await handler(
          { targets: [rates, { name: 'docs', url: server.url, tool }], scheduledTime: at(m), periodSeconds: 60 },
          { getRemainingTimeInMillis: () => 60_000 },
        );
        expect(summary.published).toBe(true);
        expect(summary.verdicts[0]!.outcome).toBe({ F: 'failed', D: 'degraded', H: 'healthy' }[code]);
      }
    }
    quiet.mockRestore();
    for (const [r, lines] of logged) await shipToRunLog(r, lines);
    const config = join(dir, 'fleet.json');
    writeFileSync(
      config,
      JSON.stringify({
        homeRegion: HOME,
        probeRegions: REGIONS,
        namespace: NAMESPACE,
        slo: { objective: 99 },
        maintenance: [{ name: 'deploy', schedule: atRule(28), duration: '6 minutes', targets: ['rates'] }],
        targets: [
          { name: 'rates', url: 'https://rates.internal.example.com/mcp?token=s3cr3t', headers: { 'X-Api-Key': 's3cr3t-header' } },
          { name: 'docs', url: 'https://docs.internal.example.com/mcp' },
        ],
      }),
    );
    process.env = { ...saved, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_ENDPOINT_URL: replay.endpoint };
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) };
    const html = join(dir, 'report.html');

    // Act
    const code = await main(['report', '--config', config, '--days', '1', '--json', '--html', html], io);

    // Assess
    expect(err.join('')).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(out.join('')) as Report;
    const rates = report.targets.find((t) => t.target === 'rates')!;
    expect(rates.rule).toEqual({ regions: 3, quorum: 2, runsInARow: 3, periodSeconds: 60 });
    expect(rates.seconds).toMatchObject(EXPECTED.seconds);
    expect(rates.availabilityPercent).toBeCloseTo(EXPECTED.availabilityPercent, 9);
    expect(rates.incidents).toEqual(EXPECTED.incidents);
    expect(rates.timeToResolve).toEqual(EXPECTED.timeToResolve);
    expect(rates.slo!.errorBudget).toMatchObject(EXPECTED.errorBudget);
    expect(rates.maintenance).toEqual(EXPECTED.maintenance);
    const docs = report.targets.find((t) => t.target === 'docs')!;
    expect(docs.seconds).toMatchObject({ up: 40 * 60, down: 0, degraded: 0, maintenance: 0 });
    expect(docs.slo!.errorBudget.leftPercent).toBe(100);
    // The cost stated is the cost on the wire: one GetMetricData for both targets, two history pages.
    // Failure classes: one FilterLogEvents per incident and probe region (2 × 3).
    expect(report.cost).toMatchObject({
      getMetricDataRequests: 1,
      metricsRequested: 4,
      describeAlarmHistoryCalls: 2,
      describeAlarmsCalls: 1,
      filterLogEventsCalls: 6,
    });
    expect(replay.calls.get('DescribeAlarms')).toBe(1);
    expect(report.warnings).toEqual([]);
    expect(replay.calls.get('GetMetricData')).toBe(1);
    expect(replay.calls.get('DescribeAlarmHistory')).toBe(2);
    expect(replay.calls.get('FilterLogEvents')).toBe(6);
    // Nothing of the config beyond names reaches the JSON or the page.
    const page = readFileSync(html, 'utf8');
    for (const text of [out.join(''), page]) expect(text).not.toMatch(/s3cr3t|internal\.example|https?:/);
    expect(page).toContain('<svg');
    // The table says the same.
    const text: string[] = [];
    expect(await main(['report', '--config', config, '--days', '1'], { stdout: (x) => text.push(x), stderr: () => {} })).toBe(0);
    if (process.env.SHOW_REPORT) process.stderr.write(text.join(''));
    expect(text.join('')).toMatch(/^rates\s+85\.294 %\s+99 %\s+-1370\.6 % \(-5m\)\s+1 \(\+1 in maintenance\)\s+5m\s+5m\s+5m\s+5m\s+6m\s+/m);
    expect(text.join('')).toMatch(/inside maintenance: not counted/);
  }, 240_000);

  it('names the fix for bad input: days out of range, no datapoints, unreachable credentials', async () => {
    const config = join(dir, 'empty.json');
    writeFileSync(
      config,
      JSON.stringify({ homeRegion: HOME, namespace: 'Nobody', targets: [{ name: 'x', url: 'https://x.example.com/mcp' }] }),
    );
    const run = async (argv: string[], env: Record<string, string>) => {
      process.env = { ...saved, ...env };
      const err: string[] = [];
      const code = await main(argv, { stdout: () => {}, stderr: (s) => err.push(s) });
      return { code, err: err.join('') };
    };
    const aws = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_ENDPOINT_URL: replay.endpoint };
    expect(await run(['report', '--config', config, '--days', '91'], aws)).toEqual({
      code: 2,
      err: 'mcp-canary: --days 91 is not a whole number of days from 1 to 90: e.g. --days 30\n',
    });
    const none = await run(['report', '--config', config, '--days', '2'], aws);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(
      /no Nobody\/Verdict datapoints for any target in us-east-1 over the last 2 day\(s\): check the config's namespace and homeRegion/,
    );
    const noCreds = await run(['report', '--config', config], {
      AWS_REGION: '',
      AWS_ENDPOINT_URL: replay.endpoint,
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_PROFILE: 'mcp-canary-no-such-profile',
      AWS_CONFIG_FILE: join(dir, 'none'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'),
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    expect(noCreds.code).toBe(2);
    expect(noCreds.err).toMatch(/no AWS credentials found: set AWS_PROFILE/);
  }, 60_000);
});
