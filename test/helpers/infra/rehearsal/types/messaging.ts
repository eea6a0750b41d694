/**
 * SNS and SQS. moto's CloudFormation creates topics and queues (read back here attribute by attribute);
 * it skips topic policies, queue policies and subscriptions, which the rehearsal sets through
 * SetTopicAttributes, SetQueueAttributes and Subscribe.
 */
import {
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  SetTopicAttributesCommand,
  SubscribeCommand,
} from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, SetQueueAttributesCommand, type QueueAttributeName, type SQSClient } from '@aws-sdk/client-sqs';
import { parseJson } from '../properties.ts';
import { generatedId, type CreatedByMoto, type CreatedByRehearsal } from './handler.ts';

const TAGS_WHY = 'tags carry no behaviour the canary relies on';

/** Queue properties that are queue attributes of the same name; the `Redrive*` ones are JSON there. */
const QUEUE_ATTRIBUTES = [
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'DelaySeconds',
  'FifoQueue',
  'FifoThroughputLimit',
  'KmsDataKeyReusePeriodSeconds',
  'KmsMasterKeyId',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'RedriveAllowPolicy',
  'RedrivePolicy',
  'SqsManagedSseEnabled',
  'VisibilityTimeout',
];

async function queueAttributes(sqs: SQSClient, url: string): Promise<Record<string, string>> {
  return (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All' as QueueAttributeName] }))).Attributes ?? {};
}

export const queue: CreatedByMoto = {
  by: 'moto',
  async verify(ctx, url) {
    const attrs = await queueAttributes(ctx.aws.sqs, url);
    const name = await ctx.props.get<string>('QueueName');
    if (name !== undefined) ctx.findings.same(`${ctx.where} QueueName`, url.split('/').pop(), name);
    for (const p of QUEUE_ATTRIBUTES) {
      const expected = await ctx.props.get(p);
      if (expected === undefined) continue;
      ctx.findings.same(`${ctx.where} ${p}`, p.startsWith('Redrive') ? parseJson(attrs[p]) : attrs[p], expected);
    }
    ctx.props.skip('Tags', TAGS_WHY);
  },
  async attribute(aws, url, name) {
    if (name === 'QueueUrl') return url;
    if (name === 'QueueName') return url.split('/').pop();
    if (name === 'Arn') return (await queueAttributes(aws.sqs, url)).QueueArn;
    return undefined;
  },
};

export const queuePolicy: CreatedByRehearsal = {
  by: 'api',
  api: 'sqs:SetQueueAttributes (Policy)',
  async create(ctx) {
    const policy = await ctx.props.need('PolicyDocument');
    for (const url of await ctx.props.need<string[]>('Queues')) {
      await ctx.aws.sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { Policy: JSON.stringify(policy) } }));
      ctx.findings.same(`${ctx.where} Policy of ${url}`, parseJson((await queueAttributes(ctx.aws.sqs, url)).Policy), policy);
    }
    return { ref: generatedId(ctx.stackName, ctx.logicalId) };
  },
};

export const topic: CreatedByMoto = {
  by: 'moto',
  async verify(ctx, arn) {
    const attrs = (await ctx.aws.sns.send(new GetTopicAttributesCommand({ TopicArn: arn }))).Attributes ?? {};
    const name = await ctx.props.get<string>('TopicName');
    if (name !== undefined) ctx.findings.same(`${ctx.where} TopicName`, arn.split(':').pop(), name);
    for (const p of ['DisplayName', 'KmsMasterKeyId', 'FifoTopic', 'ContentBasedDeduplication', 'SignatureVersion', 'TracingConfig']) {
      const expected = await ctx.props.get(p);
      if (expected !== undefined) ctx.findings.same(`${ctx.where} ${p}`, attrs[p], expected);
    }
    ctx.props.skip('Tags', TAGS_WHY);
  },
  async attribute(_aws, arn, name) {
    if (name === 'TopicArn') return arn;
    if (name === 'TopicName') return arn.split(':').pop();
    return undefined;
  },
};

export const topicPolicy: CreatedByRehearsal = {
  by: 'api',
  api: 'sns:SetTopicAttributes (Policy)',
  async create(ctx) {
    const policy = await ctx.props.need('PolicyDocument');
    for (const arn of await ctx.props.need<string[]>('Topics')) {
      await ctx.aws.sns.send(
        new SetTopicAttributesCommand({ TopicArn: arn, AttributeName: 'Policy', AttributeValue: JSON.stringify(policy) }),
      );
      const read = (await ctx.aws.sns.send(new GetTopicAttributesCommand({ TopicArn: arn }))).Attributes ?? {};
      ctx.findings.same(`${ctx.where} Policy of ${arn}`, parseJson(read.Policy), policy);
    }
    return { ref: generatedId(ctx.stackName, ctx.logicalId) };
  },
};

/** Subscription properties that are subscription attributes; the policies are JSON there. */
const SUBSCRIPTION_ATTRIBUTES = [
  'DeliveryPolicy',
  'FilterPolicy',
  'FilterPolicyScope',
  'RawMessageDelivery',
  'RedrivePolicy',
  'SubscriptionRoleArn',
  'ReplayPolicy',
];

export const subscription: CreatedByRehearsal = {
  by: 'api',
  api: 'sns:Subscribe',
  async create(ctx) {
    const topicArn = await ctx.props.need<string>('TopicArn');
    // `Region` names the topic's region when it is not the stack's; the topic ARN says the same.
    const region = (await ctx.props.get<string>('Region')) ?? topicArn.split(':')[3]!;
    const sns = ctx.all.at(region).sns;
    const attributes: Record<string, string> = {};
    for (const p of SUBSCRIPTION_ATTRIBUTES) {
      const v = await ctx.props.get(p);
      if (v !== undefined) attributes[p] = typeof v === 'object' ? JSON.stringify(v) : String(v);
    }
    const out = await sns.send(
      new SubscribeCommand({
        TopicArn: topicArn,
        Protocol: await ctx.props.need<string>('Protocol'),
        Endpoint: await ctx.props.get<string>('Endpoint'),
        Attributes: attributes,
        ReturnSubscriptionArn: true,
      }),
    );
    const arn = out.SubscriptionArn!;
    const read = (await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: arn }))).Attributes ?? {};
    for (const [p, v] of Object.entries(attributes)) {
      ctx.findings.same(`${ctx.where} ${p}`, p.endsWith('Policy') ? parseJson(read[p]) : read[p], p.endsWith('Policy') ? JSON.parse(v) : v);
    }
    ctx.findings.same(`${ctx.where} Endpoint`, read.Endpoint, await ctx.props.get('Endpoint'));
    return { ref: arn };
  },
};
