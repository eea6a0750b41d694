/**
 * The brief over the wire, against moto_server: real run records (the probe engine judging real MCP
 * servers) in the run log groups of three regions, the alarm event of the synthesized critical alarm,
 * the brief published to SNS and read back from an SQS subscriber.
 */
import { CloudWatchLogsClient, CreateLogGroupCommand, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { briefAlarmChange, type BriefDeps } from '../../../../functions/lambdas/brief/brief.ts';
import type { ChatNotification } from '../../../../functions/lambdas/brief/compose.ts';
import type { BriefEnv } from '../../../../functions/base/config/env/brief-env.ts';
import { Target } from '../../../../functions/base/config/schema/target.ts';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../../functions/demo/servers.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import type { RunRecord } from '../../../../functions/base/common/run-record.ts';
import type { Verdict } from '../../../../functions/base/common/verdict.ts';
import { alarmsOf } from '../../../helpers/infra/cfn.ts';
import { smallFleet, synthFleet } from '../../../helpers/infra/synth.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { alarmEvent, minute, record } from '../../../helpers/brief/fixtures.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

/** Every suite here needs moto_server: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['moto_server']);

const HOME = 'us-east-1';
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
const LOG_GROUP = '/mcp-canary/McpCanary/run';
const SECRET = 'Bearer sk-test-2f9c81d7e4a6';

let moto: Moto;
let api: RatesApi;
let brokenApi: RatesApi;
let healthyServer: RunningServer;
let brokenServer: RunningServer;
const verdicts: { healthy: Verdict[]; failed: Verdict[] } = { healthy: [], failed: [] };

/** The target's query: ordinary parameters in the url (never shown), the secret one by reference. */
const QUERY = '?read_only=true&tenant=acme-7f3e2a&limit=25';
const QUERY_VALUES = ['acme-7f3e2a', 'read_only=true', 'limit=25'];
const synth = synthFleet(
  smallFleet({
    targets: smallFleet().targets.map((t) =>
      t.name === 'rates-prod' ? { ...t, url: `${t.url}${QUERY}`, querySecrets: { key: { secretsManager: 'mcp-canary/rates/key' } } } : t,
    ),
  }),
);
const critical = [...synth.templates]
  .flatMap(([, t]) => alarmsOf(t.toJSON() as never))
  .find((a) => a.AlarmName === 'McpCanary/rates-prod/critical')!;
const deadMan = [...synth.templates]
  .flatMap(([, t]) => alarmsOf(t.toJSON() as never))
  .find((a) => a.AlarmName === 'McpCanary/rates-prod/dead-man')!;

const logs = (region: string) => new CloudWatchLogsClient({ region, endpoint: moto.endpoint, credentials: motoCredentials });
const sns = () => new SNSClient({ region: HOME, endpoint: moto.endpoint, credentials: motoCredentials });
const sqs = () => new SQSClient({ region: HOME, endpoint: moto.endpoint, credentials: motoCredentials });

function target(url: string) {
  return Target.parse({
    name: 'rates-prod',
    url,
    headers: { Authorization: SECRET },
    tool: { name: 'get_rate', arguments: { pair: 'EURUSD' } },
  });
}

beforeAll(async () => {
  moto = await startMoto();
  api = await startRatesApi();
  brokenApi = await startRatesApi();
  brokenApi.revokeKey(); // the upstream key expired: the tool answers isError
  healthyServer = await startMcpServer({ era: 'modern', tools: [rateTool(api)], requireAuthorization: SECRET });
  brokenServer = await startMcpServer({ era: 'modern', tools: [rateTool(brokenApi)], requireAuthorization: SECRET });
  // Real verdicts from the engine, the same it produces in the Lambda.
  for (let i = 0; i < 3; i++) {
    verdicts.healthy.push(await judge(target(`${healthyServer.url}${QUERY}`)));
    verdicts.failed.push(await judge(target(`${brokenServer.url}${QUERY}`)));
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([healthyServer?.close(), brokenServer?.close(), api?.close(), brokenApi?.close()]);
  await moto?.stop();
});

beforeEach(async () => {
  await moto.reset();
});

/** The run log of one region: lines as the run writes them (JSON on stdout), plus what else a Lambda log holds. */
async function writeRunLog(region: string, records: RunRecord[], extra: string[] = []): Promise<void> {
  const client = logs(region);
  await client.send(new CreateLogGroupCommand({ logGroupName: LOG_GROUP }));
  await client.send(new CreateLogStreamCommand({ logGroupName: LOG_GROUP, logStreamName: '2026/11/29/[$LATEST]0f3a' }));
  const events = [
    ...records.map((r) => ({ timestamp: Date.parse(r.startedAt) + r.verdict.durationMs, message: JSON.stringify(r) })),
    ...extra.map((message, i) => ({ timestamp: minute(0).getTime() + i, message })),
  ].sort((a, b) => a.timestamp - b.timestamp);
  await client.send(new PutLogEventsCommand({ logGroupName: LOG_GROUP, logStreamName: '2026/11/29/[$LATEST]0f3a', logEvents: events }));
}

async function briefsQueue(): Promise<{ topicArn: string; queueUrl: string }> {
  const { TopicArn } = await sns().send(new CreateTopicCommand({ Name: 'McpCanary-briefs' }));
  const { QueueUrl } = await sqs().send(new CreateQueueCommand({ QueueName: 'chat-relay' }));
  const { Attributes } = await sqs().send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  await sns().send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: Attributes!.QueueArn }));
  return { topicArn: TopicArn!, queueUrl: QueueUrl! };
}

