/**
 * Every quota check is live: a template at the limit passes and one just past it fires, with a one-line
 * message naming the stack, the resource and the fix. The templates are built to size here (support/
 * quota-templates.ts); the checker is the one `cdk synth` runs (infra/quotas).
 */
import { describe, expect, it } from 'vitest';
import { checkStack, type StackToCheck } from '../../../infra/quotas/check.ts';
import { LENGTH_RULES } from '../../../infra/quotas/lengths.ts';
import { Quotas } from '../../../infra/quotas/limits.ts';
import { bytes, chars, one, padded, policy, runRoleWithSecrets, STACK, stackWith, times } from '../../helpers/infra/quota-templates.ts';

interface Case {
  readonly rule: string;
  readonly limit: number;
  /** A stack whose measured quantity is exactly `n`. */
  readonly build: (n: number) => StackToCheck;
  /** The resource the finding names; absent for the template as a whole. */
  readonly logicalId?: string;
}

const role = (props: Record<string, unknown>) => ({
  Type: 'AWS::IAM::Role',
  Properties: { AssumeRolePolicyDocument: policy(''), ...props },
});
const inline = (doc: unknown) => [{ PolicyName: 'p', PolicyDocument: doc }];
const alarm = (props: Record<string, unknown>) =>
  one('AWS::CloudWatch::Alarm', {
    AlarmName: 'a',
    ComparisonOperator: 'GreaterThanThreshold',
    EvaluationPeriods: 1,
    Threshold: 1,
    ...props,
  });
const metricStat = (i: number) => ({
  Id: `m${i}`,
  ReturnData: false,
  MetricStat: { Metric: { Namespace: 'NS', MetricName: 'M' }, Period: 60, Stat: 'Sum' },
});
const dashboard = (body: unknown) => one('AWS::CloudWatch::Dashboard', { DashboardBody: JSON.stringify(body) });
const metricRow = (i: number) => ['NS', 'M', 'D', `v${i}`];
const metricWidget = (rows: unknown[]) => ({ type: 'metric', properties: { metrics: [[{ expression: 'SUM(METRICS())' }], ...rows] } });
const queuePolicy = (doc: unknown) => one('AWS::SQS::QueuePolicy', { PolicyDocument: doc, Queues: ['q'] });
const statement = (extra: Record<string, unknown>) => ({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Resource: '*', ...extra }],
});

