/**
 * `mcp-canary report --days N --json` and the status page say the same for the same fleet, window and
 * CloudWatch data: the same outages, to the minute, and the same availability (the page's rounded down to
 * two decimals). moto is filled once: 40 minutes of real runs from three regions (an outage from two of
 * them, then one inside a maintenance window), and, around the window's start two days back, the `Verdict`
 * datapoints runs would have published then (one per region and minute, the run's own wire shape), with an
 * outage that began before the window and ran into it. The page's payload is the one the plan builds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient, PutMetricDataCommand, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../../functions/cli/main.ts';
import type { FleetInput } from '../../../functions/config/fleet.ts';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../functions/demo/servers.ts';
import type { Report } from '../../../functions/report/report.ts';
import { run } from '../../../functions/run/run.ts';
import { publishStatus } from '../../../functions/status/publish.ts';
import type { StatusSnapshot } from '../../../functions/status/snapshot.ts';
import { planFleet } from '../../../infra/plan/plan.ts';
import { startAlarmHistoryReplay, type Replay } from '../../helpers/history/alarm-history-replay.ts';
import { motoCredentials, startMoto, type Moto } from '../../helpers/moto.ts';
import { deadUrl, HOME_REGION, motoRunDeps, NAMESPACE } from '../../helpers/run/fixtures.ts';
import { cloudWatchAt } from '../../helpers/run/readback.ts';
import { describeNeeding } from '../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);
const MIN = 60_000;
const DAY = 86_400_000;
const DAYS = 2;
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
const BUCKET = 'status-agreement';

let moto: Moto;
let api: RatesApi;
let server: RunningServer;
let dir: string;
let replay: Replay | undefined;
let now: number;
const saved = { ...process.env };
const rateCheck = { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } };

function fleet(): FleetInput {
  return {
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
      },
    ],
    targets: [
      { name: 'search-prod', url: 'https://search.internal.example.com/mcp', status: { name: 'Search tools' } },
      { name: 'rates-prod', url: 'https://rates.internal.example.com/mcp' },
    ],
  } as FleetInput;
}

beforeAll(async () => {
  [moto, api] = await Promise.all([startMoto(), startRatesApi()]);
  server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-agreement-'));
  const dead = await deadUrl();
  now = Math.floor(Date.now() / MIN) * MIN;
  // Two days back: 3 hours of per-region Verdict points around the window's start; search-prod fails in
  // two regions from 30 minutes before it to 20 minutes after (one outage that the window cuts).
  const edge = now - DAYS * DAY;
  const old: MetricDatum[] = [];
  for (let m = -90; m < 90; m++)
    REGIONS.forEach((_, i) =>
      ['search-prod', 'rates-prod'].forEach((target) =>
        old.push({
          MetricName: 'Verdict',
          Dimensions: [{ Name: 'Target', Value: target }],
          Timestamp: new Date(edge + m * MIN),
          Value: target === 'search-prod' && m >= -30 && m < 20 && i < 2 ? 1 : 0,
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
  // three 7 to 3 minutes ago, inside the maintenance window (8 to 2 minutes ago).
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
            ],
            scheduledTime: new Date(minute).toISOString(),
            periodSeconds: 60,
          },
          motoRunDeps(moto.endpoint, [], { probeRegion: region }),
        ),
      ),
    );
  }
}, 300_000);
afterAll(async () => {
  process.env = { ...saved };
  await Promise.all([server?.close(), api?.close(), replay?.close()]);
  await moto?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the report and the status page agree', () => {
  it(`on the last ${DAYS} days' outages and availability, from the same CloudWatch data`, async () => {
    const config = join(dir, 'fleet.json');
    writeFileSync(config, JSON.stringify(fleet()));
    const at = now + 30_000;
    // moto keeps no alarm history: the replay in front of it answers DescribeAlarmHistory (empty), the rest is moto's.
    replay = await startAlarmHistoryReplay(moto.endpoint, []);
    process.env = { ...saved, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_ENDPOINT_URL: replay.endpoint };
    const out: string[] = [];
    const err: string[] = [];
    const end = new Date(at).toISOString();
    const code = await main(['report', '--config', config, '--days', String(DAYS), '--json', '--end', end], {
      stdout: (s) => out.push(s),
      stderr: (s) => err.push(s),
    });
    expect(err.join('')).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(out.join('')) as Report;

    const payload = { ...planFleet(fleet()).status!, days: DAYS };
    const s3 = new S3Client({ region: HOME_REGION, endpoint: moto.endpoint, credentials: motoCredentials, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    await publishStatus(payload, { s3, cloudwatch: cloudWatchAt(moto.endpoint, HOME_REGION), bucket: BUCKET, now: at });
    const page = JSON.parse(
      await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'status.json' }))).Body!.transformToString(),
    ) as StatusSnapshot;

    for (const [target, shown] of [
      ['search-prod', 'Search tools'],
      ['rates-prod', 'rates-prod'],
    ] as const) {
      const r = report.targets.find((t) => t.target === target)!;
      const p = page.targets.find((t) => t.name === shown)!;
      const outages = [...page.incidents.open, ...page.incidents.past]
        .filter((i) => i.target === shown && i.kind === 'outage')
        .map((i) => ({ start: i.startedAt, end: i.endedAt }))
        .sort((a, b) => a.start.localeCompare(b.start));
      expect(outages, target).toEqual(r.incidents.map((i) => ({ start: i.start, end: i.end })));
      const { judged, down } = r.seconds;
      expect(p.uptime, target).toBe(Math.floor(((judged - down) / judged) * 10_000) / 100);
    }
    // The data as planted: the cut outage (from the window's start to 20 minutes in), the one 20–10 minutes ago
    // and the one inside maintenance; search-prod's uptime well below 100 %, rates-prod's 100 %.
    const search = report.targets.find((t) => t.target === 'search-prod')!;
    expect(search.incidents.map((i) => [i.start, i.end])).toEqual([
      [new Date(now - DAYS * DAY).toISOString(), new Date(now - DAYS * DAY + 20 * MIN).toISOString()],
      [new Date(now - 20 * MIN).toISOString(), new Date(now - 10 * MIN).toISOString()],
      [new Date(now - 7 * MIN).toISOString(), new Date(now - 3 * MIN).toISOString()],
    ]);
    expect(search.seconds.down).toBe(30 * 60);
    expect(page.targets.find((t) => t.name === 'rates-prod')!.uptime).toBe(100);
  }, 120_000);
});
