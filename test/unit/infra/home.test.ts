/**
 * The home stack as synthesized: TLS-only topics with the configured subscribers, the brief function
 * (its rule, retries, dead-letter queue, IAM scope), the canary owner's alarms on verdicts that cannot
 * judge, and the dashboard.
 */
import { describe, expect, it } from 'vitest';
import { BriefEnvVar } from '../../../functions/base/config/env/brief-env.ts';
import { HTTPS_DELIVERY_POLICY, httpsRetrySeconds, SNS_MAX_RETRY_SECONDS } from '../../../infra/constructs/topics.ts';
import { alarmsOf, dims, render } from '../../helpers/infra/cfn.ts';
import { resourcesOf, smallFleet, synthFleet } from '../../helpers/infra/synth.ts';

const synth = synthFleet(smallFleet());
const home = synth.json('McpCanary-home');
const topicId = (name: string) => resourcesOf(home, 'AWS::SNS::Topic').find(([, p]) => p.TopicName === name)![0];

describe('topics', () => {
  it('keep retrying a page for close to the hour SNS allows, then dead-letter it where the canary owner hears of it', () => {
    const [, https] = resourcesOf(home, 'AWS::SNS::Subscription').find(([, p]) => p.Protocol === 'https')!;
    expect(https.DeliveryPolicy).toEqual(HTTPS_DELIVERY_POLICY);
    const { min, max } = httpsRetrySeconds();
    expect(max).toBeLessThanOrEqual(SNS_MAX_RETRY_SECONDS);
    expect(min).toBeGreaterThanOrEqual(45 * 60);
    const dlq = resourcesOf(home, 'AWS::SQS::Queue').find(([, p]) => p.QueueName === 'McpCanary-delivery-dlq')![0];
    // Every subscription SNS can report a failure for redrives to it; email (no delivery report) does not.
    for (const [, sub] of resourcesOf(home, 'AWS::SNS::Subscription')) {
      expect(sub.RedrivePolicy).toEqual(sub.Protocol === 'email' ? undefined : { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] } });
    }
    const [, queuePolicy] = resourcesOf(home, 'AWS::SQS::QueuePolicy').find(([, p]) => JSON.stringify(p.Queues).includes(dlq))!;
    const allows = (queuePolicy.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement.filter(
      (x) => x.Effect === 'Allow',
    );
    expect(allows.map((x) => [x.Action, (x.Condition as { ArnEquals: Record<string, unknown> }).ArnEquals['aws:SourceArn']])).toEqual(
      ['McpCanary-pages', 'McpCanary-briefs'].map((t) => ['sqs:SendMessage', { Ref: topicId(t) }]),
    );
    const [, alarm] = resourcesOf(home, 'AWS::CloudWatch::Alarm').find(([, p]) => p.AlarmName === 'McpCanary/canary/delivery-dlq')!;
    expect(alarm.AlarmActions).toEqual([{ Ref: topicId('McpCanary-canary-owner') }]);
  });

  it("let only this fleet's alarms publish: the pattern ends at the fleet name exactly", () => {
    const statements = resourcesOf(home, 'AWS::SNS::TopicPolicy').flatMap(
      ([, p]) => (p.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement,
    );
    const sources = statements
      .filter((x) => x.Sid === 'AllowFleetAlarmsToPublish')
      .map((x) => render((x.Condition as { ArnLike: Record<string, unknown> }).ArnLike['aws:SourceArn']));
    expect(sources).toEqual(Array(3).fill('arn:${AWS::Partition}:cloudwatch:us-east-1:${AWS::AccountId}:alarm:McpCanary/*'));
  });

  it('are pages, tickets, canary owner and briefs, each TLS-only, with their ARNs as outputs', () => {
    const topics = resourcesOf(home, 'AWS::SNS::Topic').map(([, p]) => p.TopicName);
    expect(topics).toEqual(['McpCanary-pages', 'McpCanary-tickets', 'McpCanary-canary-owner', 'McpCanary-briefs']);
    const policies = resourcesOf(home, 'AWS::SNS::TopicPolicy').map(([, p]) => p);
    expect(policies).toHaveLength(4);
    for (const p of policies) {
      const deny = (p.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement.find((s) => s.Effect === 'Deny')!;
      expect(deny.Condition).toEqual({ Bool: { 'aws:SecureTransport': 'false' } });
    }
    expect(Object.values(home.Outputs ?? {}).map((o) => (o as { Value: unknown }).Value)).toEqual(
      topics.map((t) => ({ Ref: topicId(String(t)) })),
    );
  });

  it('deliver to the configured subscribers: PagerDuty over HTTPS, email, SQS, Lambda', () => {
    const subs = resourcesOf(home, 'AWS::SNS::Subscription').map(([, p]) => [p.TopicArn, p.Protocol, p.Endpoint]);
    expect(subs).toEqual([
      [{ Ref: topicId('McpCanary-pages') }, 'https', 'https://events.pagerduty.example.com/integration/abc/enqueue'],
      [{ Ref: topicId('McpCanary-tickets') }, 'email', 'tickets@example.com'],
      [{ Ref: topicId('McpCanary-canary-owner') }, 'email', 'owner@example.com'],
      [{ Ref: topicId('McpCanary-briefs') }, 'sqs', 'arn:aws:sqs:us-east-1:111122223333:briefs'],
      [{ Ref: topicId('McpCanary-briefs') }, 'lambda', 'arn:aws:lambda:us-east-1:111122223333:function:chat-relay'],
    ]);
    const permissions = resourcesOf(home, 'AWS::Lambda::Permission')
      .map(([, p]) => p)
      .filter((p) => p.Principal === 'sns.amazonaws.com');
    expect(permissions).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        FunctionName: 'arn:aws:lambda:us-east-1:111122223333:function:chat-relay',
        Principal: 'sns.amazonaws.com',
        SourceArn: { Ref: topicId('McpCanary-briefs') },
      },
    ]);
  });
});