async function received(queueUrl: string): Promise<Array<{ Subject?: string; Message: string; Type: string }>> {
  const out = await sqs().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
  return (out.Messages ?? []).map((m) => JSON.parse(m.Body!) as { Subject?: string; Message: string; Type: string });
}

function deps(topicArn: string): BriefDeps {
  const env: BriefEnv = {
    topicArn,
    fleet: 'McpCanary',
    runLogGroup: LOG_GROUP,
    failureThreshold: 3,
    quorums: new Map([[REGIONS.length, 2]]),
    probeRegions: REGIONS,
  };
  return { env, sns: sns(), logs };
}

describe('the brief against moto', () => {
  it('reads the failing runs from every region and delivers a chat-ready brief through SNS to SQS', async () => {
    // Prepare: us-east-1 and eu-west-1 fail 3 runs in a row after a healthy one; ap-southeast-2 stays healthy.
    const [h0, h1, h2] = verdicts.healthy;
    const [f0, f1, f2] = verdicts.failed;
    await writeRunLog(
      'us-east-1',
      [
        record(h0!, 'us-east-1', minute(0)),
        record(f0!, 'us-east-1', minute(1)),
        record(f1!, 'us-east-1', minute(2)),
        record(f2!, 'us-east-1', minute(3)),
      ],
      [
        'START RequestId: 3f1c9e2a Version: $LATEST',
        JSON.stringify(record({ ...f0!, target: 'docs' }, 'us-east-1', minute(2))), // another target failing in the same log
      ],
    );
    await writeRunLog(
      'eu-west-1',
      [record(f0!, 'eu-west-1', minute(1)), record(f1!, 'eu-west-1', minute(2)), record(f2!, 'eu-west-1', minute(3))],
      [JSON.stringify({ message: 'mcp-canary publish failed', homeRegion: HOME, targets: ['rates-prod'] })],
    );
    await writeRunLog('ap-southeast-2', [
      record(h0!, 'ap-southeast-2', minute(1)),
      record(h1!, 'ap-southeast-2', minute(2)),
      record(h2!, 'ap-southeast-2', minute(3)),
    ]);
    const { topicArn, queueUrl } = await briefsQueue();

    // Act
    const result = await briefAlarmChange(
      alarmEvent(critical, { state: 'ALARM', previous: 'OK', at: new Date(minute(4).getTime() + 10_000) }),
      deps(topicArn),
    );

    // Assess
    expect(result.published).toBe(true);
    const messages = await received(queueUrl);
    expect(messages).toHaveLength(1);
    const delivered = messages[0]!;
    expect(delivered.Subject).toBe('ALARM: rates-prod has failed 3 time(s) in a row in 2 of 3 regions');
    const chat = JSON.parse(delivered.Message) as ChatNotification;
    expect(chat).toMatchObject({
      version: '1.0',
      source: 'custom',
      content: { textType: 'client-markdown', title: '🔴 rates-prod has failed 3 time(s) in a row in 2 of 3 regions' },
    });
    expect(chat.id).toBe(result.published && result.dedupKey);
    expect(chat.metadata.additionalContext).toMatchObject({
      failureClass: f2!.failure,
      firstFailureAt: minute(1).toISOString(),
      lastFailureAt: minute(3).toISOString(),
      era: f2!.revision,
      endpoint: 'https://rates.example.com/mcp?read_only=***&tenant=***&limit=***',
    });
    expect(chat.content.description).toContain(`us-east-1: ❌ failed 3 time(s) in a row (${f2!.failure})`);
    expect(chat.content.description).toContain(`eu-west-1: ❌ failed 3 time(s) in a row (${f2!.failure})`);
    expect(chat.content.description).toContain('ap-southeast-2: ✅ healthy');
    // The engine's own words for what the tool answered, as the run recorded them.
    expect(chat.content.description).toContain(f2!.detail.slice(0, 60));
    expect(JSON.stringify(messages)).not.toContain('sk-test-2f9c81d7e4a6');
    // The url's query values are in no SNS message body: the alarm's description showed it by structure.
    for (const value of QUERY_VALUES) expect(JSON.stringify(messages)).not.toContain(value);
    expect(result.published && result.brief.text).toContain('?read_only=***&tenant=***&limit=***');

    const dir = process.env.MCP_CANARY_CAPTURE_DIR;
    if (dir && result.published) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'brief.txt'), `${result.brief.text}\n`);
      writeFileSync(join(dir, 'brief-chat.json'), `${JSON.stringify(chat, null, 2)}\n`);
    }
  });

  it('still briefs when a region has no run log, and says so', async () => {
    await writeRunLog(
      'us-east-1',
      verdicts.failed.map((v, i) => record(v, 'us-east-1', minute(i + 1))),
    );
    await writeRunLog(
      'eu-west-1',
      verdicts.failed.map((v, i) => record(v, 'eu-west-1', minute(i + 1))),
    );
    const { topicArn, queueUrl } = await briefsQueue();
    const result = await briefAlarmChange(alarmEvent(critical, { state: 'ALARM', previous: 'OK', at: minute(4) }), deps(topicArn));
    expect(result.published).toBe(true);
    const chat = JSON.parse((await received(queueUrl))[0]!.Message) as ChatNotification;
    expect(chat.content.description).toContain(
      `ap-southeast-2: ⚠️ its run log could not be read: log group ${LOG_GROUP} does not exist in ap-southeast-2`,
    );
  });

  it('publishes nothing for an OK that resolves no alarm, or for another fleet', async () => {
    const { topicArn, queueUrl } = await briefsQueue();
    expect(
      await briefAlarmChange(alarmEvent(critical, { state: 'OK', previous: 'INSUFFICIENT_DATA', at: minute(1) }), deps(topicArn)),
    ).toMatchObject({ published: false });
    const other = deps(topicArn);
    expect(
      await briefAlarmChange(alarmEvent(critical, { state: 'ALARM', previous: 'OK', at: minute(1) }), {
        ...other,
        env: { ...other.env, fleet: 'Other' },
      }),
    ).toMatchObject({ published: false });
    // A target alarm keeping its state has nothing to say, and neither does a new dead-man alarm.
    expect(
      await briefAlarmChange(alarmEvent(critical, { state: 'INSUFFICIENT_DATA', previous: 'ALARM', at: minute(2) }), deps(topicArn)),
    ).toMatchObject({ published: false });
    expect(
      await briefAlarmChange(
        alarmEvent(deadMan, { state: 'INSUFFICIENT_DATA', previous: 'INSUFFICIENT_DATA', at: minute(2) }),
        deps(topicArn),
      ),
    ).toMatchObject({ published: false });
    expect(await received(queueUrl)).toEqual([]);
  });

  it("briefs the canary owner when every region fell silent (the dead-man's INSUFFICIENT_DATA after runs had arrived)", async () => {
    const { topicArn, queueUrl } = await briefsQueue();
    const result = await briefAlarmChange(
      alarmEvent(deadMan, { state: 'INSUFFICIENT_DATA', previous: 'OK', at: minute(9) }),
      deps(topicArn),
    );
    expect(result.published).toBe(true);
    const [delivered] = await received(queueUrl);
    expect(delivered!.Subject).toBe('INSUFFICIENT_DATA: no run of rates-prod in any of its 3 regions: the canary is silent everywhere');
  });

  it('briefs the end of that silence, but not the first OK of a new alarm', async () => {
    const { topicArn, queueUrl } = await briefsQueue();
    const fresh = {
      state: 'OK',
      previous: 'INSUFFICIENT_DATA',
      at: minute(3),
      previousReason: 'Unchecked: Initial alarm creation',
    } as const;
    expect(await briefAlarmChange(alarmEvent(deadMan, fresh), deps(topicArn))).toMatchObject({ published: false });
    const back = await briefAlarmChange(
      alarmEvent(deadMan, { state: 'OK', previous: 'INSUFFICIENT_DATA', at: minute(12) }),
      deps(topicArn),
    );
    expect(back.published).toBe(true);
    const [delivered] = await received(queueUrl);
    expect(delivered!.Subject).toBe('OK: runs of rates-prod are recorded again in its regions');
  });

  it('fails loudly when it cannot publish, so Lambda retries and then dead-letters it', async () => {
    await expect(
      briefAlarmChange(
        alarmEvent(critical, { state: 'ALARM', previous: 'OK', at: minute(4) }),
        deps(`arn:aws:sns:${HOME}:123456789012:no-such-topic`),
      ),
    ).rejects.toThrow();
  });
});
