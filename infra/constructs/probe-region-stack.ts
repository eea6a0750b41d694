/**
 * One probe region: the run functions (one per rate, so each timeout fits under its period), their log
 * group, the schedules, the schedules' dead-letter queue, and the alarms that tell the canary owner
 * when the canary itself breaks here. Metrics go to the home region; nothing here pages a target owner.
 */
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { Subscription } from '../../functions/config/fleet.ts';
import { EnvVar } from '../../functions/config/env.ts';
import type { HeaderSecretRef } from '../../functions/config/target.ts';
import type { FleetNames } from '../names.ts';
import type { RegionPlan, SchedulePlan } from '../plan.ts';
import { allowRedundantRoleDependency, handlerCode, LAMBDA_ARCHITECTURE, LAMBDA_RUNTIME } from './lambda-bundling.ts';
import { deadLetterMetric, ownerAlarm } from './owner-alarm.ts';
import { alarmOnDeliveryDeadLetters, deliveryDeadLetterQueue } from './delivery-dlq.ts';
import { RunSchedules } from './schedules.ts';
import { FleetTopic, topicArn } from './topics.ts';

/** Memory of a run function: concurrent MCP sessions, not computation. */
export const DEFAULT_RUN_MEMORY_MB = 256;
export const DEFAULT_LOG_RETENTION = RetentionDays.ONE_MONTH;
/** Dead-lettered runs are evidence for the canary owner: kept the longest SQS allows. */
export const DLQ_RETENTION = Duration.days(14);
/**
 * Scheduler invokes the run function asynchronously, and Lambda's own async defaults (2 retries, events
 * kept up to 6 hours) would run a crashed or throttled run again, late, publishing a datapoint for a
 * minute long gone. A run is on time or not at all: no retry, and the shortest event age Lambda allows;
 * what is dropped goes to the dead-letter queue the canary owner is alarmed on.
 */
export const RUN_ASYNC_RETRY_ATTEMPTS = 0;
export const RUN_MAX_EVENT_AGE = Duration.seconds(60);

export interface ProbeRegionStackProps extends StackProps {
  readonly names: FleetNames;
  readonly plan: RegionPlan;
  readonly homeRegion: string;
  readonly namespace: string;
  /** N: the run-function alarm fires after this many periods in a row with errors. */
  readonly failureThreshold: number;
  readonly canaryOwner: readonly Subscription[];
  /** @default - DEFAULT_LOG_RETENTION (one month) */
  readonly logRetention?: RetentionDays;
  /** @default - DEFAULT_RUN_MEMORY_MB (256) */
  readonly memorySize?: number;
}

export class ProbeRegionStack extends Stack {
  readonly functions = new Map<string, NodejsFunction>();
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: ProbeRegionStackProps) {
    super(scope, id, props);
    const { names, plan } = props;
    const logGroup = new LogGroup(this, 'RunLogs', {
      logGroupName: names.runLogGroup,
      retention: props.logRetention ?? DEFAULT_LOG_RETENTION,
      // The name is fixed (the brief reads it in every region): a retained group would block a redeploy.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const role = new Role(this, 'RunRole', {
      description: 'mcp-canary run: writes its log, publishes its two metrics to the home region, reads the referenced secrets only.',
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: { run: new PolicyDocument({ statements: runStatements(this, logGroup, props.namespace, plan.secrets) }) },
    });
    acknowledgeRunRole(role);

    this.deadLetterQueue = new Queue(this, 'ScheduleDlq', {
      queueName: names.scheduleDlq,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DLQ_RETENTION,
    });
    Validations.of(this.deadLetterQueue).acknowledge({ id: 'AwsSolutions-SQS3', reason: "This queue is the dead-letter queue of the schedules and of the run functions' async invocations; a DLQ of a DLQ would hide what it holds." });

    for (const rate of plan.rates) {
      const fn = new NodejsFunction(this, `Run-${rate.rateSlug}`, {
        functionName: names.runFunction(rate.rateSlug),
        description: `mcp-canary: judges targets ${rate.schedule} from ${this.region}; the schedule's payload names them.`,
        ...handlerCode('run'),
        runtime: LAMBDA_RUNTIME,
        architecture: LAMBDA_ARCHITECTURE,
        memorySize: props.memorySize ?? DEFAULT_RUN_MEMORY_MB,
        timeout: Duration.seconds(rate.timeoutSeconds),
        role,
        logGroup,
        environment: { [EnvVar.homeRegion]: props.homeRegion, [EnvVar.namespace]: props.namespace },
        retryAttempts: RUN_ASYNC_RETRY_ATTEMPTS,
        maxEventAge: RUN_MAX_EVENT_AGE,
        onFailure: new SqsDestination(this.deadLetterQueue),
      });
      allowRedundantRoleDependency(fn);
      this.functions.set(rate.rateSlug, fn);
    }

    const group = new CfnScheduleGroup(this, 'ScheduleGroup', { name: names.scheduleGroup });
    const first = plan.scheduleStacks[0] ?? [];
    new RunSchedules(this, 'Schedules', {
      names,
      schedules: first,
      functionArn: (slug) => this.functions.get(slug)!.functionArn,
      deadLetterQueueArn: this.deadLetterQueue.queueArn,
      groupName: group.ref,
    });

    // In the home region the home stack's topic already exists under this name.
    let ownerArn: string;
    if (this.region === props.homeRegion) {
      ownerArn = topicArn(this, names.topic('canary-owner'));
    } else {
      const deadLetterQueue = deliveryDeadLetterQueue(this, names);
      ownerArn = new FleetTopic(this, 'CanaryOwner', {
        topicName: names.topic('canary-owner'),
        displayName: 'mcp-canary: the canary itself',
        subscriptions: props.canaryOwner,
        alarmNamePattern: names.alarmPattern,
        deadLetterQueue,
      }).topic.topicArn;
      alarmOnDeliveryDeadLetters(this, names, deadLetterQueue, ownerArn);
    }

    for (const rate of plan.rates) {
      const fn = this.functions.get(rate.rateSlug)!;
      const period = Duration.seconds(rate.periodSeconds);
      ownerAlarm(this, `RunErrors-${rate.rateSlug}`, {
        alarmName: names.canaryAlarm(`run-${rate.rateSlug}-errors`),
        description: `The mcp-canary run function ${fn.node.id} in ${this.region} failed or was throttled in ${props.failureThreshold} period(s) of ${rate.schedule} in a row: its targets' runs were lost, and their dead-man alarms will follow. For the canary owner. Look at the function's errors and ${names.runLogGroup} in ${this.region}.`,
        metric: new MathExpression({
          expression: 'errors + throttles',
          usingMetrics: { errors: fn.metricErrors({ period, statistic: 'Sum' }), throttles: fn.metricThrottles({ period, statistic: 'Sum' }) },
          label: 'Errors + throttles',
          period,
        }),
        periods: props.failureThreshold,
        ownerTopicArn: ownerArn,
      });
    }

    ownerAlarm(this, 'ScheduleDlqAlarm', {
      alarmName: names.canaryAlarm('schedule-dlq'),
      description: `mcp-canary runs in ${this.region} did not happen: EventBridge Scheduler could not deliver them, or the run function dropped them (an error, throttling, or an event older than ${RUN_MAX_EVENT_AGE.toSeconds()} s). They are in the SQS queue ${names.scheduleDlq}. For the canary owner. Read a message for the error, fix the run function or its permissions, then purge the queue.`,
      metric: deadLetterMetric(this.deadLetterQueue, Duration.minutes(5)),
      ownerTopicArn: ownerArn,
    });
  }
}

