/**
 * A probe-region stack as synthesized: every schedule knob, the run functions, and IAM scoped to what a
 * run does (its log, the fleet namespace, the secrets its targets reference; nothing else).
 */
import { describe, expect, it } from 'vitest';
import { EnvVar } from '../../../functions/base/config/env/env.ts';
import { lambdaTimeoutSeconds } from '../../../functions/base/config/schema/budget.ts';
import { SCHEDULE_MAX_EVENT_AGE_SECONDS } from '../../../infra/constructs/schedules.ts';
import { planFleet } from '../../../infra/plan/plan.ts';
import { alarmsOf, render } from '../../helpers/infra/cfn.ts';
import { resourcesOf, smallFleet, synthFleet, type CfnTemplate } from '../../helpers/infra/synth.ts';

const config = smallFleet();
const synth = synthFleet(config);
const eu = synth.json('McpCanary-probe-eu-west-1');
const home = synth.json('McpCanary-probe-us-east-1');
const plan = planFleet(config);

function logicalId(t: CfnTemplate, type: string, pred: (p: Record<string, unknown>) => boolean): string {
  const hit = resourcesOf(t, type).find(([, p]) => pred(p));
  if (!hit) throw new Error(`no ${type}`);
  return hit[0];
}
function policyStatements(t: CfnTemplate, roleDescription: string) {
  const [, role] = resourcesOf(t, 'AWS::IAM::Role').find(([, p]) => String(p.Description).startsWith(roleDescription))!;
  expect(role.ManagedPolicyArns).toBeUndefined();
  const policies = role.Policies as Array<{ PolicyDocument: { Statement: Array<Record<string, unknown>> } }>;
  return { role, statements: policies.flatMap((p) => p.PolicyDocument.Statement) };
}
const asList = (v: unknown) => (Array.isArray(v) ? v : [v]);

describe('schedules', () => {
  const schedules = resourcesOf(eu, 'AWS::Scheduler::Schedule').map(([, p]) => p);
  const fnId = (name: string) => logicalId(eu, 'AWS::Lambda::Function', (p) => p.FunctionName === name);

  it('are one per group of targets sharing a rate, named <fleet>-<rate>-<nnn>', () => {
    expect(schedules.map((s) => [s.Name, s.ScheduleExpression])).toEqual([
      ['McpCanary-1m-000', 'rate(1 minute)'],
      ['McpCanary-5m-000', 'rate(5 minutes)'],
    ]);
    const group = logicalId(eu, 'AWS::Scheduler::ScheduleGroup', (p) => p.Name === 'McpCanary');
    expect(schedules.every((s) => JSON.stringify(s.GroupName) === JSON.stringify({ Ref: group }))).toBe(true);
  });

  it('run on time or not at all: no flexible window, no retries, shortest event age, a dead-letter queue', () => {
    const dlq = logicalId(eu, 'AWS::SQS::Queue', (p) => p.QueueName === 'McpCanary-schedule-dlq');
    for (const s of schedules) {
      expect(s.FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
      expect(s.State).toBe('ENABLED');
      const target = s.Target as Record<string, unknown>;
      expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: SCHEDULE_MAX_EVENT_AGE_SECONDS });
      expect(SCHEDULE_MAX_EVENT_AGE_SECONDS).toBe(60);
      expect(target.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [dlq, 'Arn'] } });
    }
  });

  it('invoke the function of their rate with the planned payload', () => {
    const region = plan.regions.find((r) => r.region === 'eu-west-1')!;
    const expected = region.rates.flatMap((r) => r.schedules.map((s) => ({ fn: `McpCanary-run-${r.rateSlug}`, input: s.input })));
    expect(
      schedules.map((s) => {
        const t = s.Target as Record<string, unknown>;
        return { fn: (t.Arn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0], input: t.Input };
      }),
    ).toEqual(expected.map((e) => ({ fn: fnId(e.fn), input: e.input })));
    expect(schedules.every((s) => !String((s.Target as { Input: string }).Input).includes('"headers"'))).toBe(true);
  });

  it('assume a role that may invoke only the run functions and dead-letter only to the queue', () => {
    const { role, statements } = policyStatements(eu, 'EventBridge Scheduler invokes');
    expect(JSON.stringify(role.AssumeRolePolicyDocument)).toContain('scheduler.amazonaws.com');
    expect(JSON.stringify(role.AssumeRolePolicyDocument)).toContain('aws:SourceAccount');
    expect(statements.map((s) => [s.Action, asList(s.Resource).map(render)])).toEqual([
      ['lambda:InvokeFunction', [`\${${fnId('McpCanary-run-1m')}.Arn}`, `\${${fnId('McpCanary-run-5m')}.Arn}`]],
      ['sqs:SendMessage', [`\${${logicalId(eu, 'AWS::SQS::Queue', () => true)}.Arn}`]],
    ]);
  });
});

