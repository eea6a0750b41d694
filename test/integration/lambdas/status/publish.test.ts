/**
 * The status function against moto_server: CloudWatch filled by real scheduled runs (the run handler's
 * `run`, a real MCP server and a dead port, from three probe regions, one minute at a time), then one
 * status run that reads that history through functions/io/history and writes the page to S3. S3 as it fails
 * in life: a real HTTP fault proxy in front of moto answers 503 SlowDown (S3's throttle) to some PUTs.
 */
import { createServer, request, type Server } from 'node:http';
import { CloudWatchLogsClient, CreateLogGroupCommand, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import type { StatusPayload } from '../../../../functions/base/config/schema/status-page.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import type { CauseCache } from '../../../../functions/lambdas/status/causes.ts';
import { OLD_TIER_TTL_MS, type TierCache } from '../../../../functions/lambdas/status/gather.ts';
import { publishStatus, WRITE_ATTEMPTS } from '../../../../functions/lambdas/status/publish.ts';
import type { StatusSnapshot } from '../../../../functions/lambdas/status/snapshot.ts';
import { CACHE_CONTROL, CONTENT_TYPES } from '../../../../functions/lambdas/status/write.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { deadUrl, HOME_REGION, motoRunDeps, NAMESPACE } from '../../../helpers/run/fixtures.ts';
import { cloudWatchAt } from '../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);
const MIN = 60_000;
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
const BUCKET = 'status-page-test';

let moto: Moto;
let api: RatesApi;
let server: RunningServer;
let dead: string;
/** The minute the status run happens in; the runs filled the 40 minutes before it. */
let now: number;
/** Each region's run log lines, as the run function wrote them. */
const logged = new Map<string, string[]>(REGIONS.map((r) => [r, []]));

const rateCheck = { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } };
const payload: StatusPayload = {
  title: 'Acme MCP status',
  fleet: 'McpCanary',
  namespace: NAMESPACE,
  failureThreshold: 3,
  days: 90,
  targets: [
    { metric: 'search-prod', name: 'Search tools', regions: 3, quorum: 2, periodSeconds: 60, probeRegions: REGIONS },
    { metric: 'rates-prod', name: 'Rates API', regions: 1, quorum: 1, periodSeconds: 60, probeRegions: [REGIONS[0]!] },
  ],
  maintenance: [],
};

const s3At = (endpoint: string) =>
  new S3Client({
    region: HOME_REGION,
    endpoint,
    credentials: motoCredentials,
    forcePathStyle: true,
    maxAttempts: WRITE_ATTEMPTS,
    retryMode: 'standard',
  });
const clock = (t: number) => new Date(t).toISOString().slice(11, 16);

beforeAll(async () => {
  [moto, api] = await Promise.all([startMoto(), startRatesApi()]);
  server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
  dead = await deadUrl();
  await s3At(moto.endpoint).send(new CreateBucketCommand({ Bucket: BUCKET }));
  now = Math.floor(Date.now() / MIN) * MIN;
  // 40 minutes of runs: search-prod fails from two of its three regions for the 10 minutes from -20 to -10;
  // rates-prod (one region) is healthy throughout; internal-admin has data but is not on the page.
  for (let m = 40; m >= 1; m--) {
    const minute = now - m * MIN;
    const failing = m <= 20 && m > 10;
    await Promise.all(
      REGIONS.map((region, i) =>
        run(
          {
            targets: [
              { name: 'search-prod', url: failing && i < 2 ? dead : server.url, tool: rateCheck, timeoutMs: 2_000 },
              ...(i === 0 ? [{ name: 'rates-prod', url: server.url, tool: rateCheck }] : []),
              ...(i === 0 ? [{ name: 'internal-admin', url: dead, timeoutMs: 2_000 }] : []),
            ],
            scheduledTime: new Date(minute).toISOString(),
            periodSeconds: 60,
          },
          motoRunDeps(moto.endpoint, logged.get(region)!, { probeRegion: region }),
        ),
      ),
    );
  }
  for (const [region, lines] of logged) await shipToRunLog(region, lines);
}, 300_000);
afterAll(async () => {
  await Promise.all([server?.close(), api?.close()]);
  await moto?.stop();
});

