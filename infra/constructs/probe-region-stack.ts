/**
 * One probe region: the run functions (one per rate, so each timeout fits under its period), their log
 * group, the schedules, the schedules' dead-letter queue, and the alarms that tell the canary owner
 * when the canary itself breaks here. Metrics go to the home region; nothing here pages a target owner.
 */
import { Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { Subscription } from '../../functions/base/config/schema/fleet.ts';
import { EnvVar } from '../../functions/base/config/env/env.ts';
import type { FleetNames } from '../plan/names.ts';
import type { RegionPlan } from '../plan/plan.ts';
import type { SecretScope } from '../plan/secret-scope.ts';
import { acknowledgeWildcardResources } from './acknowledge.ts';
import { CanaryFunction, canaryLogGroup } from './canary-function.ts';
import { deadLetterQueue } from './dead-letter-queue.ts';
import { deadLetterMetric, ownerAlarm } from './owner-alarm.ts';
import { ownFaultAlarms } from './own-fault-alarms.ts';
import { alarmOnDeliveryDeadLetters, deliveryDeadLetterQueue } from './delivery-dlq.ts';
import { RunLedgerTable } from './run-ledger.ts';
import { RunQueries } from './run-queries.ts';
import { RunSchedules } from './schedules.ts';
import { secretScopeArn } from './secret-arns.ts';
import { allowVpcPlacement, placeInVpc } from './run-network.ts';
import { proxyEnvironment } from '../plan/network.ts';
import { FleetTopic, topicArn } from './topics.ts';
import { telemetryEnvironment, telemetryStatements, telemetryWildcardReason } from './telemetry-grants.ts';
import type { TelemetrySettings } from '../../functions/base/config/schema/telemetry.ts';

/** Memory of a run function: concurrent MCP sessions, not computation. */
export const DEFAULT_RUN_MEMORY_MB = 256;
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
  /** @default - DEFAULT_LOG_RETENTION (one month, canary-function.ts) */
  readonly logRetention?: RetentionDays;
  /** @default - DEFAULT_RUN_MEMORY_MB (256) */
  readonly memorySize?: number;
  /** The OpenTelemetry export (config/telemetry.ts). @default - off */
  readonly telemetry?: TelemetrySettings | undefined;
}

export class ProbeRegionStack extends Stack {
  readonly functions = new Map<string, CanaryFunction>();
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: ProbeRegionStackProps) {
    super(scope, id, props);
    const { names, plan } = props;
    // One log group for the region's run functions: the brief reads it by name in every region.
    const logGroup = canaryLogGroup(this, 'RunLogs', names.runLogGroup, props.logRetention);

    const role = new Role(this, 'RunRole', {
      description: 'mcp-canary run: writes its log, publishes its verdicts to the home region, reads the referenced secrets only.',
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: {
        run: new PolicyDocument({
          statements: [...runStatements(this, logGroup, props.namespace, plan.secretScopes), ...telemetryStatements(this, props.telemetry)],
        }),
      },
    });
    acknowledgeRunRole(
      role,
      plan.secretScopes.map((s) => secretScopeArn(this, s)),
      telemetryWildcardReason(props.telemetry),
    );
    // The fleet's egress proxy and its VPC (run-network.ts); the proxy's credentials stay a reference.
    const { vpc } = plan.network;
    const proxyEnv = proxyEnvironment(plan.network);
    if (vpc) allowVpcPlacement(role, vpc);

    this.deadLetterQueue = deadLetterQueue(
      this,
      'ScheduleDlq',
      names.scheduleDlq,
      "the schedules and of the run functions' async invocations",
    );

    for (const rate of plan.rates) {
      const fn = new CanaryFunction(this, `Run-${rate.rateSlug}`, {
        handlerName: 'run',
        functionName: names.runFunction(rate.rateSlug),
        description: `mcp-canary: judges targets ${rate.schedule} from ${this.region}; the schedule's payload names them.`,
        memorySize: props.memorySize ?? DEFAULT_RUN_MEMORY_MB,
        timeout: Duration.seconds(rate.timeoutSeconds),
        role,
        logGroup,
        environment: {
          [EnvVar.homeRegion]: props.homeRegion,
          [EnvVar.namespace]: props.namespace,
          ...(proxyEnv ? { [EnvVar.proxy]: proxyEnv } : {}),
          ...telemetryEnvironment(props.telemetry),
        },
        retryAttempts: RUN_ASYNC_RETRY_ATTEMPTS,
        maxEventAge: RUN_MAX_EVENT_AGE,
        onFailure: new SqsDestination(this.deadLetterQueue),
      });
      if (vpc) placeInVpc(fn, vpc);
      this.functions.set(rate.rateSlug, fn);
    }

    // One claim per scheduled run and period, whatever AWS delivers twice (run-ledger.ts).
    new RunLedgerTable(this, 'RunLedger', { tableName: `${names.fleet}-run-ledger` }).grantRuns(role, this.functions.values());
    // The Logs Insights queries the dashboard links to, run on demand rather than on every refresh.
    new RunQueries(this, 'RunQueries', { names, logGroup });

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
        description: `The mcp-canary run function ${fn.node.id} in ${this.region} failed, was throttled (out of concurrency), or had runs dropped unrun in ${props.failureThreshold} period(s) of ${rate.schedule} in a row: its targets' runs were lost or late, and their dead-man alarms will follow. For the canary owner. Look at the function's errors, throttles and AsyncEventsDropped, the account's Lambda concurrency, and ${names.runLogGroup} in ${this.region}.`,
        // AsyncEventsDropped: events Lambda's async queue dropped without running them (throttled past the
        // 60 s maximum event age, or "deleted from the queue without being sent": the Lambda guide), some
        // of which reach no dead-letter queue.
        metric: new MathExpression({
          expression: 'errors + throttles + dropped',
          usingMetrics: {
            errors: fn.metricErrors({ period, statistic: 'Sum' }),
            throttles: fn.metricThrottles({ period, statistic: 'Sum' }),
            dropped: fn.metric('AsyncEventsDropped', { period, statistic: 'Sum' }),
          },
          label: 'Errors + throttles + dropped events',
          period,
        }),
        periods: props.failureThreshold,
        ownerTopicArn: ownerArn,
      });
    }

    // The run's own faults (ledger, publish to the home region, credential reads), heard in this region.
    ownFaultAlarms(this, {
      names,
      namespace: props.namespace,
      region: this.region,
      homeRegion: props.homeRegion,
      periodSeconds: Math.min(...plan.rates.map((r) => r.periodSeconds)),
      ownerTopicArn: ownerArn,
    });

    ownerAlarm(this, 'ScheduleDlqAlarm', {
      alarmName: names.canaryAlarm('schedule-dlq'),
      description: `mcp-canary runs in ${this.region} did not happen: EventBridge Scheduler could not deliver them, or the run function dropped them (an error, throttling, or an event older than ${RUN_MAX_EVENT_AGE.toSeconds()} s). They are in the SQS queue ${names.scheduleDlq}. For the canary owner. Read a message for the error, fix the run function or its permissions, then purge the queue.`,
      metric: deadLetterMetric(this.deadLetterQueue, Duration.minutes(5)),
      ownerTopicArn: ownerArn,
    });
  }
}

