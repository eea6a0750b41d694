/**
 * An SNS topic of the fleet and its subscribers from the config: email, an HTTPS endpoint (a PagerDuty
 * or JSM CloudWatch integration URL), an SQS queue or a Lambda function.
 */
import { ArnFormat, Aws, Stack, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import { CfnSubscription, Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { Subscription } from '../../functions/config/fleet.ts';

export interface FleetTopicProps {
  readonly topicName: string;
  readonly displayName: string;
  /** @default - no subscribers (add them in the console, or point a chat integration at the topic) */
  readonly subscriptions?: readonly Subscription[];
  /**
   * CloudWatch alarms whose names start with this may publish. Needed because `enforceSSL` gives the
   * topic a policy of its own, which replaces SNS's default one, and without an allow for
   * `cloudwatch.amazonaws.com` every alarm action fails ("no resource-based policy allows SNS:Publish"),
   * visible only in the alarm's history.
   * @default - no alarm may publish
   */
  readonly alarmNamePrefix?: string;
}

export class FleetTopic extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: FleetTopicProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { topicName: props.topicName, displayName: props.displayName, enforceSSL: true });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason: 'CloudWatch alarms cannot publish to a topic encrypted with the AWS managed SNS key, and a customer managed key per region costs more than the alarms. Messages carry alarm names, descriptions and redacted run details, never credentials; enforceSSL keeps them encrypted in transit.',
    });
    if (props.alarmNamePrefix !== undefined) {
      this.topic.addToResourcePolicy(new PolicyStatement({
        sid: 'AllowFleetAlarmsToPublish',
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': Stack.of(this).formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: `${props.alarmNamePrefix}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
        },
      }));
    }
    (props.subscriptions ?? []).forEach((sub, i) => this.subscribe(sub, i));
  }

  private subscribe(sub: Subscription, i: number): void {
    const topicArn = this.topic.topicArn;
    if ('email' in sub) {
      new CfnSubscription(this, `Email${i}`, { topicArn, protocol: 'email', endpoint: sub.email });
    } else if ('url' in sub) {
      // PagerDuty's and JSM's CloudWatch integrations confirm the subscription themselves.
      new CfnSubscription(this, `Https${i}`, { topicArn, protocol: 'https', endpoint: sub.url });
    } else if ('sqsQueueArn' in sub) {
      // The queue is the user's: its policy must allow sns.amazonaws.com to SendMessage from this topic.
      new CfnSubscription(this, `Sqs${i}`, { topicArn, protocol: 'sqs', endpoint: sub.sqsQueueArn });
    } else {
      new CfnSubscription(this, `Lambda${i}`, { topicArn, protocol: 'lambda', endpoint: sub.lambdaArn });
      // Only a function in this region can be granted from here; another region's needs its own permission.
      if (sub.lambdaArn.split(':')[3] === Stack.of(this).region) {
        new CfnPermission(this, `Invoke${i}`, { action: 'lambda:InvokeFunction', functionName: sub.lambdaArn, principal: 'sns.amazonaws.com', sourceArn: topicArn });
      }
    }
  }
}

/** The ARN of a fleet topic in this stack's account and region, by name: no cross-stack export. */
export function topicArn(scope: Construct, topicName: string): string {
  return Stack.of(scope).formatArn({ service: 'sns', resource: topicName });
}
