/**
 * The brief: an EventBridge rule on this fleet's target-alarm state changes invokes a function that
 * reads the target's run records from every probe region's log and publishes a readable summary to the
 * briefs topic. Off the paging path by construction: alarms publish to their topics themselves.
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import { Match, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { alarmKinds } from '../../functions/base/common/alarm-words.ts';
import { BriefEnvVar, quorumsText } from '../../functions/base/config/env/brief-env.ts';
import type { FleetNames } from '../plan/names.ts';
import { acknowledgeWildcardResources } from './acknowledge.ts';
import { CanaryFunction, canaryLogGroup } from './canary-function.ts';
import { deadLetterQueue } from './dead-letter-queue.ts';
import { deadLetterMetric, ownerAlarm } from './owner-alarm.ts';

/** Reads a few log pages per region and publishes once. */
export const BRIEF_TIMEOUT = Duration.seconds(60);
export const BRIEF_MEMORY_MB = 256;
/** Lambda's own retries of a failed brief, then the dead-letter queue. */
export const BRIEF_RETRY_ATTEMPTS = 2;
/** A brief older than this is stale: the next state change brings a fresh one. */
export const BRIEF_MAX_EVENT_AGE = Duration.hours(1);

export interface BriefFunctionProps {
  readonly names: FleetNames;
  readonly briefTopicArn: string;
  readonly canaryOwnerTopicArn: string;
  readonly probeRegions: readonly string[];
  readonly failureThreshold: number;
  /** k by R: each target's quorum by its number of probe regions, from the targets' rules (FleetPlan.quorums). */
  readonly quorums: ReadonlyMap<number, number>;
  /** @default - DEFAULT_LOG_RETENTION (one month, canary-function.ts) */
  readonly logRetention?: RetentionDays;
}

export class BriefFunction extends Construct {
  readonly function: CanaryFunction;
  readonly rule: Rule;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: BriefFunctionProps) {
    super(scope, id);
    const { names } = props;
    const stack = Stack.of(this);
    const logGroup = canaryLogGroup(this, 'Logs', names.briefLogGroup, props.logRetention);
    const runLogs = props.probeRegions.flatMap((region) => {
      const arn = stack.formatArn({
        service: 'logs',
        region,
        resource: 'log-group',
        resourceName: names.runLogGroup,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
      return [arn, `${arn}:*`];
    });
    const role = new Role(this, 'Role', {
      description: 'mcp-canary brief: reads run records from the run log groups, publishes to the briefs topic.',
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: {
        brief: new PolicyDocument({
          statements: [
            new PolicyStatement({
              effect: Effect.ALLOW,
              actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              resources: [logGroup.logGroupArn],
            }),
            new PolicyStatement({ effect: Effect.ALLOW, actions: ['logs:FilterLogEvents'], resources: runLogs }),
            new PolicyStatement({ effect: Effect.ALLOW, actions: ['sns:Publish'], resources: [props.briefTopicArn] }),
          ],
        }),
      },
    });
    acknowledgeWildcardResources(
      role,
      runLogs,
      `The only wildcard is the ":*" log-stream suffix of the fleet's run log group ${names.runLogGroup} in each probe region, the form FilterLogEvents authorizes; no other log group is readable.`,
    );

    this.deadLetterQueue = deadLetterQueue(this, 'Dlq', names.briefDlq, 'the brief (rule delivery and function failures)');

    this.function = new CanaryFunction(this, 'Function', {
      handlerName: 'brief',
      functionName: names.briefFunction,
      description:
        'mcp-canary: on every target-alarm state change, publishes a brief (what failed, where, since when) to the briefs topic.',
      memorySize: BRIEF_MEMORY_MB,
      timeout: BRIEF_TIMEOUT,
      role,
      logGroup,
      retryAttempts: BRIEF_RETRY_ATTEMPTS,
      maxEventAge: BRIEF_MAX_EVENT_AGE,
      onFailure: new SqsDestination(this.deadLetterQueue),
      environment: {
        [BriefEnvVar.topicArn]: props.briefTopicArn,
        [BriefEnvVar.fleet]: names.fleet,
        [BriefEnvVar.runLogGroup]: names.runLogGroup,
        [BriefEnvVar.failureThreshold]: String(props.failureThreshold),
        [BriefEnvVar.probeRegions]: props.probeRegions.join(','),
        [BriefEnvVar.quorum]: quorumsText(props.quorums),
      },
    });

    this.rule = new Rule(this, 'AlarmChanges', {
      description: `mcp-canary ${names.fleet}: every state change of a target alarm (critical, warning, dead-man) → the brief function.`,
      eventPattern: {
        source: ['aws.cloudwatch'],
        detailType: ['CloudWatch Alarm State Change'],
        detail: { alarmName: alarmKinds.flatMap((kind) => Match.wildcard(names.alarm('*', kind))) },
      },
      targets: [
        new LambdaFunction(this.function, {
          retryAttempts: BRIEF_RETRY_ATTEMPTS,
          maxEventAge: BRIEF_MAX_EVENT_AGE,
          deadLetterQueue: this.deadLetterQueue,
        }),
      ],
    });

    ownerAlarm(this, 'Errors', {
      alarmName: names.canaryAlarm('brief-errors'),
      description: `The mcp-canary brief function failed: briefs may be missing from the briefs topic (pages are not affected; they go from the alarms to SNS directly). For the canary owner. Look at ${names.briefLogGroup} and the queue ${names.briefDlq}.`,
      metric: this.function.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      ownerTopicArn: props.canaryOwnerTopicArn,
    });
    ownerAlarm(this, 'DlqAlarm', {
      alarmName: names.canaryAlarm('brief-dlq'),
      description: `Briefs were dropped into ${names.briefDlq} after their retries: those alarm changes have no brief. For the canary owner. Read a message for the error, then purge the queue.`,
      metric: deadLetterMetric(this.deadLetterQueue, Duration.minutes(5)),
      ownerTopicArn: props.canaryOwnerTopicArn,
    });
  }
}