describe('the brief function', () => {
  const [fnId, fn] = resourcesOf(home, 'AWS::Lambda::Function')[0]!;

  it('runs Node 24 on arm64 with the fleet it briefs in its environment', () => {
    expect(fn).toMatchObject({
      FunctionName: 'McpCanary-brief',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: 60,
    });
    expect((fn.Environment as { Variables: Record<string, unknown> }).Variables).toEqual({
      [BriefEnvVar.topicArn]: { Ref: topicId('McpCanary-briefs') },
      [BriefEnvVar.fleet]: 'McpCanary',
      [BriefEnvVar.runLogGroup]: '/mcp-canary/McpCanary/run',
      [BriefEnvVar.failureThreshold]: '3',
      [BriefEnvVar.probeRegions]: 'us-east-1,eu-west-1,ap-southeast-2',
      // The rule's quorum of the one-region target and of the three-region ones, written at synth.
      [BriefEnvVar.quorum]: '1:1,3:2',
    });
  });

  it("fires on every state change of this fleet's target alarms and nothing else", () => {
    const [, rule] = resourcesOf(home, 'AWS::Events::Rule')[0]!;
    expect(rule.EventPattern).toEqual({
      source: ['aws.cloudwatch'],
      'detail-type': ['CloudWatch Alarm State Change'],
      detail: {
        alarmName: [{ wildcard: 'McpCanary/*/critical' }, { wildcard: 'McpCanary/*/warning' }, { wildcard: 'McpCanary/*/dead-man' }],
      },
    });
    const [target] = rule.Targets as Array<Record<string, unknown>>;
    expect(target!.Arn).toEqual({ 'Fn::GetAtt': [fnId, 'Arn'] });
    expect(target!.RetryPolicy).toEqual({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 });
  });

  it('is retried twice, then dead-lettered; its failures reach the canary owner, never the pages topic', () => {
    const [, invoke] = resourcesOf(home, 'AWS::Lambda::EventInvokeConfig')[0]!;
    const dlq = resourcesOf(home, 'AWS::SQS::Queue').find(([, p]) => p.QueueName === 'McpCanary-brief-dlq')![0];
    expect(invoke).toMatchObject({
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 3600,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlq, 'Arn'] } } },
    });
    const alarms = alarmsOf(home as never);
    expect(alarms.map((a) => a.AlarmName)).toEqual([
      'McpCanary/canary/delivery-dlq',
      'McpCanary/canary/inconclusive-1m',
      'McpCanary/canary/inconclusive-5m',
      'McpCanary/canary/brief-errors',
      'McpCanary/canary/brief-dlq',
    ]);
    for (const a of alarms)
      expect([...(a.AlarmActions ?? []), ...(a.OKActions ?? [])]).toEqual([
        { Ref: topicId('McpCanary-canary-owner') },
        { Ref: topicId('McpCanary-canary-owner') },
      ]);
  });

  it('may read only the run log groups and publish only to the briefs topic', () => {
    const [, role] = resourcesOf(home, 'AWS::IAM::Role').find(([, p]) => String(p.Description).startsWith('mcp-canary brief'))!;
    expect(role.ManagedPolicyArns).toBeUndefined();
    const statements = (role.Policies as Array<{ PolicyDocument: { Statement: Array<Record<string, unknown>> } }>)[0]!.PolicyDocument
      .Statement;
    const logGroup = resourcesOf(home, 'AWS::Logs::LogGroup')[0]![0];
    expect(statements.map((s) => [s.Action, (Array.isArray(s.Resource) ? s.Resource : [s.Resource]).map(render)])).toEqual([
      [['logs:CreateLogStream', 'logs:PutLogEvents'], [`\${${logGroup}.Arn}`]],
      [
        'logs:FilterLogEvents',
        ['us-east-1', 'eu-west-1', 'ap-southeast-2'].flatMap((r) => {
          const arn = `arn:\${AWS::Partition}:logs:${r}:\${AWS::AccountId}:log-group:/mcp-canary/McpCanary/run`;
          return [arn, `${arn}:*`];
        }),
      ],
      ['sns:Publish', [`\${${topicId('McpCanary-briefs')}}`]],
    ]);
  });
});