describe('run functions', () => {
  const fns = resourcesOf(eu, 'AWS::Lambda::Function').map(([, p]) => p);

  it('are Node 24 on arm64, ESM bundles, one per rate with a timeout that fits under the period', () => {
    expect(fns.map((f) => [f.FunctionName, f.Timeout])).toEqual([
      ['McpCanary-run-1m', lambdaTimeoutSeconds(30_000)],
      ['McpCanary-run-5m', lambdaTimeoutSeconds(120_000)],
    ]);
    for (const f of fns) {
      expect(f).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler', MemorySize: 256 });
      expect((f.Environment as { Variables: Record<string, string> }).Variables).toEqual({
        [EnvVar.homeRegion]: 'us-east-1',
        [EnvVar.namespace]: 'McpCanary',
        [EnvVar.runLedger]: { Ref: logicalId(eu, 'AWS::DynamoDB::Table', (p) => p.TableName === 'McpCanary-run-ledger') },
      });
    }
  });

  it('are never retried late by Lambda: no async retry, the shortest event age, dropped events to the dead-letter queue', () => {
    const dlq = logicalId(eu, 'AWS::SQS::Queue', (p) => p.QueueName === 'McpCanary-schedule-dlq');
    const configs = resourcesOf(eu, 'AWS::Lambda::EventInvokeConfig').map(([, p]) => p);
    expect(configs).toHaveLength(fns.length);
    for (const c of configs) {
      expect(c).toMatchObject({
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: 60,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlq, 'Arn'] } } },
      });
    }
  });

  it('log to one named log group per region with retention set', () => {
    const [group, props] = resourcesOf(eu, 'AWS::Logs::LogGroup')[0]!;
    expect(props).toMatchObject({ LogGroupName: '/mcp-canary/McpCanary/run', RetentionInDays: 30 });
    for (const f of fns) expect(f.LoggingConfig).toEqual({ LogGroup: { Ref: group } });
  });

  it('may write their log, put metrics only in the fleet namespace, and read only secrets under mcp-canary/', () => {
    const { statements } = policyStatements(eu, 'mcp-canary run');
    const group = resourcesOf(eu, 'AWS::Logs::LogGroup')[0]![0];
    expect(statements.map((s) => [s.Action, asList(s.Resource).map(render), s.Condition])).toEqual([
      [['logs:CreateLogStream', 'logs:PutLogEvents'], [`\${${group}.Arn}`], undefined],
      ['cloudwatch:PutMetricData', ['*'], { StringEquals: { 'cloudwatch:namespace': 'McpCanary' } }],
      [
        'secretsmanager:GetSecretValue',
        ['arn:${AWS::Partition}:secretsmanager:eu-west-1:${AWS::AccountId}:secret:mcp-canary/*'],
        undefined,
      ],
      // Batched reads: no resource type; it returns only what GetSecretValue above allows.
      ['secretsmanager:BatchGetSecretValue', ['*'], undefined],
      [
        ['ssm:GetParameter', 'ssm:GetParameters'],
        ['arn:${AWS::Partition}:ssm:eu-west-1:${AWS::AccountId}:parameter/mcp-canary/*'],
        undefined,
      ],
    ]);
    expect(JSON.stringify(statements)).not.toMatch(/kms:|secretsmanager:\*|ssm:\*|logs:\*/);
  });

  it("read a secret given by ARN in the ARN's region and account, and grant no secret read when none is referenced", () => {
    const s = synthFleet({
      homeRegion: 'eu-west-1',
      targets: [
        {
          name: 'a',
          url: 'https://a.example.com/mcp',
          headerSecrets: {
            Authorization: { secretsManager: 'arn:aws:secretsmanager:us-east-1:111122223333:secret:mcp-canary/shared-token' },
          },
        },
      ],
    });
    const { statements } = policyStatements(s.json('McpCanary-probe-eu-west-1'), 'mcp-canary run');
    expect(asList(statements.find((x) => x.Action === 'secretsmanager:GetSecretValue')!.Resource)).toEqual([
      'arn:aws:secretsmanager:us-east-1:111122223333:secret:mcp-canary/*',
    ]);
    const open = synthFleet({ homeRegion: 'eu-west-1', targets: [{ name: 'open', url: 'https://open.example.com/mcp' }] });
    const { statements: openStatements } = policyStatements(open.json('McpCanary-probe-eu-west-1'), 'mcp-canary run');
    expect(openStatements.map((x) => x.Action)).toEqual([['logs:CreateLogStream', 'logs:PutLogEvents'], 'cloudwatch:PutMetricData']);
  });
});

