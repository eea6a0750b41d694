/**
 * Every list price the cost model uses, in one place: USD, region us-east-1, on-demand, no free tier
 * unless a line says so. Taken from the AWS pricing pages for Lambda, CloudWatch (metrics, alarms, logs,
 * Logs Insights, dashboards, Synthetics), EventBridge Scheduler, Secrets Manager, Systems Manager
 * Parameter Store, KMS and DynamoDB (on-demand) as of PRICES_AS_OF; the machine the
 * bench runs on has no network, so they were not re-read from there: check them before you quote them.
 */

export const PRICES_AS_OF = '2026-11-29';
export const PRICES_REGION = 'us-east-1';

/** A tiered monthly price: `upTo` is the last unit the price applies to. */
export interface Tier {
  readonly upTo: number;
  readonly usd: number;
}

export const PRICES = {
  /** AWS Lambda duration, per GB-second (first 7.5 billion GB-s a month; later tiers are cheaper). */
  lambdaGbSecond: { arm64: 0.0000133334, x86_64: 0.0000166667 },
  /** AWS Lambda requests, per request ($0.20 per million). */
  lambdaRequest: 0.2 / 1e6,
  /** EventBridge Scheduler invocations, per invocation ($1.00 per million) after the monthly allowance. */
  schedulerInvocation: 1 / 1e6,
  /** Scheduler invocations a month that cost nothing, per account (a standing allowance, not a trial). */
  schedulerFreeInvocationsPerMonth: 14_000_000,
  /** CloudWatch custom metrics, per metric-month, tiered over the account's metrics. */
  customMetricTiers: [
    { upTo: 10_000, usd: 0.3 },
    { upTo: 250_000, usd: 0.1 },
    { upTo: 1_000_000, usd: 0.05 },
    { upTo: Infinity, usd: 0.02 },
  ] satisfies Tier[],
  /** CloudWatch PutMetricData, per request ($0.01 per 1,000). */
  putMetricDataRequest: 0.01 / 1000,
  /**
   * CloudWatch alarms, standard resolution, per alarm metric-month: a metric-math alarm pays for every
   * metric it reads (an alarm over 3 regions' metrics is 3 alarm metrics, $0.30).
   */
  alarmMetric: 0.1,
  /** CloudWatch Logs ingestion (Standard class), per GB. */
  logsIngestionGb: 0.5,
  /** CloudWatch Logs storage, per GB-month (billed on compressed bytes; the model uses raw, an upper bound). */
  logsStorageGbMonth: 0.03,
  /** CloudWatch dashboard, per dashboard-month. */
  dashboard: 3,
  /** CloudWatch Logs Insights, per GB scanned: every run of a query, a dashboard widget's on every refresh. */
  logsInsightsGbScanned: 0.005,
  /**
   * CloudWatch GetMetricData, per metric requested. The console's own reads for a dashboard are not listed
   * as billed; `npm run cost` shows what they would be if they were, as an upper bound, not in the total.
   */
  getMetricDataMetric: 0.01 / 1000,
  /** Secrets Manager, per secret-month (each replica or copy in another region is a secret of its own). */
  secretsManagerSecret: 0.4,
  /** Secrets Manager API calls, per call ($0.05 per 10,000). */
  secretsManagerCall: 0.05 / 10_000,
  /** SSM Parameter Store standard parameters: no storage charge, and standard-throughput GetParameter is free. */
  ssmStandardParameter: 0,
  /**
   * SSM Parameter Store API interactions with higher throughput turned on, per call ($0.05 per 10,000): what a
   * Region pays once its reads pass the 40-a-second standard throughput (infra/quotas/runtime-limits.ts).
   */
  ssmHigherThroughputCall: 0.05 / 10_000,
  /** AWS KMS requests, per request ($0.03 per 10,000): the Decrypt behind each SecureString read. */
  kmsRequest: 0.03 / 10_000,
  /** DynamoDB on-demand, per write request unit (up to 1 KB) ($0.625 per million). */
  dynamoWriteRequestUnit: 0.625 / 1e6,
  /** DynamoDB storage (Standard table class), per GB-month. */
  dynamoStorageGbMonth: 0.25,
  /** CloudWatch Synthetics, per canary run (plus that canary's own Lambda, S3 and logs, not counted here). */
  syntheticsCanaryRun: 0.0012,
} as const;

export type Prices = typeof PRICES;
