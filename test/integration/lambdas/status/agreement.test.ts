/**
 * `mcp-canary report --days N --json` and the status page say the same for the same fleet, window and
 * CloudWatch data: the same outages, to the minute, the same degraded stretches, and the same availability
 * (the page's rounded down to two decimals). The fleet has its own name, `AccFleet` (not the default
 * McpCanary): both read its run log and the report its alarms by that name, from the config. moto is filled
 * once: 40 minutes of real runs from three regions (an outage from two of them, then one inside a
 * maintenance window; a target degraded in all three from 12 minutes ago whose newest minute has not arrived
 * yet), and, around the window's start two days back, the `Verdict` datapoints runs would have published then
 * (one per region and minute, the run's own wire shape), with an outage that began before the window and ran
 * into it. The page's payload is the one the plan builds. The same runs' log lines are shipped to each
 * region's `/mcp-canary/AccFleet/run`, so both name each outage's class; the fleet's page alarms are in moto
 * and their history is replayed in front of it, so the report knows which outages paged.
 *
 * A third target is served by a hostile server: its tool fails with markup and a planted secret, and its
 * display name is markup. Neither `--json`, `--html`, status.json nor index.html may carry any of it raw.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient, PutMetricAlarmCommand, PutMetricDataCommand, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient, CreateLogGroupCommand, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../../../functions/cli/main.ts';
import type { FleetInput } from '../../../../functions/base/config/schema/fleet.ts';
import { verdictValue } from '../../../../functions/base/common/run-record.ts';
import type { Outcome } from '../../../../functions/base/common/verdict.ts';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import type { Report } from '../../../../functions/cli/report/report.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import { publishStatus } from '../../../../functions/lambdas/status/publish.ts';
import type { StatusSnapshot } from '../../../../functions/lambdas/status/snapshot.ts';
import { planFleet } from '../../../../infra/plan/plan.ts';
import { startAlarmHistoryReplay, type Replay } from '../../../helpers/history/alarm-history-replay.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { deadUrl, HOME_REGION, motoRunDeps, NAMESPACE } from '../../../helpers/run/fixtures.ts';
import { cloudWatchAt } from '../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);
const MIN = 60_000;
const DAY = 86_400_000;
const DAYS = 2;
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
const BUCKET = 'status-agreement';
const FLEET = 'AccFleet';
const TARGETS = ['search-prod', 'rates-prod', 'hostile-prod', 'docs-prod'];

let moto: Moto;
let api: RatesApi;
let server: RunningServer;
/** A server whose checked tool fails with markup and a planted secret in its error text, as a hostile one may. */
let hostile: RunningServer;
let dir: string;
let replay: Replay | undefined;
let now: number;
const saved = { ...process.env };
const PLANTED = 'sk-live-PLANTED-7781';
const HOSTILE_TEXT = `</script><script>alert(1)</script><img src=x onerror=alert(2)> ${PLANTED} from eu-west-1`;
/** A display name of markup: the page shows it as text. */
const HOSTILE_NAME = '</script><img src=x onerror=alert(3)> "Q&A"';
/** Each region's run log lines, as the run function wrote them. */
const logged = new Map<string, string[]>();
const rateCheck = { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } };

function fleet(): FleetInput {
  return {
    name: FLEET,
    homeRegion: HOME_REGION,
    probeRegions: REGIONS,
    namespace: NAMESPACE,
    statusPage: { title: 'Acme status' },
    // Daily (a window for the past is refused at synth): today's opening is 8 to 2 minutes ago; the ones a day
    // and two days back cover no data in the window.
    maintenance: [
      {
        name: 'deploy',
        schedule: `cron(${new Date(now - 8 * MIN).getUTCMinutes()} ${new Date(now - 8 * MIN).getUTCHours()} * * *)`,
        duration: '6 minutes',
        targets: ['search-prod', 'hostile-prod'],
      },
    ],
    targets: [
      { name: 'search-prod', url: 'https://search.internal.example.com/mcp', status: { name: 'Search tools' } },
      { name: 'rates-prod', url: 'https://rates.internal.example.com/mcp' },
      { name: 'hostile-prod', url: 'https://hostile.internal.example.com/mcp', status: { name: HOSTILE_NAME } },
      { name: 'docs-prod', url: 'https://docs.internal.example.com/mcp', status: { name: 'Docs search' } },
    ],
  } as FleetInput;
}

