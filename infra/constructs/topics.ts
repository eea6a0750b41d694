/**
 * An SNS topic of the fleet and its subscribers from the config: email, an HTTPS endpoint (a PagerDuty
 * or JSM CloudWatch integration URL), an SQS queue or a Lambda function. Deliveries that still fail
 * after their retries land in a dead-letter queue instead of vanishing.
 */
import { ArnFormat, Aws, Fn, Stack, Token, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import { CfnSubscription, Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Subscription } from '../../functions/base/config/schema/fleet.ts';

/**
 * How SNS retries an HTTPS delivery (a pager). SNS's default is 3 tries 20 s apart, then the message is
 * dropped: a one-minute PagerDuty blip would lose the ALARM (no page) or the OK (an incident that never
 * closes). This keeps trying for close to SNS's one-hour maximum: 3 quick tries 10 s apart, 10 backing
 * off to a minute, then every minute. `httpsRetrySeconds` bounds it; a test holds it to the limit.
 */
export const HTTPS_DELIVERY_POLICY = {
  healthyRetryPolicy: {
    minDelayTarget: 10,
    maxDelayTarget: 60,
    numRetries: 60,
    numNoDelayRetries: 0,
    numMinDelayRetries: 3,
    numMaxDelayRetries: 47,
    backoffFunction: 'exponential',
  },
  throttlePolicy: { maxReceivesPerSecond: 10 },
} as const;

/** SNS refuses an HTTP/S delivery policy whose retries could take longer than this. */
export const SNS_MAX_RETRY_SECONDS = 3600;

/** The longest and shortest time the policy's retries can take: backoff delays lie between min and max. */
export function httpsRetrySeconds(p = HTTPS_DELIVERY_POLICY.healthyRetryPolicy): { min: number; max: number } {
  const backoff = p.numRetries - p.numNoDelayRetries - p.numMinDelayRetries - p.numMaxDelayRetries;
  const fixed = p.numMinDelayRetries * p.minDelayTarget + p.numMaxDelayRetries * p.maxDelayTarget;
  return { min: fixed + backoff * p.minDelayTarget, max: fixed + backoff * p.maxDelayTarget };
}

export interface FleetTopicProps {
  readonly topicName: string;
  readonly displayName: string;
  /** @default - no subscribers (add them in the console, or point a chat integration at the topic) */
  readonly subscriptions?: readonly Subscription[];
  /**
   * CloudWatch alarms whose names match this pattern (`<fleet>/*`) may publish. Needed because
   * `enforceSSL` gives the topic a policy of its own, which replaces SNS's default one, and without an
   * allow for `cloudwatch.amazonaws.com` every alarm action fails ("no resource-based policy allows
   * SNS:Publish"), visible only in the alarm's history.
   * @default - no alarm may publish
   */
  readonly alarmNamePattern?: string;
  /**
   * Where SNS puts a message it could not deliver to a subscriber (after the delivery policy's retries).
   * @default - none: undeliverable messages are dropped
   */
  readonly deadLetterQueue?: IQueue;
}

export class FleetTopic extends Construct {
  readonly topic: Topic;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: FleetTopicProps,
  ) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { topicName: props.topicName, displayName: props.displayName, enforceSSL: true });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'CloudWatch alarms cannot publish to a topic encrypted with the AWS managed SNS key, and a customer managed key per region costs more than the alarms. Messages carry alarm names, descriptions and redacted run details, never credentials; enforceSSL keeps them encrypted in transit.',
    });
    if (props.alarmNamePattern !== undefined) {
      this.topic.addToResourcePolicy(
        new PolicyStatement({
          sid: 'AllowFleetAlarmsToPublish',
          effect: Effect.ALLOW,
          principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['sns:Publish'],
          resources: [this.topic.topicArn],
          conditions: {
            StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
            ArnLike: {
              'aws:SourceArn': Stack.of(this).formatArn({
                service: 'cloudwatch',
                resource: 'alarm',
                resourceName: props.alarmNamePattern,
                arnFormat: ArnFormat.COLON_RESOURCE_NAME,
              }),
            },
          },
        }),
      );
    }
    const subscriptions = props.subscriptions ?? [];
    subscriptions.forEach((sub, i) => this.subscribe(sub, i));
    if (props.deadLetterQueue && subscriptions.some((s) => !('email' in s))) {
      props.deadLetterQueue.addToResourcePolicy(
        new PolicyStatement({
          sid: `Sns${id}DeadLetters`,
          effect: Effect.ALLOW,
          principals: [new ServicePrincipal('sns.amazonaws.com')],
          actions: ['sqs:SendMessage'],
          resources: [props.deadLetterQueue.queueArn],
          conditions: { ArnEquals: { 'aws:SourceArn': this.topic.topicArn } },
        }),
      );
    }
  }

  private subscribe(sub: Subscription, i: number): void {
    const topicArn = this.topic.topicArn;
    const dlq = this.props.deadLetterQueue;
    // SNS stores no delivery failure for email (it hands the message to its mail service), so no redrive there.
    const redrivePolicy = dlq ? { deadLetterTargetArn: dlq.queueArn } : undefined;
    if ('email' in sub) {
      new CfnSubscription(this, `Email${i}`, { topicArn, protocol: 'email', endpoint: sub.email });
    } else if ('url' in sub) {
      // PagerDuty's and JSM's CloudWatch integrations confirm the subscription themselves.
      new CfnSubscription(this, `Https${i}`, {
        topicArn,
        protocol: 'https',
        endpoint: sub.url,
        deliveryPolicy: HTTPS_DELIVERY_POLICY,
        redrivePolicy,
      });
    } else if ('sqsQueueArn' in sub) {
      // The queue is the user's: its policy must allow sns.amazonaws.com to SendMessage from this topic.
      new CfnSubscription(this, `Sqs${i}`, { topicArn, protocol: 'sqs', endpoint: sub.sqsQueueArn, redrivePolicy });
    } else {
      new CfnSubscription(this, `Lambda${i}`, { topicArn, protocol: 'lambda', endpoint: sub.lambdaArn, redrivePolicy });
      // Only a function in this region can be granted from here; another region's needs its own permission.
      if (sub.lambdaArn.split(':')[3] === Stack.of(this).region) {
        new CfnPermission(this, `Invoke${i}`, {
          action: 'lambda:InvokeFunction',
          functionName: sub.lambdaArn,
          principal: 'sns.amazonaws.com',
          sourceArn: topicArn,
        });
      }
    }
  }
}

/**
 * The ARN of a fleet topic in this stack's account and region, by name: no cross-stack export. One
 * `Fn::Sub` string rather than formatArn's five-part `Fn::Join`: every target alarm names its topic two
 * or three times, and at 15,000 alarms the difference is megabytes of template.
 */
export function topicArn(scope: Construct, topicName: string): string {
  const stack = Stack.of(scope);
  const region = Token.isUnresolved(stack.region) ? '${AWS::Region}' : stack.region;
  const account = Token.isUnresolved(stack.account) ? '${AWS::AccountId}' : stack.account;
  return Fn.sub(`arn:\${AWS::Partition}:sns:${region}:${account}:${topicName}`);
}