describe('the canary owner in a probe region', () => {
  it("hears about run function errors, throttles and dropped events (N periods in a row), dead-lettered runs and the run's own faults, on a regional topic", () => {
    const alarms = alarmsOf(eu as never);
    const topic = logicalId(eu, 'AWS::SNS::Topic', (p) => p.TopicName === 'McpCanary-canary-owner');
    expect(alarms.map((a) => a.AlarmName).sort()).toEqual([
      'McpCanary/canary/delivery-dlq',
      'McpCanary/canary/run-1m-errors',
      'McpCanary/canary/run-5m-errors',
      'McpCanary/canary/run-credentials',
      'McpCanary/canary/run-ledger',
      'McpCanary/canary/run-publish',
      'McpCanary/canary/schedule-dlq',
    ]);
    const errors = alarms.find((a) => a.AlarmName.endsWith('/run-1m-errors'))!;
    expect(errors).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'notBreaching',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(errors.Metrics!.find((m) => m.ReturnData !== false)!.Expression).toBe('errors + throttles + dropped');
    expect(
      errors.Metrics!.filter((m) => m.MetricStat).map((m) => [m.MetricStat!.Metric.MetricName, m.MetricStat!.Stat, m.MetricStat!.Period]),
    ).toEqual([
      ['Errors', 'Sum', 60],
      ['Throttles', 'Sum', 60],
      ['AsyncEventsDropped', 'Sum', 60],
    ]);
    // The run's own faults: the CanaryFaults metric the run writes in this region (EMF), 2 of 3 periods of the fastest schedule
    for (const fault of ['ledger', 'publish', 'credentials']) {
      const own = resourcesOf(eu, 'AWS::CloudWatch::Alarm').find(([, p]) => p.AlarmName === `McpCanary/canary/run-${fault}`)![1];
      expect(own).toMatchObject({
        Namespace: 'McpCanary',
        MetricName: 'CanaryFaults',
        Dimensions: [
          { Name: 'Fault', Value: fault },
          { Name: 'service', Value: 'mcp-canary-run' },
        ],
        Statistic: 'Sum',
        Period: 60,
        Threshold: 1,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        TreatMissingData: 'notBreaching',
      });
    }
    for (const a of alarms) {
      expect(a.AlarmActions).toEqual([{ Ref: topic }]);
      expect(a.OKActions).toEqual([{ Ref: topic }]);
    }
  });

  it('is told when SNS could not deliver to one of its subscribers: a redrive queue with an alarm', () => {
    const dlq = logicalId(eu, 'AWS::SQS::Queue', (p) => p.QueueName === 'McpCanary-delivery-dlq');
    const [, alarm] = resourcesOf(eu, 'AWS::CloudWatch::Alarm').find(([, p]) => p.AlarmName === 'McpCanary/canary/delivery-dlq')!;
    expect(alarm).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Period: 60,
    });
    expect(render((alarm.Dimensions as Array<{ Value: unknown }>)[0]!.Value)).toBe(`\${${dlq}.QueueName}`);
  });

  it('in the home region uses the home canary-owner topic instead of a second one', () => {
    expect(resourcesOf(home, 'AWS::SNS::Topic')).toEqual([]);
    for (const a of alarmsOf(home as never))
      expect(a.AlarmActions!.map(render)).toEqual(['arn:${AWS::Partition}:sns:us-east-1:${AWS::AccountId}:McpCanary-canary-owner']);
  });

  it('keeps the dead-letter queue encrypted, TLS-only, for 14 days', () => {
    const [, q] = resourcesOf(eu, 'AWS::SQS::Queue')[0]!;
    expect(q).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    const [, policy] = resourcesOf(eu, 'AWS::SQS::QueuePolicy')[0]!;
    expect(JSON.stringify(policy)).toContain('"aws:SecureTransport":"false"');
  });
});

