/**
 * After the last stack: every ARN of this account that a resolved property names (an alarm action, a
 * schedule's target and dead-letter queue, a subscription's redrive queue, a role) must name something
 * deployed. A stack that builds an ARN from a name (`arn:${AWS::Partition}:sns:…:McpCanary-pages`)
 * deploys happily in CloudFormation too, and then fails silently at 3 a.m.; this is where it shows.
 * Patterns (with `*` or `?`) and ARNs of other accounts or of the user's own secrets are not links.
 */
import { GetDistributionCommand } from '@aws-sdk/client-cloudfront';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeLogGroupsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeSecurityGroupsCommand, DescribeSubnetsCommand } from '@aws-sdk/client-ec2';
import { DescribeRuleCommand } from '@aws-sdk/client-eventbridge';
import { GetRoleCommand } from '@aws-sdk/client-iam';
import { GetFunctionConfigurationCommand } from '@aws-sdk/client-lambda';
import { GetScheduleCommand, GetScheduleGroupCommand } from '@aws-sdk/client-scheduler';
import { GetSubscriptionAttributesCommand, GetTopicAttributesCommand } from '@aws-sdk/client-sns';
import { GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { RehearsalError } from './assembly.ts';
import type { RegionClients } from './aws.ts';
import type { Deployment } from './deployment.ts';

type Exists = (aws: RegionClients, resource: string, arn: string) => Promise<unknown>;

/** How to ask each service whether the resource part of an ARN exists; the call throws when it does not. */
const EXISTS: Readonly<Record<string, Exists>> = {
  sns: (aws, r, arn) =>
    r.includes(':')
      ? aws.sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: arn }))
      : aws.sns.send(new GetTopicAttributesCommand({ TopicArn: arn })),
  sqs: (aws, r) => aws.sqs.send(new GetQueueUrlCommand({ QueueName: r })),
  dynamodb: (aws, r) => aws.dynamoDb.send(new DescribeTableCommand({ TableName: r.split('/')[1] })),
  lambda: (aws, r) => aws.lambda.send(new GetFunctionConfigurationCommand({ FunctionName: r.replace(/^function:/, '').split(':')[0] })),
  iam: (aws, r) => (r.startsWith('role/') ? aws.iam.send(new GetRoleCommand({ RoleName: r.split('/').pop() })) : unknownKind('iam', r)),
  events: (aws, r) => aws.events.send(new DescribeRuleCommand({ Name: r.replace(/^rule\//, '') })),
  logs: async (aws, r) => {
    const name = r.replace(/^log-group:/, '').replace(/:\*$/, '');
    const groups = (await aws.logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: name }))).logGroups ?? [];
    if (!groups.some((g) => g.logGroupName === name)) throw new Error(`no log group ${name}`);
  },
  cloudwatch: async (aws, r) => {
    const name = r.replace(/^alarm:/, '');
    const found = (await aws.cloudWatch.send(new DescribeAlarmsCommand({ AlarmNames: [name] }))).MetricAlarms ?? [];
    if (found.length === 0) throw new Error(`no alarm ${name}`);
  },
  ec2: (aws, r) => {
    const [kind, id] = r.split('/');
    if (kind === 'subnet') return aws.ec2.send(new DescribeSubnetsCommand({ SubnetIds: [id!] }));
    if (kind === 'security-group') return aws.ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [id!] }));
    return unknownKind('ec2', r);
  },
  cloudfront: (aws, r) =>
    r.startsWith('distribution/') ? aws.cloudFront.send(new GetDistributionCommand({ Id: r.split('/')[1] })) : unknownKind('cloudfront', r),
  scheduler: (aws, r) => {
    const [kind, a, b] = r.split('/');
    return kind === 'schedule-group'
      ? aws.scheduler.send(new GetScheduleGroupCommand({ Name: a }))
      : aws.scheduler.send(new GetScheduleCommand({ GroupName: a, Name: b }));
  },
};

/** The user's own resources (secrets, parameters, keys): referenced on purpose before they exist. */
const NOT_LINKS = new Set(['secretsmanager', 'ssm', 'kms', 's3']);

function unknownKind(service: string, resource: string): never {
  throw new RehearsalError(
    `links: the rehearsal cannot check ${service} resource ${resource}; add it to test/helpers/infra/rehearsal/links.ts.`,
  );
}

export async function checkLinks(d: Deployment): Promise<void> {
  const arn = new RegExp(`^arn:${d.aws.partition}:([a-z0-9-]+):([a-z0-9-]*):${d.aws.account}:(.+)$`);
  const checked = new Map<string, Promise<string | null>>();
  const broken: string[] = [];
  const visit = async (v: unknown, where: string): Promise<void> => {
    if (typeof v === 'string') {
      const m = arn.exec(v);
      if (!m || /[*?]/.test(m[3]!.replace(/^log-group:(.*):\*$/, '$1')) || NOT_LINKS.has(m[1]!)) return;
      const [, service, region, resource] = m as unknown as [string, string, string, string];
      const exists = EXISTS[service!];
      if (!exists) unknownKind(service!, v);
      // IAM ARNs have no region; the IAM client of any region reads the same roles.
      const aws = d.aws.at(region || 'us-east-1');
      if (!checked.has(v))
        checked.set(
          v,
          exists(aws, resource, v).then(
            () => null,
            (e: Error) => `${e.name}: ${e.message}`,
          ),
        );
      const problem = await checked.get(v)!;
      if (problem) broken.push(`${where} names ${v}, which was not deployed (${problem})`);
    } else if (Array.isArray(v)) await Promise.all(v.map((x, i) => visit(x, `${where}/${i}`)));
    else if (v && typeof v === 'object') await Promise.all(Object.entries(v).map(([k, x]) => visit(x, `${where}/${k}`)));
  };
  await Promise.all(d.resources().map((r) => visit(r.resolved, `${r.stackName}/${r.logicalId}`)));
  if (broken.length > 0) throw new RehearsalError(`references to nothing:\n  ${broken.sort().join('\n  ')}`);
}