const logsAt = (region: string) => new CloudWatchLogsClient({ region, endpoint: moto.endpoint, credentials: motoCredentials });

/** What Lambda does with a run function's stdout: each line an event in the region's run log group, stamped a few seconds into its period. */
async function shipToRunLog(region: string, lines: readonly string[]): Promise<void> {
  const logs = logsAt(region);
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

/** An HTTP proxy in front of moto that answers S3's 503 SlowDown to the PUTs `fail` picks. */
async function faultProxy(
  fail: (key: string, nth: number) => boolean,
): Promise<{ endpoint: string; puts: string[]; close(): Promise<void> }> {
  const target = new URL(moto.endpoint);
  const puts: string[] = [];
  const proxy: Server = createServer((req, res) => {
    const key = (req.url ?? '').split('?')[0]!.split('/').slice(2).join('/');
    if (req.method === 'PUT' && key) {
      puts.push(key);
      if (fail(key, puts.filter((k) => k === key).length)) {
        req.resume();
        res.writeHead(503, { 'content-type': 'application/xml' });
        res.end(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
        );
        return;
      }
    }
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
    puts,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

async function object(key: string) {
  const out = await s3At(moto.endpoint).send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return { body: await out.Body!.transformToString(), contentType: out.ContentType, cacheControl: out.CacheControl };
}

describe('the status function against moto', () => {
  it('reads the runs back through the paging rule and writes the page and its JSON with their content types', async () => {
    const s3 = s3At(moto.endpoint);
    const result = await publishStatus(payload, {
      s3,
      cloudwatch: cloudWatchAt(moto.endpoint, HOME_REGION),
      bucket: BUCKET,
      now: now + 30_000,
    });
    expect(result.written).toEqual(['status.json', 'index.html']);
    // Four reads × two statistics × two targets, each read one request.
    expect(result.cost).toMatchObject({ requests: 4, metrics: 16 });

    const html = await object('index.html');
    const json = await object('status.json');
    expect(html).toMatchObject({ contentType: CONTENT_TYPES.html, cacheControl: CACHE_CONTROL });
    expect(json).toMatchObject({ contentType: CONTENT_TYPES.json, cacheControl: CACHE_CONTROL });
    const snapshot = JSON.parse(json.body) as StatusSnapshot;
    expect(snapshot.targets.map((t) => [t.name, t.state])).toEqual([
      ['Search tools', 'up'],
      ['Rates API', 'up'],
    ]);
    const sentence = `Search tools failed for agents from 2 of 3 regions, ${clock(now - 20 * MIN)}–${clock(now - 10 * MIN)} UTC (10 min).`;
    // The date is left out for today: a run just after midnight UTC says it, and the sentence differs only there.
    const today = new Date(now - 20 * MIN).getUTCDate() === new Date(now).getUTCDate();
    expect(snapshot.incidents.past.map((i) => i.summary)).toEqual([today ? sentence : expect.stringContaining('(10 min).')]);
    expect(snapshot.incidents.past[0]).toMatchObject({
      startedAt: new Date(now - 20 * MIN).toISOString(),
      endedAt: new Date(now - 10 * MIN).toISOString(),
      failedRegions: 2,
      regions: 3,
    });
    expect(snapshot.incidents.open).toEqual([]);
    // The 10 minutes are in the last bar, or split over the last two when they straddle midnight UTC.
    const lastTwo = snapshot.targets[0]!.days.slice(-2);
    expect(lastTwo.reduce((n, d) => n + d.downMinutes, 0)).toBe(10);
    expect(lastTwo.some((d) => d.state === 'down')).toBe(true);
    for (const text of [html.body, json.body]) {
      expect(text).not.toContain('internal-admin');
      expect(text).not.toContain('127.0.0.1');
      expect(text).not.toContain('search-prod');
    }
    expect(html.body).toContain(snapshot.incidents.past[0]!.summary);
  });

  it('a warm function reads only the recent tier again within the hour, and says the same', async () => {
    const cache: TierCache = new Map();
    const deps = { s3: s3At(moto.endpoint), cloudwatch: cloudWatchAt(moto.endpoint, HOME_REGION), bucket: BUCKET, cache };
    const cold = await publishStatus(payload, { ...deps, now: now + 30_000 });
    const coldJson = (await object('status.json')).body;
    const warm = await publishStatus(payload, { ...deps, now: now + 35_000 });
    expect(cold.cost).toMatchObject({ requests: 4, metrics: 16 });
    expect(warm.cost).toMatchObject({ requests: 1, metrics: 4 });
    const strip = (j: string) => ({ ...(JSON.parse(j) as StatusSnapshot), generatedAt: '' });
    expect(strip((await object('status.json')).body)).toEqual(strip(coldJson));
    const later = await publishStatus(payload, { ...deps, now: now + 30_000 + OLD_TIER_TTL_MS });
    expect(later.cost).toMatchObject({ requests: 4, metrics: 16 });
  });

  it("says the cause read from the probe regions' run logs, in plain words, and a warm function does not read it again", async () => {
    const clients = new Map<string, CloudWatchLogsClient>();
    const asked: string[] = [];
    const logs = (region: string) => {
      asked.push(region);
      return clients.get(region) ?? clients.set(region, logsAt(region)).get(region)!;
    };
    const causes: CauseCache = new Map();
    const deps = { s3: s3At(moto.endpoint), cloudwatch: cloudWatchAt(moto.endpoint, HOME_REGION), bucket: BUCKET, logs, causes };
    const first = await publishStatus(payload, { ...deps, now: now + 30_000 });
    // One incident, its target probed from three regions: one FilterLogEvents in each.
    expect(first.cost.logCalls).toBe(3);
    expect([...asked].sort()).toEqual([...REGIONS].sort());
    const json = (await object('status.json')).body;
    const html = (await object('index.html')).body;
    const past = (JSON.parse(json) as StatusSnapshot).incidents.past;
    // The two failing regions probed a dead port: unreachable, said as a reader says it.
    expect(past).toHaveLength(1);
    expect(past[0]).toMatchObject({ failureClass: 'unreachable' });
    expect(past[0]!.summary).toMatch(/ \(10 min\): the endpoint could not be reached\.$/);
    expect(html).toContain('the endpoint could not be reached');
    // Region names are for reading the logs only: never on the page nor in its JSON.
    for (const text of [json, html]) for (const region of REGIONS) expect(text).not.toContain(region);

    const warm = await publishStatus(payload, { ...deps, now: now + 35_000 });
    expect(warm.cost.logCalls).toBe(0);
    expect((JSON.parse((await object('status.json')).body) as StatusSnapshot).incidents.past[0]!.summary).toBe(past[0]!.summary);
    for (const c of clients.values()) c.destroy();
  });

  it('retries a throttled PUT (503 SlowDown) and the page arrives whole', async () => {
    const proxy = await faultProxy((_key, nth) => nth <= 2);
    try {
      const result = await publishStatus(payload, {
        s3: s3At(proxy.endpoint),
        cloudwatch: cloudWatchAt(moto.endpoint, HOME_REGION),
        bucket: BUCKET,
        now: now + 40_000,
      });
      expect(result.written).toEqual(['status.json', 'index.html']);
      expect(proxy.puts).toEqual(['status.json', 'status.json', 'status.json', 'index.html', 'index.html', 'index.html']);
      expect((JSON.parse((await object('status.json')).body) as StatusSnapshot).generatedAt).toBe(new Date(now + 40_000).toISOString());
      expect((await object('index.html')).body).toContain(`<time datetime="${new Date(now + 40_000).toISOString()}">`);
    } finally {
      await proxy.close();
    }
  });

  it('never leaves a half page: when the JSON cannot be written, the HTML is not either and the last page stays', async () => {
    const s3 = s3At(moto.endpoint);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'index.html', Body: '<!doctype html><title>the last page</title>' }));
    const proxy = await faultProxy((key) => key === 'status.json');
    try {
      await expect(
        publishStatus(payload, {
          s3: s3At(proxy.endpoint),
          cloudwatch: cloudWatchAt(moto.endpoint, HOME_REGION),
          bucket: BUCKET,
          now: now + 50_000,
        }),
      ).rejects.toThrow(/reduce your request rate|SlowDown/);
      expect(proxy.puts).toEqual(Array(WRITE_ATTEMPTS).fill('status.json'));
      expect((await object('index.html')).body).toContain('the last page');
    } finally {
      await proxy.close();
    }
  });
});
