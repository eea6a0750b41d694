/**
 * What `Ref` and `Fn::GetAtt` of a resource resolve to, per resource type, at the longest: the name the
 * template gives it, or else the longest name CloudFormation could generate (the service's maximum).
 * Types not listed resolve to an ARN (or id) with a 255-character name: longer than any we create.
 */
import { filler, type CfnResource, type Resolver } from './template.ts';

interface Kind {
  /** The property that names the resource, and the longest name the service allows. */
  readonly name?: readonly [property: string, max: number];
  /** The resource's ARN from its name. */
  readonly arn: (l: Resolver, name: string, r: CfnResource) => string;
  /** What `Ref` returns. @default - the name */
  readonly ref?: 'arn' | 'name' | ((l: Resolver, name: string) => string);
  /** Other attributes; `Arn` is always known. */
  readonly attributes?: Record<string, (l: Resolver, name: string) => string>;
}

const UNKNOWN_NAME = 255;

const KINDS: Record<string, Kind> = {
  'AWS::SNS::Topic': {
    name: ['TopicName', 256],
    arn: (l, n) => l.arn('sns', n),
    ref: 'arn',
    attributes: { TopicArn: (l, n) => l.arn('sns', n), TopicName: (_l, n) => n },
  },
  'AWS::SQS::Queue': {
    name: ['QueueName', 80],
    arn: (l, n) => l.arn('sqs', n),
    ref: (l, n) => queueUrl(l, n),
    attributes: { QueueName: (_l, n) => n, QueueUrl: (l, n) => queueUrl(l, n) },
  },
  'AWS::Lambda::Function': { name: ['FunctionName', 64], arn: (l, n) => l.arn('lambda', `function:${n}`) },
  'AWS::IAM::Role': {
    name: ['RoleName', 64],
    arn: (l, n, r) => l.arn('iam', `role${typeof r.Properties?.Path === 'string' ? r.Properties.Path : '/'}${n}`, ''),
    attributes: { RoleId: () => filler(128) },
  },
  'AWS::IAM::ManagedPolicy': {
    name: ['ManagedPolicyName', 128],
    arn: (l, n) => l.arn('iam', `policy/${n}`, ''),
    ref: 'arn',
    attributes: { PolicyArn: (l, n) => l.arn('iam', `policy/${n}`, '') },
  },
  'AWS::IAM::Policy': { name: ['PolicyName', 128], arn: (_l, n) => n, ref: () => filler(128) },
  'AWS::Logs::LogGroup': { name: ['LogGroupName', 512], arn: (l, n) => l.arn('logs', `log-group:${n}:*`) },
  'AWS::Events::Rule': { name: ['Name', 64], arn: (l, n) => l.arn('events', `rule/${n}`) },
  'AWS::Scheduler::ScheduleGroup': { name: ['Name', 64], arn: (l, n) => l.arn('scheduler', `schedule-group/${n}`) },
  'AWS::Scheduler::Schedule': { name: ['Name', 64], arn: (l, n) => l.arn('scheduler', `schedule/${filler(64)}/${n}`) },
  'AWS::CloudWatch::Alarm': { name: ['AlarmName', 255], arn: (l, n) => l.arn('cloudwatch', `alarm:${n}`) },
  'AWS::CloudWatch::Dashboard': { name: ['DashboardName', 255], arn: (l, n) => l.arn('cloudwatch', `dashboard/${n}`, '') },
  'AWS::CloudWatch::AlarmMuteRule': { name: ['Name', 255], arn: (l, n) => l.arn('cloudwatch', `alarm-mute-rule:${n}`) },
  'AWS::SSM::Parameter': { name: ['Name', 2048], arn: (l, n) => l.arn('ssm', `parameter/${n.replace(/^\//, '')}`) },
  'AWS::SecretsManager::Secret': { name: ['Name', 512], arn: (l, n) => l.arn('secretsmanager', `secret:${n}-XXXXXX`), ref: 'arn' },
  'AWS::SNS::Subscription': { arn: (l) => l.arn('sns', `${filler(256)}:${'0'.repeat(36)}`), ref: 'arn' },
};

function queueUrl(l: Resolver, name: string): string {
  return `https://sqs.${l.region}.${l.urlSuffix}/${l.account}/${name}`;
}

/** The resource's name as the template sets it, resolved; else the longest the service allows. */
function nameOf(l: Resolver, r: CfnResource, kind: Kind | undefined): string {
  const [property, max] = kind?.name ?? ['', UNKNOWN_NAME];
  const given = property ? r.Properties?.[property] : undefined;
  return given === undefined ? filler(max) : l.string(given);
}

export function physicalRef(l: Resolver, _id: string, r: CfnResource): string {
  const kind = KINDS[r.Type];
  const name = nameOf(l, r, kind);
  if (!kind) return name;
  if (kind.ref === 'arn') return kind.arn(l, name, r);
  if (typeof kind.ref === 'function') return kind.ref(l, name);
  return name;
}

export function physicalAttribute(l: Resolver, _id: string, r: CfnResource, attribute: string): string {
  const kind = KINDS[r.Type];
  const name = nameOf(l, r, kind);
  if (attribute === 'Arn') return kind ? kind.arn(l, name, r) : l.arn(filler(32), name);
  const known = kind?.attributes?.[attribute];
  return known ? known(l, name) : filler(UNKNOWN_NAME);
}