const CASES: Record<string, Case> = {
  'IAM: inline policy per role': {
    rule: Quotas.rolePolicySize.id,
    limit: 10_240,
    logicalId: 'Subject',
    build: (n) => stackWith(one('AWS::IAM::Role', role({ Policies: inline(padded(n, policy, chars)) }).Properties)),
  },
  'IAM: inline and attached AWS::IAM::Policy together': {
    rule: Quotas.rolePolicySize.id,
    limit: 10_240,
    logicalId: 'Subject',
    build: (n) => {
      const first = policy('x'.repeat(4_000));
      return stackWith({
        Subject: role({ Policies: inline(first) }),
        Attached: {
          Type: 'AWS::IAM::Policy',
          Properties: { PolicyName: 'd', Roles: [{ Ref: 'Subject' }], PolicyDocument: padded(n - chars(first), policy, chars) },
        },
      });
    },
  },
  'IAM: managed policy': {
    rule: Quotas.managedPolicySize.id,
    limit: 6_144,
    logicalId: 'Subject',
    build: (n) => stackWith(one('AWS::IAM::ManagedPolicy', { PolicyDocument: padded(n, policy, chars) })),
  },
  'IAM: trust policy': {
    rule: Quotas.trustPolicySize.id,
    limit: 2_048,
    logicalId: 'Subject',
    build: (n) => stackWith({ Subject: role({ AssumeRolePolicyDocument: padded(n, policy, chars) }) }),
  },
  'IAM: managed policies per role': {
    rule: Quotas.managedPoliciesPerRole.id,
    limit: 10,
    logicalId: 'Subject',
    build: (n) =>
      stackWith({
        Subject: role({ ManagedPolicyArns: times(n - 1, (i) => `arn:aws:iam::aws:policy/P${i}`) }),
        Managed: { Type: 'AWS::IAM::ManagedPolicy', Properties: { Roles: [{ Ref: 'Subject' }], PolicyDocument: policy('') } },
      }),
  },
  'CloudFormation: template bytes (from S3)': {
    rule: Quotas.templateBytes.id,
    limit: 1_000_000,
    build: (n) => stackWith({}, {}, { templateBytes: n }),
  },
  'CloudFormation: resources': {
    rule: Quotas.resources.id,
    limit: 500,
    build: (n) => stackWith(Object.fromEntries(times(n, (i) => [`R${i}`, { Type: 'AWS::CloudFormation::WaitConditionHandle' }]))),
  },
  'CloudFormation: outputs': {
    rule: Quotas.outputs.id,
    limit: 200,
    build: (n) => stackWith({}, { Outputs: Object.fromEntries(times(n, (i) => [`O${i}`, { Value: 'v' }])) }),
  },
  'CloudFormation: parameters': {
    rule: Quotas.parameters.id,
    limit: 200,
    build: (n) => stackWith({}, { Parameters: Object.fromEntries(times(n, (i) => [`P${i}`, { Type: 'String' }])) }),
  },
  'CloudFormation: mappings': {
    rule: Quotas.mappings.id,
    limit: 200,
    build: (n) => stackWith({}, { Mappings: Object.fromEntries(times(n, (i) => [`M${i}`, { k: { v: 'x' } }])) }),
  },
  'CloudFormation: mapping attributes': {
    rule: Quotas.mappingAttributes.id,
    limit: 200,
    build: (n) => stackWith({}, { Mappings: { M: Object.fromEntries(times(n, (i) => [`k${i}`, { v: 'x' }])) } }),
  },
  // 'é' is two bytes: the description is measured in bytes, not characters.
  'CloudFormation: template description (bytes)': {
    rule: Quotas.templateDescription.id,
    limit: 1_024,
    build: (n) => stackWith({}, { Description: 'é'.repeat(Math.floor(n / 2)) + 'x'.repeat(n % 2) }),
  },
  'CloudFormation: stack name': { rule: Quotas.stackName.id, limit: 128, build: (n) => stackWith({}, {}, { stackName: 'S'.repeat(n) }) },
  'CloudFormation: logical id': {
    rule: Quotas.logicalId.id,
    limit: 255,
    logicalId: 'L'.repeat(256),
    build: (n) => stackWith({ ['L'.repeat(n)]: { Type: 'AWS::CloudFormation::WaitConditionHandle' } }),
  },
  // The name is resolved: `Ref: AWS::StackName` counts as the stack's name.
  'CloudWatch: alarm name (resolved)': {
    rule: Quotas.alarmName.id,
    limit: 255,
    logicalId: 'Subject',
    build: (n) => stackWith(alarm({ AlarmName: { 'Fn::Join': ['/', [{ Ref: 'AWS::StackName' }, 'x'.repeat(n - STACK.length - 1)]] } })),
  },
  'CloudWatch: alarm description': {
    rule: Quotas.alarmDescription.id,
    limit: 1_024,
    logicalId: 'Subject',
    build: (n) => stackWith(alarm({ AlarmDescription: 'd'.repeat(n) })),
  },
  'CloudWatch: alarm actions per state': {
    rule: Quotas.alarmActions.id,
    limit: 5,
    logicalId: 'Subject',
    build: (n) =>
      stackWith(
        alarm({
          OKActions: times(n, (i) => `arn:aws:sns:us-east-1:111122223333:t${i}`),
          AlarmActions: ['arn:aws:sns:us-east-1:111122223333:a'],
        }),
      ),
  },
  'CloudWatch: metrics per metric-math alarm': {
    rule: Quotas.alarmMetrics.id,
    limit: 10,
    logicalId: 'Subject',
    build: (n) => stackWith(alarm({ Metrics: [{ Id: 'e', Expression: 'SUM(METRICS())', ReturnData: true }, ...times(n, metricStat)] })),
  },
  'CloudWatch: metric-math expression length': {
    rule: Quotas.alarmExpression.id,
    limit: 2_048,
    logicalId: 'Subject',
    build: (n) => stackWith(alarm({ Metrics: [{ Id: 'e', Expression: `m0+${'1'.repeat(n - 3)}`, ReturnData: true }, metricStat(0)] })),
  },
  'CloudWatch: dimensions per metric': {
    rule: Quotas.alarmDimensions.id,
    limit: 30,
    logicalId: 'Subject',
    build: (n) => stackWith(alarm({ Dimensions: times(n, (i) => ({ Name: `D${i}`, Value: 'v' })) })),
  },
  'CloudWatch: evaluation range of an alarm with a period under an hour': {
    rule: Quotas.alarmEvaluationRange.id,
    limit: 86_400,
    logicalId: 'Subject',
    build: (n) => stackWith(alarm({ Period: 1, EvaluationPeriods: n })),
  },
  'CloudWatch: evaluation range of a metric-math alarm with an hourly period': {
    rule: Quotas.alarmLongEvaluationRange.id,
    limit: 604_800,
    logicalId: 'Subject',
    build: (n) =>
      stackWith(
        alarm({
          EvaluationPeriods: 1,
          Metrics: [
            { Id: 'e', Expression: 'm0', ReturnData: true },
            { ...metricStat(0), MetricStat: { ...metricStat(0).MetricStat, Period: n } },
          ],
        }),
      ),
  },
  'CloudWatch: alarms in a composite alarm rule': {
    rule: Quotas.compositeRuleAlarms.id,
    limit: 100,
    logicalId: 'Subject',
    build: (n) =>
      stackWith(one('AWS::CloudWatch::CompositeAlarm', { AlarmName: 'c', AlarmRule: times(n, (i) => `ALARM("a${i}")`).join(' OR ') })),
  },
  'CloudWatch: composite alarm rule length': {
    rule: Quotas.compositeRuleLength.id,
    limit: 10_240,
    logicalId: 'Subject',
    build: (n) => stackWith(one('AWS::CloudWatch::CompositeAlarm', { AlarmName: 'c', AlarmRule: `ALARM("${'a'.repeat(n - 9)}")` })),
  },
  'CloudWatch: alarms per mute rule': {
    rule: Quotas.muteRuleAlarms.id,
    limit: 100,
    logicalId: 'Subject',
    build: (n) => stackWith(one('AWS::CloudWatch::AlarmMuteRule', { MuteTargets: { AlarmNames: times(n, (i) => `a${i}`) } })),
  },
  'CloudWatch: widgets per dashboard': {
    rule: Quotas.dashboardWidgets.id,
    limit: 500,
    logicalId: 'Subject',
    build: (n) => stackWith(dashboard({ widgets: times(n, () => ({ type: 'text', properties: { markdown: 'x' } })) })),
  },
  'CloudWatch: metrics per widget (an expression row is not a metric)': {
    rule: Quotas.dashboardWidgetMetrics.id,
    limit: 500,
    logicalId: 'Subject',
    build: (n) => stackWith(dashboard({ widgets: [metricWidget(times(n, metricRow))] })),
  },
  'CloudWatch: metrics per dashboard': {
    rule: Quotas.dashboardMetrics.id,
    limit: 2_500,
    logicalId: 'Subject',
    build: (n) =>
      stackWith(dashboard({ widgets: times(Math.ceil(n / 500), (w) => metricWidget(times(Math.min(500, n - w * 500), metricRow))) })),
  },
  'CloudWatch: alarms per alarm status widget': {
    rule: Quotas.dashboardAlarms.id,
    limit: 100,
    logicalId: 'Subject',
    build: (n) =>
      stackWith(
        dashboard({
          widgets: [{ type: 'alarm', properties: { alarms: times(n, (i) => `arn:aws:cloudwatch:us-east-1:111122223333:alarm:a${i}`) } }],
        }),
      ),
  },
  'Scheduler: target input (bytes)': {
    rule: Quotas.scheduleInput.id,
    limit: 262_144,
    logicalId: 'Subject',
    build: (n) =>
      stackWith(
        one('AWS::Scheduler::Schedule', {
          Target: {
            Arn: 'arn:aws:lambda:us-east-1:111122223333:function:f',
            Input: padded(n, (pad) => JSON.stringify({ targets: [{ name: 't', pad }] }), bytes),
          },
        }),
      ),
  },
  'Lambda: environment variables (their JSON, bytes)': {
    rule: Quotas.lambdaEnvironment.id,
    limit: 4_096,
    logicalId: 'Subject',
    build: (n) => stackWith(one('AWS::Lambda::Function', { Environment: { Variables: padded(n, (pad) => ({ A: 'a', B: pad }), bytes) } })),
  },
  'Lambda: reserved concurrency (none on an account whose quota a new account may have)': {
    rule: Quotas.reservedConcurrency.id,
    limit: 0,
    logicalId: 'Subject',
    build: (n) => stackWith(one('AWS::Lambda::Function', { ReservedConcurrentExecutions: n })),
  },
  // n chains of two alarms each (the second DependsOn the first), and a composite after one chain's last alarm:
  // CloudFormation can create one alarm of each chain at once.
  'CloudWatch: alarms CloudFormation can create at once': {
    rule: Quotas.alarmsInFlight.id,
    limit: 3,
    build: (n) =>
      stackWith({
        ...Object.fromEntries(
          times(n, (i) => [
            [`A${i}x`, alarm({ AlarmName: `a${i}x` }).Subject],
            [`A${i}y`, { ...alarm({ AlarmName: `a${i}y` }).Subject, DependsOn: [`A${i}x`] }],
          ]).flat(),
        ),
        Composite: {
          Type: 'AWS::CloudWatch::CompositeAlarm',
          Properties: { AlarmName: 'c', AlarmRule: 'ALARM("a0x") AND ALARM("a0y")' },
          DependsOn: ['A0y', 'A0x'],
        },
      }),
  },
  'SNS: topic policy (bytes)': {
    rule: Quotas.snsPolicySize.id,
    limit: 30_720,
    logicalId: 'Subject',
    build: (n) => stackWith(one('AWS::SNS::TopicPolicy', { Topics: ['t'], PolicyDocument: padded(n, policy, bytes) })),
  },
  'SNS: topic policy statements': {
    rule: Quotas.snsPolicyStatements.id,
    limit: 100,
    logicalId: 'Subject',
    build: (n) =>
      stackWith(
        one('AWS::SNS::TopicPolicy', {
          Topics: ['t'],
          PolicyDocument: { Statement: times(n, () => ({ Effect: 'Allow', Action: 'sns:Publish' })) },
        }),
      ),
  },
  'SQS: queue policy (bytes)': {
    rule: Quotas.sqsPolicySize.id,
    limit: 8_192,
    logicalId: 'Subject',
    build: (n) => stackWith(queuePolicy(padded(n, policy, bytes))),
  },
  'SQS: queue policy statements': {
    rule: Quotas.sqsPolicyStatements.id,
    limit: 20,
    logicalId: 'Subject',
    build: (n) => stackWith(queuePolicy({ Statement: times(n, () => ({ Effect: 'Allow', Action: 'sqs:SendMessage' })) })),
  },
  'SQS: queue policy conditions': {
    rule: Quotas.sqsPolicyConditions.id,
    limit: 10,
    logicalId: 'Subject',
    build: (n) =>
      stackWith(
        queuePolicy(
          statement({ Action: 'sqs:SendMessage', Condition: { StringEquals: Object.fromEntries(times(n, (i) => [`k${i}`, 'v'])) } }),
        ),
      ),
  },
  'SQS: queue policy principals': {
    rule: Quotas.sqsPolicyPrincipals.id,
    limit: 50,
    logicalId: 'Subject',
    build: (n) =>
      stackWith(
        queuePolicy(
          statement({ Action: 'sqs:SendMessage', Principal: { AWS: times(n, (i) => `arn:aws:iam::${String(i).padStart(12, '0')}:root`) } }),
        ),
      ),
  },
  'SQS: actions per statement': {
    rule: Quotas.sqsPolicyActions.id,
    limit: 7,
    logicalId: 'Subject',
    build: (n) => stackWith(queuePolicy(statement({ Action: times(n, (i) => `sqs:A${i}`) }))),
  },
  'EventBridge: targets per rule': {
    rule: Quotas.ruleTargets.id,
    limit: 5,
    logicalId: 'Subject',
    build: (n) =>
      stackWith(one('AWS::Events::Rule', { Targets: times(n, (i) => ({ Id: `t${i}`, Arn: 'arn:aws:sqs:us-east-1:111122223333:q' })) })),
  },
  'EventBridge: event pattern': {
    rule: Quotas.eventPattern.id,
    limit: 2_048,
    logicalId: 'Subject',
    build: (n) =>
      stackWith(
        one('AWS::Events::Rule', {
          EventPattern: padded(n, (pad) => ({ source: ['aws.cloudwatch'], detail: { alarmName: [pad] } }), chars),
        }),
      ),
  },
};

