/**
 * The AWS quotas a deployed fleet spends while it runs (and while it deploys), each with the page that
 * states its default: the rate an API accepts per account and Region, or how many functions run at once.
 * No template shows these: `runtime-load.ts` computes what the fleet asks of each, from its plan, and
 * `runtime.ts` compares the two. Template quotas (sizes, counts, lengths) are limits.ts's.
 *
 * Every figure is the default of an account that never asked for more. An account that has had one
 * raised tells synth so (`accountQuotas`, by `id`), and the checks and the alarm pacing use its figure.
 */

/** Where each figure is written down. */
export const RuntimeSource = {
  schedulerQuotas: 'https://docs.aws.amazon.com/scheduler/latest/UserGuide/scheduler-quotas.html',
  lambdaQuotas: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  lambdaReserved: 'https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html',
  cloudWatchQuotas: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html',
  ssmQuotas: 'https://docs.aws.amazon.com/general/latest/gr/ssm.html',
  ssmThroughput: 'https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-throughput.html',
  secretsManagerQuotas: 'https://docs.aws.amazon.com/secretsmanager/latest/userguide/reference_limits.html',
  kmsQuotas: 'https://docs.aws.amazon.com/kms/latest/developerguide/requests-per-second.html',
  dynamoDbOnDemand: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html',
  snsDelivery: 'https://docs.aws.amazon.com/sns/latest/dg/sns-message-delivery-retries.html',
} as const;

export interface RuntimeQuota {
  /** Its key in `accountQuotas`, and its warning's id (`mcp-canary:quota:<id>`). */
  readonly id: RuntimeQuotaId;
  readonly service: string;
  /** The quota as AWS's page (or our own setting) names it. */
  readonly name: string;
  /** What is counted, read after the number: "calls a second". */
  readonly unit: string;
  /** The default for an account in `region`. */
  limit(region: string): number;
  /** The default as the docs state it, for the table. */
  readonly limitText: string;
  readonly source: string;
  /** How to get more: the Service Quotas request, or the setting to change. */
  readonly raise: string;
}

export const RUNTIME_QUOTA_IDS = [
  'scheduler-invocations',
  'lambda-concurrency',
  'cloudwatch-put-metric-data',
  'ssm-get-parameter',
  'secrets-manager-get-secret-value',
  'secrets-manager-batch-get-secret-value',
  'kms-cryptographic-operations',
  'dynamodb-new-table-writes',
  'cloudwatch-put-metric-alarm',
  'sns-page-deliveries',
] as const;
export type RuntimeQuotaId = (typeof RUNTIME_QUOTA_IDS)[number];

/**
 * The Regions the Scheduler quotas page lists with its higher defaults ("primary Regions"). The page gives
 * 1,000 invocations a second there; AWS's 2024 announcement raised "most Regions" from 500, so 500 is
 * what we assume elsewhere.
 */
const SCHEDULER_PRIMARY_REGIONS = new Set([
  'us-east-1',
  'us-east-2',
  'us-west-2',
  'ap-northeast-1',
  'ap-south-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'eu-central-1',
  'eu-west-1',
  'eu-west-2',
  'sa-east-1',
]);
/** KMS raised these three to 10,000 symmetric operations a second (2018) and others to 5,500; some have more since. */
const KMS_LARGE_REGIONS = new Set(['us-east-1', 'us-west-2', 'eu-west-1']);

const flat = (n: number) => () => n;

