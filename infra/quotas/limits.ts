/**
 * The AWS quotas a synthesized fleet can reach, each with the page that states it. A check (rules.ts)
 * measures a template against one of these; the message and the fix come from here, so a figure, its
 * source and what the user can do about it are read in one place.
 */

/** Where each figure is written down. */
export const Source = {
  iam: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html',
  cloudFormation: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html',
  putMetricAlarm: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html',
  putCompositeAlarm: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutCompositeAlarm.html',
  metricDataQuery: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_MetricDataQuery.html',
  cloudWatchQuotas: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html',
  dashboardBody: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/CloudWatch-Dashboard-Body-Structure.html',
  putDashboard: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutDashboard.html',
  alarmMuteRule: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-cloudwatch-alarmmuterule.html',
  lambdaConcurrency: 'https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html',
  muteTargets: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_MuteTargets.html',
  createSchedule: 'https://docs.aws.amazon.com/scheduler/latest/APIReference/API_CreateSchedule.html',
  lambdaInvoke: 'https://docs.aws.amazon.com/lambda/latest/dg/API_Invoke.html',
  lambdaQuotas: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  createFunction: 'https://docs.aws.amazon.com/lambda/latest/dg/API_CreateFunction.html',
  snsPolicy: 'https://docs.aws.amazon.com/sns/latest/dg/sns-access-policy-language-api-permissions-reference.html',
  createTopic: 'https://docs.aws.amazon.com/sns/latest/api/API_CreateTopic.html',
  sqsPolicy: 'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-policies.html',
  sqsQueue: 'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-queues.html',
  createLogGroup: 'https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_CreateLogGroup.html',
  eventBridgeQuotas: 'https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html',
  putRule: 'https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutRule.html',
} as const;

export interface Quota {
  /** The rule's name in cdk's validation report (acknowledge an adjustable one by it). */
  readonly id: string;
  readonly service: string;
  readonly limit: number;
  /** What is counted, read after the number: "characters of policy", "resources". */
  readonly noun: string;
  /** Read after the limit: "per role". */
  readonly per: string;
  readonly source: string;
  /** An account can have this raised: the finding can be acknowledged (cdk `Validations.acknowledge`). */
  readonly adjustable?: boolean;
  /** What the user can change, in the fleet config's words where one of ours is the cause. */
  readonly fix: string;
}

export const SPLIT_STACK =
  // Alarm, schedule and mute-rule stacks split by size on their own (infra/plan/stack-split.ts): a stack still over
  // the limit holds what does not split (the home stack's subscriptions, a region's run functions and their alarms).
  'hold less in it: fewer notify subscriptions (home stack) or fewer distinct schedules per probe region, or split the fleet in two (two fleet configs, each with its own `name`)';
export const SHORTER_NAMES = 'shorten the fleet name (`name` in the fleet config) or the target names (targets[].name)';