for (const r of LENGTH_RULES) {
  CASES[`${r.type}.${r.property} (${r.max} characters)`] = {
    rule: `length-${r.type.split('::').slice(1).join('-').toLowerCase()}-${r.property.toLowerCase()}`,
    limit: r.max,
    logicalId: 'Subject',
    build: (n) => stackWith(one(r.type, { [r.property]: 'n'.repeat(n) })),
  };
}

const rulesFound = (s: StackToCheck) => checkStack(s).map((f) => f.rule);

describe('each AWS quota fires just past its limit and not at it', () => {
  it.each(Object.entries(CASES))('%s', (_name, c) => {
    // Prepare
    const atLimit = c.build(c.limit);
    const past = c.build(c.limit + 1);
    // Act
    const passes = rulesFound(atLimit);
    const fires = checkStack(past).filter((f) => f.rule === c.rule);
    // Assess
    expect(passes).not.toContain(c.rule);
    expect(fires).toHaveLength(1);
    const [finding] = fires;
    expect(finding!.measured).toBe(c.limit + 1);
    expect(finding!.limit).toBe(c.limit);
    expect(finding!.logicalId).toBe(c.logicalId);
    expect(finding!.message).not.toContain('\n');
    expect(finding!.message.startsWith(`${past.stackName}: ${c.logicalId ?? 'the template'} `)).toBe(true);
    expect(finding!.message).toContain(`allows ${c.limit.toLocaleString('en-US')} `);
    expect(finding!.message).toMatch(/\. Fix: .+\.$/);
    expect(finding!.source).toMatch(/^https:\/\/docs\.aws\.amazon\.com\//);
  });

  it('covers every quota in limits.ts', () => {
    const covered = new Set(Object.values(CASES).map((c) => c.rule));
    expect(
      Object.values(Quotas)
        .filter((q) => !covered.has(q.id))
        .map((q) => q.id),
    ).toEqual([]);
  });
});

describe('the run role at 200 credentialed targets in one region (the shape today synthesizes)', () => {
  it('is refused, naming the role, the secrets and the fix', () => {
    const [finding] = checkStack(stackWith({ RunRole2D500A0A: runRoleWithSecrets(200) }));
    expect(finding!.rule).toBe(Quotas.rolePolicySize.id);
    expect(finding!.message).toMatch(/^Quota-test: RunRole2D500A0A \(role RunRole\) has 16,\d{3} characters of inline policy/);
    expect(finding!.message).toContain(
      'IAM allows 10,240 per role, its inline policies and attached AWS::IAM::Policy together (200 of its resources are secrets its targets reference)',
    );
    expect(finding!.message).toContain(
      'Fix: grant fewer resources: each account and region a secret ARN points to (headerSecrets, auth.oauth) adds a statement',
    );
  });

  it('counts each ARN at its longest: an environment-agnostic stack gets the longest partition and region', () => {
    const known = checkStack(stackWith({ R: runRoleWithSecrets(200) }))[0]!.measured;
    const agnostic = checkStack(stackWith({ R: runRoleWithSecrets(200) }, {}, { region: undefined, account: undefined }))[0]!.measured;
    // `aws` → `aws-us-gov` in each of the 200 ARNs: 7 characters more each. The region is literal in these ARNs.
    expect(agnostic - known).toBe(200 * 'aws-us-gov'.length - 200 * 'aws'.length);
  });

  it('fires from the first count whose policy, as IAM will read it, is over 10,240 characters', () => {
    // The same policy with every ARN written out by hand, as CloudFormation resolves it in us-east-1.
    const literal = (n: number) =>
      (
        runRoleWithSecrets(n).Properties!.Policies as Array<{ PolicyDocument: { Statement: Array<{ Resource: unknown }> } }>
      )[0]!.PolicyDocument.Statement.map((s) => ({
        ...s,
        Resource: times(n, (i) => `arn:aws:secretsmanager:us-east-1:111122223333:secret:mcp-canary/svc-${i}-??????`),
      }));
    const expected = (n: number) => chars({ Version: '2012-10-17', Statement: literal(n) }) > 10_240;
    const fires = (n: number) => checkStack(stackWith({ R: runRoleWithSecrets(n) })).some((f) => f.rule === Quotas.rolePolicySize.id);
    const counts = times(20, (i) => 120 + i);
    expect(counts.map(fires)).toEqual(counts.map(expected));
    expect(counts.map(fires)).toContain(true);
    expect(counts.map(fires)).toContain(false);
  });
});
