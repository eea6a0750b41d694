/**
 * The deploy rehearsal checks itself (test/helpers/infra/rehearsal/): small CDK apps deployed into moto_server
 * show that references across stacks and regions resolve as CloudFormation's, and that each thing the
 * rehearsal must refuse — a type or property nobody rehearses, a missing export, an alarm action naming
 * nothing, a composite alarm or a policy naming an alarm or subnet nobody made, a bootstrap too old —
 * fails with the place named; and the intrinsic functions, one by one.
 * The fleets themselves are rehearsed in rehearsal.test.ts.
 */
import { existsSync } from 'node:fs';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { App, ArnFormat, CfnResource, Fn, Stack } from 'aws-cdk-lib';
import { Alarm, AlarmRule, AlarmState, CompositeAlarm, Metric, type AlarmProps } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnTopic, Topic } from 'aws-cdk-lib/aws-sns';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMoto, type Moto } from '../../helpers/moto.ts';
import { readAssembly } from '../../helpers/infra/rehearsal/assembly.ts';
import { Aws } from '../../helpers/infra/rehearsal/aws.ts';
import { bootstrap } from '../../helpers/infra/rehearsal/bootstrap.ts';
import type { Deployment } from '../../helpers/infra/rehearsal/deployment.ts';
import { rehearse } from '../../helpers/infra/rehearsal/deploy.ts';
import { synthApp } from '../../helpers/infra/rehearsal/fleet.ts';
import { NO_VALUE, resolve, type Scope } from '../../helpers/infra/rehearsal/intrinsics.ts';
import { HANDLERS } from '../../helpers/infra/rehearsal/types/index.ts';
import { describeNeeding } from '../../helpers/tools.ts';