describe('the dashboard', () => {
  const [, dash] = resourcesOf(home, 'AWS::CloudWatch::Dashboard')[0]!;
  const body = JSON.parse(render(dash.DashboardBody)) as { widgets: Array<{ type: string; properties: Record<string, unknown> }> };

  it('shows the most failing targets from Metrics Insights over the one Verdict metric, whatever the fleet size', () => {
    expect(dash.DashboardName).toBe('McpCanary');
    const queries = body.widgets
      .filter((w) => w.type === 'metric')
      .flatMap((w) =>
        (w.properties.metrics as unknown[][]).flatMap((m) =>
          typeof m[0] === 'object' ? [(m[0] as { expression: string }).expression] : [],
        ),
      );
    expect(queries).toEqual(['SELECT SUM(Verdict) FROM SCHEMA("McpCanary", Target) GROUP BY Target ORDER BY SUM() DESC LIMIT 10']);
  });

  it('scans no logs on refresh: per-region latency and runs come from the RunDuration metric, log queries are saved and linked', () => {
    expect(body.widgets.filter((w) => w.type === 'log')).toEqual([]);
    const regions = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];
    const perRegion = body.widgets
      .filter((w) => w.type === 'metric')
      .flatMap((w) => (w.properties.metrics as unknown[][]).filter((m) => m[0] === 'McpCanary' && m[1] === 'RunDuration'))
      .map((m) => `${String(m[3])} ${(m[4] as { stat: string }).stat}`);
    expect(perRegion).toEqual([
      ...regions.map((r) => `${r} SampleCount`),
      ...regions.map((r) => `${r} p99`),
      ...regions.map((r) => `${r} Maximum`),
    ]);
    const text = body.widgets
      .filter((w) => w.type === 'text')
      .map((w) => String(w.properties.markdown))
      .join('\n');
    expect(text).toContain('mcp-canary/McpCanary/failures-by-class');
    for (const r of regions) expect(text).toContain(`https://${r}.console.aws.amazon.com/cloudwatch/home?region=${r}#logsV2:logs-insights`);
    expect((dash as { DashboardBody: unknown }).DashboardBody).toBeDefined();
    expect(body).toMatchObject({ start: '-PT3H' });
  });

  it('lists the critical alarms of a small fleet', () => {
    const status = body.widgets.find((w) => w.type === 'alarm')!;
    expect(status.properties.alarms).toEqual(
      ['docs', 'rates-prod', 'slow-one'].map(
        (t) => `arn:\${AWS::Partition}:cloudwatch:us-east-1:\${AWS::AccountId}:alarm:McpCanary/${t}/critical`,
      ),
    );
  });
});

describe('the canary owner hears when the canary cannot judge', () => {
  it('one alarm per rate on the fleet-level Inconclusive metric: any in N periods in a row, none is OK, to the canary owner', () => {
    const alarms = alarmsOf(home as never).filter((a) => a.AlarmName.startsWith('McpCanary/canary/inconclusive-'));
    expect(alarms.map((a) => [a.AlarmName, a.Period, dims(a.Dimensions!)])).toEqual([
      ['McpCanary/canary/inconclusive-1m', 60, { Rate: '1m' }],
      ['McpCanary/canary/inconclusive-5m', 300, { Rate: '5m' }],
    ]);
    for (const a of alarms) {
      expect(a).toMatchObject({
        MetricName: 'Inconclusive',
        Namespace: 'McpCanary',
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
        TreatMissingData: 'notBreaching',
      });
      for (const actions of [a.AlarmActions, a.OKActions]) expect(actions).toEqual([{ Ref: topicId('McpCanary-canary-owner') }]);
      expect(a.AlarmDescription.length).toBeLessThanOrEqual(1024);
      expect(a.AlarmDescription).toContain('neither open nor resolve');
    }
  });

  it('names a saved query every probe region has', () => {
    const [a] = alarmsOf(home as never).filter((x) => x.AlarmName.startsWith('McpCanary/canary/inconclusive-'));
    const query = /saved Logs Insights query (\S+) in each probe region/.exec(a!.AlarmDescription)?.[1];
    for (const region of ['us-east-1', 'eu-west-1', 'ap-southeast-2']) {
      const names = resourcesOf(synth.json(`McpCanary-probe-${region}`), 'AWS::Logs::QueryDefinition').map(([, q]) => q.Name);
      expect(names).toContain(query);
    }
  });
});