beforeAll(async () => {
  [moto, api] = await Promise.all([startMoto(), startRatesApi()]);
  server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
  hostile = await startMcpServer({
    era: 'modern',
    tools: [
      {
        name: 'get_rate',
        annotations: { readOnlyHint: true },
        handler: () => ({ isError: true, content: [{ type: 'text', text: HOSTILE_TEXT }] }),
      },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-agreement-'));
  const dead = await deadUrl();
  now = Math.floor(Date.now() / MIN) * MIN;
  // Two days back: 3 hours of per-region Verdict points around the window's start, each the value a run
  // writes; search-prod fails in two regions from 30 minutes before it to 20 minutes after (one outage that
  // the window cuts), and from 5 to 10 minutes after, only one region judges it (failing) while the other
  // two cannot: still down. rates-prod cannot be judged anywhere from 30 to 40 minutes after: neither up nor down.
  const edge = now - DAYS * DAY;
  const old: MetricDatum[] = [];
  const outcomeAt = (target: string, m: number, i: number): Outcome => {
    if (target === 'search-prod' && m >= 5 && m < 10) return i === 0 ? 'failed' : 'inconclusive';
    if (target === 'search-prod' && m >= -30 && m < 20 && i < 2) return 'failed';
    if (target === 'rates-prod' && m >= 30 && m < 40) return 'inconclusive';
    return 'healthy';
  };
  for (let m = -90; m < 90; m++)
    REGIONS.forEach((_, i) =>
      TARGETS.forEach((target) =>
        old.push({
          MetricName: 'Verdict',
          Dimensions: [{ Name: 'Target', Value: target }],
          Timestamp: new Date(edge + m * MIN),
          Value: verdictValue({ outcome: outcomeAt(target, m, i), warnings: [] }),
          StorageResolution: 60,
        }),
      ),
    );
  // The SDK gzips a body over 10 KB, which moto cannot read: uncompressed, as many datums as a run sends at once.
  const writer = new CloudWatchClient({
    region: HOME_REGION,
    endpoint: moto.endpoint,
    credentials: motoCredentials,
    disableRequestCompression: true,
  });
  for (let k = 0; k < old.length; k += 500)
    await writer.send(new PutMetricDataCommand({ Namespace: NAMESPACE, MetricData: old.slice(k, k + 500) }));
  writer.destroy();
  // The last 40 minutes, by real runs: search-prod fails from two regions 20 to 10 minutes ago, then from all
  // three 7 to 3 minutes ago, inside the maintenance window (8 to 2 minutes ago). docs-prod is degraded in
  // all three from 12 minutes ago (a run slower than its 1 ms degradedMs), and its newest minute's runs
  // have not arrived when the report and the page read it.
  for (let m = 40; m >= 1; m--) {
    const minute = now - m * MIN;
    const failing = (m <= 20 && m > 10) || (m <= 7 && m > 3);
    await Promise.all(
      REGIONS.map((region, i) =>
        run(
          {
            targets: [
              { name: 'search-prod', url: failing && (i < 2 || m <= 7) ? dead : server.url, tool: rateCheck, timeoutMs: 2_000 },
              { name: 'rates-prod', url: server.url, tool: rateCheck },
              // Fails from every region 15 to 5 minutes ago, with its hostile text.
              { name: 'hostile-prod', url: m <= 15 && m > 5 ? hostile.url : server.url, tool: rateCheck, timeoutMs: 2_000 },
              ...(m === 1 ? [] : [{ name: 'docs-prod', url: server.url, tool: rateCheck, ...(m <= 12 ? { degradedMs: 1 } : {}) }]),
            ],
            scheduledTime: new Date(minute).toISOString(),
            periodSeconds: 60,
          },
          motoRunDeps(moto.endpoint, logged.get(region) ?? logged.set(region, []).get(region)!, { probeRegion: region }),
        ),
      ),
    );
  }
  for (const [region, lines] of logged) await shipToRunLog(region, lines);
  // The fleet's page alarms, as its stacks name them (moto's CloudFormation skips alarms, so they are put here).
  const alarms = new CloudWatchClient({ region: HOME_REGION, endpoint: moto.endpoint, credentials: motoCredentials });
  for (const target of TARGETS)
    await alarms.send(
      new PutMetricAlarmCommand({
        AlarmName: `${FLEET}/${target}/critical`,
        Namespace: NAMESPACE,
        MetricName: 'Verdict',
        Dimensions: [{ Name: 'Target', Value: target }],
        Statistic: 'Sum',
        Period: 60,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
        Threshold: 2,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    );
  alarms.destroy();
}, 300_000);

const logsAt = (region: string) => new CloudWatchLogsClient({ region, endpoint: moto.endpoint, credentials: motoCredentials });

/** What Lambda does with a run function's stdout: each line an event in the region's run log group, stamped a few seconds into its period. */
async function shipToRunLog(region: string, lines: readonly string[]): Promise<void> {
  const logs = logsAt(region);
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
const search0 = (r: Report) => r.targets.find((t) => t.target === 'search-prod')!;

afterAll(async () => {
  process.env = { ...saved };
  await Promise.all([server?.close(), hostile?.close(), api?.close(), replay?.close()]);
  await moto?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the report and the status page agree', () => {
  it(`on the last ${DAYS} days' outages and availability, from the same CloudWatch data`, async () => {
    const config = join(dir, 'fleet.json');
    writeFileSync(config, JSON.stringify(fleet()));
    const at = now + 30_000;
    // moto keeps no alarm history: the replay in front of it answers DescribeAlarmHistory, the rest is moto's.
    // search-prod's page went out for each of its outages (the one cut by the window resolved 20 minutes
    // into it); hostile-prod's never did, which the report can say since the alarm exists.
    const critical = `${FLEET}/search-prod/critical`;
    const edge = now - DAYS * DAY;
    replay = await startAlarmHistoryReplay(moto.endpoint, [
      { AlarmName: critical, at: edge + 20 * MIN + 6_000, from: 'ALARM', to: 'OK' },
      { AlarmName: critical, at: now - 17 * MIN + 6_000, from: 'OK', to: 'ALARM' },
      { AlarmName: critical, at: now - 10 * MIN + 6_000, from: 'ALARM', to: 'OK' },
      { AlarmName: critical, at: now - 4 * MIN + 6_000, from: 'OK', to: 'ALARM' },
      { AlarmName: critical, at: now - 3 * MIN + 6_000, from: 'ALARM', to: 'OK' },
    ]);
    process.env = { ...saved, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_ENDPOINT_URL: replay.endpoint };
    const out: string[] = [];
    const err: string[] = [];
    const end = new Date(at).toISOString();
    const reportHtml = join(dir, 'report.html');
    const code = await main(['report', '--config', config, '--days', String(DAYS), '--json', '--html', reportHtml, '--end', end], {
      stdout: (s) => out.push(s),
      stderr: (s) => err.push(s),
    });
    expect(err.join('')).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(out.join('')) as Report;
    // The config's own name, said as such; every alarm and log found.
    expect(report).toMatchObject({ fleet: FLEET, fleetNameFrom: 'config', warnings: [] });

    const payload = { ...planFleet(fleet()).status!, days: DAYS };
    expect(payload.fleet).toBe(FLEET);
    const s3 = new S3Client({ region: HOME_REGION, endpoint: moto.endpoint, credentials: motoCredentials, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const clients = new Map<string, CloudWatchLogsClient>();
    const logs = (region: string) => clients.get(region) ?? clients.set(region, logsAt(region)).get(region)!;
    const causes = new Map();
    // Twice, as a warm function: the second run finds every class it has not cached yet (at most 6 log calls a run).
    for (const k of [0, 1])
      await publishStatus(payload, { s3, cloudwatch: cloudWatchAt(moto.endpoint, HOME_REGION), bucket: BUCKET, now: at + k, logs, causes });
    for (const c of clients.values()) c.destroy();
    const object = async (Key: string) => (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key }))).Body!.transformToString();
    const pageJson = await object('status.json');
    const pageHtml = await object('index.html');
    const page = JSON.parse(pageJson) as StatusSnapshot;

    for (const [target, shown] of [
      ['search-prod', 'Search tools'],
      ['rates-prod', 'rates-prod'],
      ['hostile-prod', HOSTILE_NAME],
      ['docs-prod', 'Docs search'],
    ] as const) {
      const r = report.targets.find((t) => t.target === target)!;
      const p = page.targets.find((t) => t.name === shown)!;
      const outages = [...page.incidents.open, ...page.incidents.past]
        .filter((i) => i.target === shown && i.kind === 'outage')
        .map((i) => ({ start: i.startedAt, end: i.endedAt, failureClass: i.failureClass, maintenance: i.maintenance }))
        .sort((a, b) => a.start.localeCompare(b.start));
      expect(outages, target).toEqual(
        r.incidents.map((i) => ({ start: i.start, end: i.end, failureClass: i.failureClass, maintenance: i.maintenance })),
      );
      // Degraded stretches: the page's incidents of that kind are the report's degraded intervals; one open on
      // the page is one that reaches the report's window end.
      const degraded = [...page.incidents.open, ...page.incidents.past]
        .filter((i) => i.target === shown && i.kind === 'degraded')
        .map((i) => ({ start: i.startedAt, end: i.endedAt }))
        .sort((a, b) => a.start.localeCompare(b.start));
      expect(degraded, target).toEqual(
        r.intervals.filter((i) => i.state === 'degraded').map((i) => ({ start: i.start, end: i.end === report.window.end ? null : i.end })),
      );
      const { judged, down } = r.seconds;
      expect(p.uptime, target).toBe(Math.floor(((judged - down) / judged) * 10_000) / 100);
    }
    // Degraded in every region, its newest minute not arrived: ongoing on the page, in its state and its
    // open list alike, and counted from all three regions; the report's stretch reaches its window's end.
    const docs = report.targets.find((t) => t.target === 'docs-prod')!;
    expect(docs.intervals.at(-1)).toEqual({ state: 'degraded', start: new Date(now - 12 * MIN).toISOString(), end: report.window.end });
    expect(page.targets.find((t) => t.name === 'Docs search')!.state).toBe('degraded');
    expect(page.incidents.open.filter((i) => i.target === 'Docs search').map((i) => i.summary)).toEqual([
      // The page is written 30 s into the minute: 12.5 min so far, said to the nearest minute.
      `Docs search is degraded for agents from all 3 regions since ${new Date(now - 12 * MIN).toISOString().slice(11, 16)} UTC (13 min so far).`,
    ]);
    // Which outages paged, known from the fleet's own alarms: search-prod's each time, hostile-prod's never.
    expect(search0(report).incidents.map((i) => i.alarm)).toEqual(['paged', 'paged', 'paged']);
    expect(report.targets.find((t) => t.target === 'hostile-prod')!.incidents.map((i) => [i.alarm, i.alarmNote])).toEqual([
      ['not-paged', null],
    ]);
    // The data as planted: the cut outage (from the window's start to 20 minutes in), the one 20–10 minutes ago
    // and the one inside maintenance; search-prod's uptime well below 100 %, rates-prod's 100 %.
    const search = report.targets.find((t) => t.target === 'search-prod')!;
    expect(search.incidents.map((i) => [i.start, i.end])).toEqual([
      [new Date(now - DAYS * DAY).toISOString(), new Date(now - DAYS * DAY + 20 * MIN).toISOString()],
      [new Date(now - 20 * MIN).toISOString(), new Date(now - 10 * MIN).toISOString()],
      [new Date(now - 7 * MIN).toISOString(), new Date(now - 3 * MIN).toISOString()],
    ]);
    expect(search.seconds.down).toBe(30 * 60);
    // The cut one is marked as open when the window began (its page fell in the periods read before it), and
    // only the two that began in the window have a time to resolve.
    expect(search.incidents.map((i) => i.startedBeforeWindow)).toEqual([true, false, false]);
    expect(search.timeToResolve).toMatchObject({ incidents: 2, meanSeconds: 10 * 60, maxSeconds: 10 * 60 });
    expect(page.targets.find((t) => t.name === 'rates-prod')!.uptime).toBe(100);
    // The 10 minutes nobody could judge rates-prod are left out of its judged time, not counted up (nor as
    // degraded, though the ticket rule opens on them). Both have the same planted minutes: search-prod loses
    // today's 6-minute maintenance window from its judged time, rates-prod those 10.
    const rates = report.targets.find((t) => t.target === 'rates-prod')!;
    expect(rates.incidents).toEqual([]);
    expect(rates.intervals.filter((i) => i.state === 'degraded')).toEqual([]);
    expect(rates.seconds.judged + 10 * 60).toBe(search.seconds.judged + 6 * 60);
    // The runs that paged name the class, on both (the cut outage's runs two days back logged nothing: unknown).
    expect(search.incidents.map((i) => i.failureClass)).toEqual([null, 'unreachable', 'unreachable']);
    const bad = page.incidents.past.find((i) => i.target === HOSTILE_NAME)!;
    expect(bad.failureClass).toBe('tool_error');
    // 15 to 5 minutes ago, the window 8 to 2: partly inside it, and both say so.
    expect(bad.summary).toMatch(
      /: the checked tool answered with an error\. Part of it was inside a maintenance window: 7 min of it counts against uptime\.$/,
    );
    expect(search.incidents.map((i) => i.maintenance)).toEqual(['none', 'none', 'inside']);

    // Privacy: nothing of the config but names, and nothing the hostile server said, in any of the four outputs.
    const reportJson = out.join('');
    const reportPage = readFileSync(reportHtml, 'utf8');
    for (const [what, text] of Object.entries({ reportJson, reportPage, pageJson, pageHtml })) {
      expect(text, what).not.toMatch(/PLANTED|internal\.example|127\.0\.0\.1|https?:\/\/|alert\(1\)|alert\(2\)/);
      if (what !== 'reportJson') expect(text, what).not.toMatch(/<script|<img|<\/script/i);
    }
    // Region names are not on the page (the report, for the operator, names its home region).
    for (const text of [pageJson, pageHtml]) for (const region of REGIONS) expect(text).not.toContain(region);
    expect(pageHtml).toContain('&#60;/script&#62;&#60;img src=x onerror=alert(3)&#62; &#34;Q&#38;A&#34;');
  }, 120_000);
});