/** Schedules beyond what one stack holds: same group, functions and queue, found by name. */
export interface ProbeScheduleStackProps extends StackProps {
  readonly names: FleetNames;
  readonly schedules: readonly SchedulePlan[];
}

export class ProbeScheduleStack extends Stack {
  constructor(scope: Construct, id: string, props: ProbeScheduleStackProps) {
    super(scope, id, props);
    const { names } = props;
    new RunSchedules(this, 'Schedules', {
      names,
      schedules: props.schedules,
      functionArn: (slug) => this.formatArn({ service: 'lambda', resource: 'function', resourceName: names.runFunction(slug), arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
      deadLetterQueueArn: this.formatArn({ service: 'sqs', resource: names.scheduleDlq }),
      groupName: names.scheduleGroup,
    });
  }
}

function runStatements(stack: Stack, logGroup: LogGroup, namespace: string, secrets: readonly HeaderSecretRef[]): PolicyStatement[] {
  const statements = [
    new PolicyStatement({ effect: Effect.ALLOW, actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }),
    // PutMetricData has no resource type; the namespace condition is its only scope.
    new PolicyStatement({ effect: Effect.ALLOW, actions: ['cloudwatch:PutMetricData'], resources: ['*'], conditions: { StringEquals: { 'cloudwatch:namespace': namespace } } }),
  ];
  const sm = secrets.flatMap((r) => ('secretsManager' in r ? secretsManagerArns(stack, r.secretsManager) : []));
  const ssm = secrets.flatMap((r) => ('ssmParameter' in r ? [ssmParameterArn(stack, r.ssmParameter)] : []));
  if (sm.length) statements.push(new PolicyStatement({ effect: Effect.ALLOW, actions: ['secretsmanager:GetSecretValue'], resources: sm }));
  if (ssm.length) statements.push(new PolicyStatement({ effect: Effect.ALLOW, actions: ['ssm:GetParameter'], resources: ssm }));
  return statements;
}

/**
 * A secret by name is read in the probe region (as the run's SecretReader does); Secrets Manager adds a
 * random 6-character suffix to every secret's ARN, hence `-??????`. An ARN given in full is kept, and a
 * partial one (no suffix) gets the suffix pattern too.
 */
export function secretsManagerArns(stack: Stack, ref: string): string[] {
  if (ref.startsWith('arn:')) return [ref, `${ref}-??????`];
  return [stack.formatArn({ service: 'secretsmanager', resource: 'secret', resourceName: `${ref}-??????`, arnFormat: ArnFormat.COLON_RESOURCE_NAME })];
}

export function ssmParameterArn(stack: Stack, ref: string): string {
  if (ref.startsWith('arn:')) return ref;
  return stack.formatArn({ service: 'ssm', resource: 'parameter', resourceName: ref.replace(/^\//, '') });
}

function acknowledgeRunRole(role: Role): void {
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'cloudwatch:PutMetricData supports no resource-level permission; the statement is limited by the cloudwatch:namespace condition to the fleet namespace.',
  });
}