function runStatements(stack: Stack, logGroup: LogGroup, namespace: string, scopes: readonly SecretScope[]): PolicyStatement[] {
  const statements = [
    new PolicyStatement({
      effect: Effect.ALLOW,
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
    // PutMetricData has no resource type; the namespace condition is its only scope.
    new PolicyStatement({
      effect: Effect.ALLOW,
      actions: ['cloudwatch:PutMetricData'],
      resources: ['*'],
      conditions: { StringEquals: { 'cloudwatch:namespace': namespace } },
    }),
  ];
  // One resource per account and region the references live in, never one per secret: secret-scope.ts.
  const sm = scopes.filter((s) => s.service === 'secretsmanager').map((s) => secretScopeArn(stack, s));
  const ssm = scopes.filter((s) => s.service === 'ssm').map((s) => secretScopeArn(stack, s));
  if (sm.length) {
    statements.push(new PolicyStatement({ effect: Effect.ALLOW, actions: ['secretsmanager:GetSecretValue'], resources: sm }));
    // Batched reads (functions/io/secrets/batched.ts). BatchGetSecretValue has no resource type; it returns
    // only the secrets GetSecretValue above allows, so it widens nothing.
    statements.push(new PolicyStatement({ effect: Effect.ALLOW, actions: ['secretsmanager:BatchGetSecretValue'], resources: ['*'] }));
  }
  if (ssm.length)
    statements.push(new PolicyStatement({ effect: Effect.ALLOW, actions: ['ssm:GetParameter', 'ssm:GetParameters'], resources: ssm }));
  return statements;
}

function acknowledgeRunRole(role: Role, secretResources: readonly string[], telemetryReason: string): void {
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: `cloudwatch:PutMetricData supports no resource-level permission; the statement is limited by the cloudwatch:namespace condition to the fleet namespace. secretsmanager:BatchGetSecretValue has no resource type either, and returns only secrets the role may GetSecretValue.${telemetryReason}`,
  });
  acknowledgeWildcardResources(
    role,
    secretResources,
    "The run reads only secrets named mcp-canary/* (SSM: /mcp-canary/*), a rule synth enforces on every reference (infra/plan/secret-scope.ts): one resource per account and region instead of one per secret keeps the role policy inside IAM's 10,240 characters at any fleet size.",
  );
}