export const Quotas = {
  // IAM counts policy characters without white space: we count the compact JSON CloudFormation sends.
  rolePolicySize: {
    id: 'iam-role-policy-size',
    service: 'IAM',
    limit: 10_240,
    noun: 'characters of inline policy at their longest',
    per: 'per role, its inline policies and attached AWS::IAM::Policy together',
    source: Source.iam,
    fix: 'grant fewer resources: each account and region a secret ARN points to (headerSecrets, auth.oauth) adds a statement; keep secrets in fewer accounts and regions, or split the fleet in two (two fleet configs, each with its own `name`)',
  },
  managedPolicySize: {
    id: 'iam-managed-policy-size',
    service: 'IAM',
    limit: 6_144,
    noun: 'characters of policy (at its longest)',
    per: 'per managed policy',
    source: Source.iam,
    fix: 'split the managed policy in two, or use wildcards for resources that share a prefix',
  },
  trustPolicySize: {
    id: 'iam-trust-policy-size',
    service: 'IAM',
    limit: 2_048,
    noun: 'characters of trust policy',
    per: 'per role (default quota)',
    source: Source.iam,
    adjustable: true,
    fix: 'trust fewer principals, or have the role trust policy length quota raised (up to 4,096) and acknowledge this rule',
  },
  managedPoliciesPerRole: {
    id: 'iam-managed-policies-per-role',
    service: 'IAM',
    limit: 10,
    noun: 'managed policies attached',
    per: 'per role (default quota)',
    source: Source.iam,
    adjustable: true,
    fix: 'merge managed policies, or have the quota raised (up to 20) and acknowledge this rule',
  },
  // `cdk deploy` uploads every template to the bootstrap bucket and passes its URL: the S3 figure applies,
  // counted on the file as written and uploaded (CDK's own warning counts minified bytes).
  templateBytes: {
    id: 'cfn-template-size',
    service: 'CloudFormation',
    limit: 1_000_000,
    noun: 'bytes of template (the file cdk deploy uploads to S3)',
    per: 'per template from S3 (51,200 inline)',
    source: Source.cloudFormation,
    fix: SPLIT_STACK,
  },
  resources: {
    id: 'cfn-resources',
    service: 'CloudFormation',
    limit: 500,
    noun: 'resources',
    per: 'per stack',
    source: Source.cloudFormation,
    fix: SPLIT_STACK,
  },
  outputs: {
    id: 'cfn-outputs',
    service: 'CloudFormation',
    limit: 200,
    noun: 'outputs',
    per: 'per stack',
    source: Source.cloudFormation,
    fix: 'export fewer values from this stack',
  },
  parameters: {
    id: 'cfn-parameters',
    service: 'CloudFormation',
    limit: 200,
    noun: 'parameters',
    per: 'per stack',
    source: Source.cloudFormation,
    fix: 'use fewer parameters (CDK adds one per asset with the legacy synthesizer: use the default one)',
  },
  mappings: {
    id: 'cfn-mappings',
    service: 'CloudFormation',
    limit: 200,
    noun: 'mappings',
    per: 'per stack',
    source: Source.cloudFormation,
    fix: 'use fewer mappings',
  },
  mappingAttributes: {
    id: 'cfn-mapping-attributes',
    service: 'CloudFormation',
    limit: 200,
    noun: 'attributes',
    per: 'per mapping',
    source: Source.cloudFormation,
    fix: 'split the mapping',
  },
  templateDescription: {
    id: 'cfn-template-description',
    service: 'CloudFormation',
    limit: 1_024,
    noun: 'bytes of description',
    per: 'per template',
    source: Source.cloudFormation,
    fix: 'shorten the stack description',
  },
  stackName: {
    id: 'cfn-stack-name',
    service: 'CloudFormation',
    limit: 128,
    noun: 'characters in its stack name',
    per: 'per stack name',
    source: Source.cloudFormation,
    fix: 'shorten the fleet name (`name` in the fleet config)',
  },
  logicalId: {
    id: 'cfn-logical-id',
    service: 'CloudFormation',
    limit: 255,
    noun: 'characters in its logical id',
    per: 'per resource, output, parameter or mapping name',
    source: Source.cloudFormation,
    fix: SHORTER_NAMES,
  },
  alarmName: {
    id: 'cloudwatch-alarm-name',
    service: 'CloudWatch',
    limit: 255,
    noun: 'characters in its name (at its longest)',
    per: 'per alarm name',
    source: Source.putMetricAlarm,
    fix: SHORTER_NAMES,
  },
  alarmDescription: {
    id: 'cloudwatch-alarm-description',
    service: 'CloudWatch',
    limit: 1_024,
    noun: 'characters in its description (at its longest)',
    per: 'per alarm description',
    source: Source.putMetricAlarm,
    fix: "shorten what the page quotes: the target's url and runbookUrl, its name, or its probeRegions",
  },
  alarmActions: {
    id: 'cloudwatch-alarm-actions',
    service: 'CloudWatch',
    limit: 5,
    noun: 'actions for one state',
    per: 'per alarm state',
    source: Source.putMetricAlarm,
    fix: 'send the state to one SNS topic and subscribe the rest to it',
  },
  alarmMetrics: {
    id: 'cloudwatch-alarm-metrics',
    service: 'CloudWatch',
    limit: 10,
    noun: 'metrics in its metric math',
    per: 'per metric math alarm',
    source: Source.cloudWatchQuotas,
    fix: 'read fewer metrics in one alarm expression',
  },
  alarmExpression: {
    id: 'cloudwatch-alarm-expression',
    service: 'CloudWatch',
    limit: 2_048,
    noun: 'characters in a metric math expression',
    per: 'per expression',
    source: Source.metricDataQuery,
    fix: 'shorten the expression (fewer terms, shorter metric ids)',
  },
  alarmDimensions: {
    id: 'cloudwatch-alarm-dimensions',
    service: 'CloudWatch',
    limit: 30,
    noun: 'dimensions on one metric',
    per: 'per metric',
    source: Source.putMetricAlarm,
    fix: 'use fewer dimensions',
  },
  // PutMetricAlarm, Period: "Period multiplied by EvaluationPeriods can't be more than 604,800 seconds. For alarms
  // with a period of less than one hour (3,600 seconds), the total evaluation period can't be longer than one day."
  alarmEvaluationRange: {
    id: 'cloudwatch-alarm-evaluation-range',
    service: 'CloudWatch',
    limit: 86_400,
    noun: 'seconds of evaluation range (Period × EvaluationPeriods)',
    per: 'per alarm with a period under one hour',
    source: Source.putMetricAlarm,
    fix: 'lower failureThreshold, or give the target a slower schedule (an SLO burn window never exceeds this by construction)',
  },
  alarmLongEvaluationRange: {
    id: 'cloudwatch-alarm-long-evaluation-range',
    service: 'CloudWatch',
    limit: 604_800,
    noun: 'seconds of evaluation range (Period × EvaluationPeriods)',
    per: 'per alarm with a period of an hour or more',
    source: Source.putMetricAlarm,
    fix: 'lower failureThreshold',
  },
  compositeRuleAlarms: {
    id: 'cloudwatch-composite-rule-alarms',
    service: 'CloudWatch',
    limit: 100,
    noun: 'underlying alarms in its rule',
    per: 'per composite alarm',
    source: Source.putCompositeAlarm,
    fix: 'name fewer alarms in one composite (the SLO burn composites name 4 each)',
  },
  compositeRuleLength: {
    id: 'cloudwatch-composite-rule-length',
    service: 'CloudWatch',
    limit: 10_240,
    noun: 'characters in its AlarmRule (at its longest)',
    per: 'per composite alarm',
    source: Source.putCompositeAlarm,
    fix: SHORTER_NAMES,
  },
  // The API reference says 100; the CloudFormation registry schema cfn-lint ships still says 500.
  muteRuleAlarms: {
    id: 'cloudwatch-mute-rule-alarms',
    service: 'CloudWatch',
    limit: 100,
    noun: 'alarm names',
    per: 'per alarm mute rule',
    source: Source.muteTargets,
    fix: 'list fewer targets in one maintenance window (maintenance[].targets), or split the window in two',
  },
  dashboardWidgets: {
    id: 'cloudwatch-dashboard-widgets',
    service: 'CloudWatch',
    limit: 500,
    noun: 'widgets',
    per: 'per dashboard',
    source: Source.dashboardBody,
    fix: 'fewer widgets: the fleet dashboard adds three per probe region (probeRegions)',
  },
  dashboardWidgetMetrics: {
    id: 'cloudwatch-dashboard-widget-metrics',
    service: 'CloudWatch',
    limit: 500,
    noun: 'metrics in one widget',
    per: 'per widget',
    source: Source.cloudWatchQuotas,
    fix: 'graph fewer metrics per widget, or one Metrics Insights query instead of a line per metric',
  },
  dashboardMetrics: {
    id: 'cloudwatch-dashboard-metrics',
    service: 'CloudWatch',
    limit: 2_500,
    noun: 'metrics across its widgets',
    per: 'per dashboard',
    source: Source.cloudWatchQuotas,
    fix: 'graph fewer metrics, or Metrics Insights queries instead of a line per metric',
  },
  dashboardAlarms: {
    id: 'cloudwatch-dashboard-alarm-widget',
    service: 'CloudWatch',
    limit: 100,
    noun: 'alarms in one alarm status widget',
    per: 'per alarm status widget',
    source: Source.dashboardBody,
    fix: 'list at most 100 alarms per alarm status widget',
  },
  // CloudFormation creates a stack's resources in parallel, as many as their dependencies allow, and a throttled
  // PutMetricAlarm (3 a second per Region by default, CloudWatch quotas) is retried only so long before the stack
  // rolls back: the alarms no DependsOn orders are created at once (in-flight.ts counts them, alarm-pacing.ts
  // chains them). The figure checked is the fleet's pace: the account's PutMetricAlarm rate (accountQuotas).
  alarmsInFlight: {
    id: 'cloudwatch-alarms-in-flight',
    service: 'CloudWatch',
    limit: 3,
    noun: 'alarms CloudFormation can create at once (alarms no DependsOn chain orders)',
    per: 'per stack, one for each call a second PutMetricAlarm allows in its Region (3 by default)',
    source: Source.cloudWatchQuotas,
    adjustable: true,
    fix: 'chain the stack\'s alarms with DependsOn, at most as many chains as PutMetricAlarm allows calls a second (infra/constructs/alarm-pacing.ts), or have the quota raised and tell synth (accountQuotas "cloudwatch-put-metric-alarm")',
  },
  // Lambda keeps at least 100 of an account's concurrency unreserved, and a new account's concurrency quota can be
  // far below 101: any reservation then fails the deploy ("decreases account's UnreservedConcurrentExecution below
  // its minimum value"). The fleet reserves none; a reservation anywhere in its stacks is refused here.
  reservedConcurrency: {
    id: 'lambda-reserved-concurrency',
    service: 'Lambda',
    limit: 0,
    noun: 'reserved concurrent executions',
    per: 'per function on an account whose concurrency quota is 100 or less (new accounts), since 100 must stay unreserved',
    source: Source.lambdaConcurrency,
    adjustable: true,
    fix: 'reserve nothing (serialize the work another way, e.g. a lease), or acknowledge this rule on an account whose concurrency quota leaves room',
  },
  // Scheduler documents no maximum for Target.Input (the API and the CloudFormation schema say only
  // "minimum length 1"; 8,192 is EventBridge *rules'* target input). A Lambda target receives the input
  // as an asynchronous invocation's payload: Lambda now documents 1 MB for that, 256 KB until 2026 and
  // still for InvokeAsync. We check the smaller figure: a payload under it is accepted on both.
  scheduleInput: {
    id: 'scheduler-target-input',
    service: 'Lambda (asynchronous invocation payload, the schedule input)',
    limit: 256 * 1024,
    noun: 'bytes of target input (at its longest)',
    per: 'per asynchronous payload',
    source: Source.lambdaInvoke,
    fix: "the input carries its targets' config: shrink the largest target (tool.arguments, expect, headerSecrets) or put fewer targets in one schedule",
  },
  lambdaEnvironment: {
    id: 'lambda-environment-size',
    service: 'Lambda',
    limit: 4 * 1024,
    noun: 'bytes of environment variables (as Lambda measures them: the JSON of the variables, at their longest)',
    per: 'per function',
    source: Source.lambdaQuotas,
    fix: 'pass less in environment variables (the fleet name, probeRegions and home region are in them)',
  },
  snsPolicySize: {
    id: 'sns-topic-policy-size',
    service: 'SNS',
    limit: 30 * 1024,
    noun: 'bytes of topic policy (at its longest)',
    per: 'per topic policy',
    source: Source.snsPolicy,
    fix: 'grant publishers by a shared condition (aws:SourceArn with a wildcard) instead of one statement each',
  },
  snsPolicyStatements: {
    id: 'sns-topic-policy-statements',
    service: 'SNS',
    limit: 100,
    noun: 'statements',
    per: 'per topic policy',
    source: Source.snsPolicy,
    fix: 'merge statements that grant the same action',
  },
  sqsPolicySize: {
    id: 'sqs-queue-policy-size',
    service: 'SQS',
    limit: 8_192,
    noun: 'bytes of queue policy (at its longest)',
    per: 'per queue policy',
    source: Source.sqsPolicy,
    fix: 'grant senders by a shared condition (aws:SourceArn with a wildcard) instead of one statement each',
  },
  sqsPolicyStatements: {
    id: 'sqs-queue-policy-statements',
    service: 'SQS',
    limit: 20,
    noun: 'statements',
    per: 'per queue policy',
    source: Source.sqsPolicy,
    fix: 'merge statements that grant the same action',
  },
  sqsPolicyConditions: {
    id: 'sqs-queue-policy-conditions',
    service: 'SQS',
    limit: 10,
    noun: 'conditions',
    per: 'per queue policy',
    source: Source.sqsPolicy,
    fix: 'merge conditions (one ArnLike with a list of values)',
  },
  sqsPolicyPrincipals: {
    id: 'sqs-queue-policy-principals',
    service: 'SQS',
    limit: 50,
    noun: 'principals',
    per: 'per queue policy',
    source: Source.sqsPolicy,
    fix: 'grant fewer principals',
  },
  sqsPolicyActions: {
    id: 'sqs-queue-policy-actions',
    service: 'SQS',
    limit: 7,
    noun: 'actions in one statement',
    per: 'per statement',
    source: Source.sqsPolicy,
    fix: 'use a wildcard action or split the statement',
  },
  ruleTargets: {
    id: 'events-rule-targets',
    service: 'EventBridge',
    limit: 5,
    noun: 'targets',
    per: 'per rule',
    source: Source.eventBridgeQuotas,
    fix: 'split the rule',
  },
  eventPattern: {
    id: 'events-rule-pattern',
    service: 'EventBridge',
    limit: 2_048,
    noun: 'characters of event pattern',
    per: 'per rule',
    source: Source.eventBridgeQuotas,
    fix: 'match with fewer, broader wildcards',
  },
} satisfies Record<string, Quota>;