export const RuntimeQuotas = {
  schedulerInvocations: {
    id: 'scheduler-invocations',
    service: 'EventBridge Scheduler',
    name: 'Invocations throttle limit',
    unit: 'invocations a second',
    limit: (region) => (SCHEDULER_PRIMARY_REGIONS.has(region) ? 1_000 : 500),
    limitText: '1,000 a second in primary Regions (500 assumed elsewhere)',
    source: RuntimeSource.schedulerQuotas,
    raise: 'request more (Service Quotas → Amazon EventBridge Scheduler → "Invocations throttle limit")',
  },
  lambdaConcurrency: {
    id: 'lambda-concurrency',
    service: 'Lambda',
    name: 'Concurrent executions',
    unit: 'executions at once',
    limit: flat(1_000),
    limitText: '1,000 per Region; "new AWS accounts have reduced concurrency"',
    source: RuntimeSource.lambdaQuotas,
    raise:
      'request more (Service Quotas → AWS Lambda → "Concurrent executions"); a new account starts lower, so check its figure there first',
  },
  putMetricData: {
    id: 'cloudwatch-put-metric-data',
    service: 'CloudWatch',
    name: 'PutMetricData',
    unit: 'calls a second',
    limit: flat(500),
    limitText: '500 a second',
    source: RuntimeSource.cloudWatchQuotas,
    raise: 'request more (Service Quotas → Amazon CloudWatch → PutMetricData)',
  },
  ssmGetParameter: {
    id: 'ssm-get-parameter',
    service: 'Systems Manager Parameter Store',
    name: 'GetParameter standard throughput',
    unit: 'calls a second',
    limit: flat(40),
    limitText: '40 a second (GetParameter, GetParameters, GetParametersByPath together); 10,000 with higher throughput',
    source: RuntimeSource.ssmQuotas,
    raise:
      'turn on higher throughput in that Region (a paid setting, $0.05 per 10,000 calls, ' +
      RuntimeSource.ssmThroughput +
      ': aws ssm update-service-setting --setting-id arn:aws:ssm:<region>:<account>:servicesetting/ssm/parameter-store/high-throughput-enabled --setting-value true), or keep these credentials in Secrets Manager',
  },
  secretsManagerGetSecretValue: {
    id: 'secrets-manager-get-secret-value',
    service: 'Secrets Manager',
    name: 'GetSecretValue',
    unit: 'calls a second',
    limit: flat(10_000),
    limitText: '10,000 a second',
    source: RuntimeSource.secretsManagerQuotas,
    raise:
      'keep the credentials in fewer Regions read by more probe Regions, or split the fleet (Secrets Manager does not raise this quota)',
  },
  // The run's batched reads (functions/io/secrets/batched.ts) go out as BatchGetSecretValue, which has a quota
  // of its own, far below GetSecretValue's, and AWS does not raise it.
  secretsManagerBatchGetSecretValue: {
    id: 'secrets-manager-batch-get-secret-value',
    service: 'Secrets Manager',
    name: 'BatchGetSecretValue',
    unit: 'calls a second',
    limit: flat(100),
    limitText: '100 a second, not adjustable',
    source: RuntimeSource.secretsManagerQuotas,
    raise:
      'keep a copy of each secret in every probe Region and reference it by name (each Region then reads its own), or use SSM SecureString parameters with higher throughput (Secrets Manager does not raise this quota)',
  },
  kmsCryptographicOperations: {
    id: 'kms-cryptographic-operations',
    service: 'KMS',
    name: 'Cryptographic operations (symmetric) request rate',
    unit: 'calls a second',
    limit: (region) => (KMS_LARGE_REGIONS.has(region) ? 10_000 : 5_500),
    limitText: '5,500 a second, 10,000 in us-east-1, us-west-2 and eu-west-1 (more in some Regions)',
    source: RuntimeSource.kmsQuotas,
    raise: 'request more (Service Quotas → AWS Key Management Service → "Cryptographic operations (symmetric) request rate")',
  },
  dynamoDbNewTableWrites: {
    id: 'dynamodb-new-table-writes',
    service: 'DynamoDB (on demand)',
    name: 'initial throughput of a new on-demand table',
    unit: 'writes a second',
    limit: flat(4_000),
    limitText: '4,000 writes a second for a new table, then twice its previous peak',
    source: RuntimeSource.dynamoDbOnDemand,
    raise:
      'expect throttled claims in the first minutes after the first deploy (the table doubles its previous peak within 30 minutes), or pre-warm the run ledger table (warm throughput)',
  },
  putMetricAlarm: {
    id: 'cloudwatch-put-metric-alarm',
    service: 'CloudWatch',
    name: 'PutMetricAlarm',
    unit: 'calls a second',
    limit: flat(3),
    limitText: '3 a second',
    source: RuntimeSource.cloudWatchQuotas,
    raise: 'request more (Service Quotas → Amazon CloudWatch → PutMetricAlarm) to deploy faster, then tell synth (accountQuotas)',
  },
  // Not an AWS quota: our own HTTPS delivery policy sends a pager at most `maxReceivesPerSecond` messages a second
  // (infra/constructs/topics.ts, set for what a pager integration accepts), and a page that arrives after the next
  // alarm period describes a minute already gone. So the figure is how long the last page of a mass incident waits.
  snsPageDeliveries: {
    id: 'sns-page-deliveries',
    service: 'SNS',
    name: "HTTPS page delivery: every target paging at once, at the delivery policy's maxReceivesPerSecond",
    unit: 'seconds until the last page',
    limit: flat(60),
    limitText:
      'one alarm period (60 s); 10 deliveries a second (our delivery policy; PagerDuty accepts about 120 events a minute per integration key)',
    source: RuntimeSource.snsDelivery,
    raise:
      'page fewer targets through one integration: split the fleet (two fleet configs, each with its own `name` and notify.pages), or accept that the last page of a mass incident arrives that much later',
  },
} satisfies Record<string, RuntimeQuota>;

export const RUNTIME_QUOTAS: readonly RuntimeQuota[] = Object.values(RuntimeQuotas);