/** Every suite here needs moto_server: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['moto_server']);

let moto: Moto;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  moto = await startMoto({ awsManagedPolicies: true });
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await moto?.stop();
});

describe('the rehearsal itself, on small apps', () => {
  async function deploy(build: (app: App) => void): Promise<Deployment> {
    const a = synthApp(build);
    cleanups.push(a.remove);
    const d = await rehearse(a.dir, moto.endpoint);
    cleanups.push(() => d.aws.destroy());
    return d;
  }
  const failure = (build: (app: App) => void) =>
    deploy(build).then(
      () => 'deployed',
      (e: Error) => `${e.name}: ${e.message}`,
    );
  const alarmIn = (s: Stack, props: Partial<AlarmProps> = {}) =>
    new Alarm(s, 'Alarm', {
      metric: new Metric({ namespace: 'Rehearsal', metricName: 'Probe' }),
      threshold: 1,
      evaluationPeriods: 1,
      ...props,
    });

  it('resolves references across stacks (Fn::ImportValue) and regions (the CDK export writer and reader) as CloudFormation would', async () => {
    const d = await deploy((app) => {
      const producer = new Stack(app, 'XrProducer', { env: { region: 'us-east-1' }, crossRegionReferences: true });
      const topic = new Topic(producer, 'Topic');
      const table = new Table(producer, 'Idempotency', {
        partitionKey: { name: 'id', type: AttributeType.STRING },
        billingMode: BillingMode.PAY_PER_REQUEST,
        timeToLiveAttribute: 'expiration',
      });
      // A managed policy on a role: how a redesigned secret grant might look.
      const role = new Role(producer, 'Reader', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
      new ManagedPolicy(producer, 'ReadSecrets', {
        roles: [role],
        statements: [
          new PolicyStatement({
            actions: ['secretsmanager:GetSecretValue'],
            resources: [
              producer.formatArn({
                service: 'secretsmanager',
                resource: 'secret',
                resourceName: 'mcp-canary/*',
                arnFormat: ArnFormat.COLON_RESOURCE_NAME,
              }),
            ],
          }),
        ],
      });
      for (const [id, region] of [
        ['XrConsumerEu', 'eu-west-1'],
        ['XrConsumerUs', 'us-east-1'],
      ] as const) {
        const s = new Stack(app, id, { env: { region }, crossRegionReferences: true });
        alarmIn(s, { alarmDescription: `writes to ${table.tableArn}` }).addAlarmAction(new SnsAction(topic));
      }
    });
    const topicArn = d.ofType('AWS::SNS::Topic').find((t) => t.stackName === 'XrProducer')!.ref;
    const tableArn = `arn:aws:dynamodb:us-east-1:${d.aws.account}:table/`;
    for (const [stack, region] of [
      ['XrConsumerEu', 'eu-west-1'],
      ['XrConsumerUs', 'us-east-1'],
    ] as const) {
      const [alarm] = (await d.aws.at(region).cloudWatch.send(new DescribeAlarmsCommand({ AlarmNamePrefix: stack }))).MetricAlarms ?? [];
      expect(alarm?.AlarmActions, stack).toEqual([topicArn]);
      expect(alarm?.AlarmDescription, stack).toContain(tableArn);
    }
    expect(d.tally()).toMatchObject({
      'Custom::CrossRegionExportWriter': { api: 1 },
      'Custom::CrossRegionExportReader': { api: 1 },
      'AWS::DynamoDB::Table': { moto: 1 },
      'AWS::IAM::ManagedPolicy': { moto: 1 },
    });
    expect(topicArn).toMatch(/^arn:aws:sns:us-east-1:/);
  });

  it('fails on a resource type nobody rehearses, naming it and where to decide', async () => {
    const message = await failure(
      (app) =>
        new CfnResource(new Stack(app, 'UnknownType', { env: { region: 'us-east-1' } }), 'Secret', { type: 'AWS::SecretsManager::Secret' }),
    );
    expect(message).toMatch(
      /UnknownType\/Secret: nobody rehearses AWS::SecretsManager::Secret\. Add a handler in test\/helpers\/infra\/rehearsal\/types\//,
    );
  });

  it('fails on a property nobody rehearses', async () => {
    const message = await failure(
      (app) =>
        new CfnTopic(new Stack(app, 'UnknownProperty', { env: { region: 'us-east-1' } }), 'Topic', {
          archivePolicy: { MessageRetentionPeriod: '30' },
        }),
    );
    expect(message).toMatch(/UnknownProperty\/Topic \(AWS::SNS::Topic\): ArchivePolicy neither rehearsed nor skipped with a reason/);
  });

  it('fails on an export nobody makes, as CloudFormation would', async () => {
    const message = await failure((app) =>
      alarmIn(new Stack(app, 'MissingExport', { env: { region: 'us-east-1' } }), {
        alarmDescription: Fn.importValue('nobody-exports-this'),
      }),
    );
    expect(message).toMatch(/Fn::ImportValue nobody-exports-this: no stack in us-east-1 exports it/);
  });

  it('fails on an alarm action that names a topic nobody deployed', async () => {
    const message = await failure((app) => {
      const s = new Stack(app, 'DanglingAction', { env: { region: 'us-east-1' } });
      alarmIn(s).addAlarmAction(new SnsAction(Topic.fromTopicArn(s, 'Gone', s.formatArn({ service: 'sns', resource: 'no-such-topic' }))));
    });
    expect(message).toMatch(
      /references to nothing:\n {2}DanglingAction\/Alarm\w+\/AlarmActions\/0 names arn:aws:sns:us-east-1:\d+:no-such-topic, which was not deployed/,
    );
  });

  it('refuses a composite alarm whose ActionsSuppressor names an alarm nobody deployed, as CloudWatch does', async () => {
    const message = await failure((app) => {
      const s = new Stack(app, 'DanglingSuppressor', { env: { region: 'us-east-1' } });
      const alarm = alarmIn(s, { alarmName: 'Rehearsal/probe' });
      new CompositeAlarm(s, 'Page', {
        compositeAlarmName: 'Rehearsal/page',
        alarmRule: AlarmRule.fromAlarm(alarm, AlarmState.ALARM),
        actionsSuppressor: Alarm.fromAlarmName(s, 'Gone', 'Rehearsal/no-such-alarm'),
      });
    });
    expect(message).toMatch(
      /CloudWatch refuses DanglingSuppressor\/Page\w+ \(AWS::CloudWatch::CompositeAlarm\): .* names Rehearsal\/no-such-alarm/,
    );
  });

  it('fails on a policy that names a subnet nobody made', async () => {
    const message = await failure((app) => {
      const s = new Stack(app, 'DanglingSubnet', { env: { region: 'us-east-1' } });
      const role = new Role(s, 'Run', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
      role.addToPolicy(
        new PolicyStatement({
          actions: ['ec2:CreateNetworkInterface'],
          resources: [s.formatArn({ service: 'ec2', resource: 'subnet/subnet-0123456789abcdef0' })],
        }),
      );
    });
    expect(message).toMatch(
      /references to nothing:\n {2}DanglingSubnet\/.* names arn:aws:ec2:us-east-1:\d+:subnet\/subnet-0123456789abcdef0, which was not deployed/,
    );
  });

  it("refuses a stack whose bootstrap is too old, as the template's CheckBootstrapVersion rule does", async () => {
    const a = synthApp((app) => alarmIn(new Stack(app, 'OldBootstrap', { env: { region: 'ca-central-1' } })));
    cleanups.push(a.remove);
    const aws = new Aws(moto.endpoint);
    await bootstrap(aws, readAssembly(a.dir));
    await aws
      .at('ca-central-1')
      .ssm.send(new PutParameterCommand({ Name: '/cdk-bootstrap/hnb659fds/version', Value: '5', Type: 'String', Overwrite: true }));
    aws.destroy();
    await expect(rehearse(a.dir, moto.endpoint)).rejects.toThrow(
      /CloudFormation refuses OldBootstrap: rule CheckBootstrapVersion: CDK bootstrap stack version 6 required/,
    );
  });
});

describe('CloudFormation intrinsics, resolved against what is deployed', () => {
  const scope: Scope = {
    template: {
      Resources: {},
      Conditions: { InHome: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] }, Never: { 'Fn::Not': [{ Condition: 'InHome' }] } },
      Mappings: { Sizes: { Run: { MemoryMb: 256 } } },
    },
    pseudo: { 'AWS::Region': 'us-east-1', 'AWS::AccountId': '123456789012', 'AWS::Partition': 'aws' },
    parameters: { Stage: 'prod' },
    ref: async (id) => (id === 'Topic' ? 'arn:aws:sns:us-east-1:123456789012:pages' : Promise.reject(new Error(`no ${id}`))),
    getAtt: async (id, name) => `${id}.${name}`,
    importValue: async (name) => `imported:${name}`,
    ssmParameter: async (name) => `ssm:${name}`,
  };
  const r = (v: unknown) => resolve(v, scope, 'T');

  it('resolves each intrinsic the CDK writes, and pseudo parameters', async () => {
    expect(
      await r({
        'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':x']],
      }),
    ).toBe('arn:aws:sns:us-east-1:123456789012:x');
    expect(await r({ 'Fn::Sub': 'cdk-${AWS::AccountId}-${Stage}-${Queue.Arn}-${!Literal}' })).toBe(
      'cdk-123456789012-prod-Queue.Arn-${Literal}',
    );
    expect(await r({ 'Fn::Sub': ['${A}/${B}', { A: 'a', B: { Ref: 'Topic' } }] })).toBe('a/arn:aws:sns:us-east-1:123456789012:pages');
    expect(await r({ 'Fn::Select': [1, { 'Fn::Split': [':', { Ref: 'Topic' }] }] })).toBe('aws');
    expect(await r({ 'Fn::GetAtt': ['Fn', 'Arn'] })).toBe('Fn.Arn');
    expect(await r({ 'Fn::ImportValue': { 'Fn::Sub': '${Stage}-topic' } })).toBe('imported:prod-topic');
    expect(await r({ 'Fn::If': ['InHome', 'home', 'probe'] })).toBe('home');
    expect(await r({ 'Fn::If': ['Never', 'x', { Ref: 'AWS::NoValue' }] })).toBe(NO_VALUE);
    expect(await r({ A: { Ref: 'AWS::NoValue' }, B: [1, { Ref: 'AWS::NoValue' }] })).toEqual({ B: [1] });
    expect(await r({ 'Fn::FindInMap': ['Sizes', 'Run', 'MemoryMb'] })).toBe(256);
    expect(await r({ 'Fn::Base64': 'hi' })).toBe('aGk=');
    expect(await r('token {{resolve:ssm:/cdk/exports/x}}')).toBe('token ssm:/cdk/exports/x');
  });

  it('fails loudly, with the path, on what it cannot resolve', async () => {
    await expect(r({ Ref: 'Missing' })).rejects.toThrow('no Missing');
    await expect(resolve({ X: { 'Fn::Cidr': ['10.0.0.0/16', 2, 8] } }, scope, 'Stack/Res')).rejects.toThrow(
      'Stack/Res/X/Fn::Cidr: the rehearsal does not resolve Fn::Cidr',
    );
    await expect(r({ 'Fn::Select': [5, ['a']] })).rejects.toThrow('index 5 is outside the list of 1');
    await expect(r('{{resolve:secretsmanager:s}}')).rejects.toThrow('is not rehearsed (only ssm)');
  });

  it('names, for each type moto cannot create, a test that exists', () => {
    const impossible = Object.entries(HANDLERS).filter(([, h]) => h.by === 'impossible');
    expect(impossible.map(([t]) => t)).toEqual([
      'AWS::CloudFront::ResponseHeadersPolicy',
      'AWS::CloudWatch::AlarmMuteRule',
      'AWS::Logs::QueryDefinition',
    ]);
    for (const [type, h] of impossible) {
      const file = (h as { checkedBy: string }).checkedBy.split(' ')[0]!;
      expect(existsSync(new URL(`../../../${file}`, import.meta.url)), `${type} → ${file}`).toBe(true);
    }
  });
});