describe('overflow schedule stacks', () => {
  it("hold the schedules past what the main stack holds and reach the region's functions and queue by name", () => {
    // ~1.2 KB per target: five to a payload, 120 schedules, more than the main stack's share of 800 KB.
    const targets = Array.from({ length: 600 }, (_, i) => ({
      name: `t${String(i).padStart(3, '0')}`,
      url: `https://t${i}.example.com/mcp`,
      tool: { name: 'ping', arguments: { echo: 'z'.repeat(1100) } },
    }));
    const s = synthFleet({ homeRegion: 'eu-west-1', targets });
    const overflowStacks = s.fleet.probeStacks.filter((x) => x.stackName.startsWith('McpCanary-probe-eu-west-1-'));
    expect(overflowStacks.length).toBeGreaterThan(0);
    const name = overflowStacks[0]!.stackName;
    const schedules = resourcesOf(s.json(name), 'AWS::Scheduler::Schedule').map(([, p]) => p);
    const planned = s.fleet.plan.regions[0]!.scheduleStacks[1]!;
    expect(schedules.map((x) => x.Name)).toEqual(planned.map((p) => `McpCanary-${p.rateSlug}-${String(p.index).padStart(3, '0')}`));
    const target = schedules[0]!.Target as Record<string, unknown>;
    expect(render(target.Arn)).toBe('arn:${AWS::Partition}:lambda:eu-west-1:${AWS::AccountId}:function:McpCanary-run-1m');
    expect(render((target.DeadLetterConfig as { Arn: unknown }).Arn)).toBe(
      'arn:${AWS::Partition}:sqs:eu-west-1:${AWS::AccountId}:McpCanary-schedule-dlq',
    );
    expect(schedules[0]!.GroupName).toBe('McpCanary');
    expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 });
    const main = s.fleet.probeStacks.find((x) => x.stackName === 'McpCanary-probe-eu-west-1')!;
    for (const extra of overflowStacks) expect(extra.dependencies).toContain(main);
    // Every schedule is deployed once, in main or in one overflow stack.
    const all = [...s.templates.keys()]
      .filter((n) => n.startsWith('McpCanary-probe-eu-west-1'))
      .flatMap((n) => resourcesOf(s.json(n), 'AWS::Scheduler::Schedule').map(([, p]) => p.Name));
    expect(all.sort()).toEqual(
      s.fleet.plan.regions[0]!.rates[0]!.schedules.map((p) => `McpCanary-1m-${String(p.index).padStart(3, '0')}`).sort(),
    );
  });
});
