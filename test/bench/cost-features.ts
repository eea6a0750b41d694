/**
 * The optional features' bill: what turning one on adds to a month, counted from what the synthesized
 * templates add (alarms and the metrics they read, composite alarms, functions and their memory, the
 * refresher's grants and regions, buckets, CloudFront) and from what each feature's run does, as its own
 * doc measures it (stated beside each line). A feature that is off adds nothing: its delta is empty.
 * Pure: no I/O, prices passed in.
 */
import { runsPerMonth, SECONDS_PER_MONTH } from './cost-model.ts';
import type { Prices } from './prices.ts';

/**
 * The prices only the optional features use, us-east-1 list prices as of PRICES_AS_OF (prices.ts), each
 * with the page it comes from. Not re-read from this machine (no network): check them before quoting.
 */
export const FEATURE_PRICES = {
  /** aws.amazon.com/cloudwatch/pricing/ (Alarms): a composite alarm, per alarm-month. */
  compositeAlarm: 0.5,
  /** aws.amazon.com/cloudwatch/pricing/ (API): "other" requests such as DescribeAlarmHistory, $0.01 per 1,000. */
  cloudWatchApiRequest: 0.01 / 1000,
  /** aws.amazon.com/s3/pricing/ (S3 Standard): PUT, COPY, POST, LIST, $0.005 per 1,000. */
  s3PutRequest: 0.005 / 1000,
  /** aws.amazon.com/s3/pricing/ (S3 Standard, first 50 TB): per GB-month. */
  s3StorageGbMonth: 0.023,
  /** aws.amazon.com/cloudfront/pricing/: the always-free tier, per month, per account. */
  cloudFrontFreeRequests: 10_000_000,
  cloudFrontFreeGb: 1024,
  /** aws.amazon.com/cloudfront/pricing/: data transfer out to the internet, United States/Europe, first 10 TB, per GB. */
  cloudFrontGb: 0.085,
  /**
   * aws.amazon.com/xray/pricing/: traces recorded, $5.00 per million ($0.000005 a trace) past the always-free first
   * 100,000 a month per account: what traces sent to X-Ray's OTLP endpoint (xray.<region>/v1/traces) are billed.
   */
  xrayTraceRecorded: 5 / 1e6,
  xrayFreeTracesPerMonth: 100_000,
  /** aws.amazon.com/privatelink/pricing/: an interface endpoint, per AZ-hour, and per GB processed (first PB). */
  interfaceEndpointAzHour: 0.01,
  interfaceEndpointGb: 0.01,
} as const;

export type FeaturePrices = typeof FEATURE_PRICES;

type Resources = Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>;
interface Stack {
  readonly region: string;
  readonly template: { readonly Resources: Resources };
}

/** What a feature's stacks add to the fleet's: read from the synthesized templates, with and without it. */
export interface FeatureDelta {
  readonly metricAlarms: number;
  /** Metrics those alarms read: 1 for a standard alarm, each MetricStat of a metric-math alarm. */
  readonly alarmMetrics: number;
  readonly compositeAlarms: number;
  readonly functions: ReadonlyArray<{ readonly memoryMb: number; readonly architecture: 'arm64' | 'x86_64' }>;
  readonly buckets: number;
  readonly distributions: number;
  /** The refresher's grants (its schedule's input): each one's probe regions. */
  readonly grants: ReadonlyArray<{ readonly regions: readonly string[] }>;
}

interface Count {
  metricAlarms: number;
  alarmMetrics: number;
  compositeAlarms: number;
  functions: Map<string, { memoryMb: number; architecture: 'arm64' | 'x86_64' }>;
  buckets: number;
  distributions: number;
  grants: Array<{ regions: string[] }>;
}

function count(stacks: readonly Stack[]): Count {
  const c: Count = { metricAlarms: 0, alarmMetrics: 0, compositeAlarms: 0, functions: new Map(), buckets: 0, distributions: 0, grants: [] };
  for (const s of stacks) {
    for (const [id, r] of Object.entries(s.template.Resources)) {
      const p = r.Properties ?? {};
      if (r.Type === 'AWS::CloudWatch::Alarm') {
        const metrics = p.Metrics as Array<{ MetricStat?: unknown }> | undefined;
        c.metricAlarms++;
        c.alarmMetrics += metrics ? metrics.filter((m) => m.MetricStat !== undefined).length : 1;
      } else if (r.Type === 'AWS::CloudWatch::CompositeAlarm') c.compositeAlarms++;
      else if (r.Type === 'AWS::Lambda::Function') {
        const arch = (p.Architectures as string[] | undefined)?.[0] === 'arm64' ? 'arm64' : 'x86_64';
        c.functions.set(`${s.region}|${String(p.FunctionName ?? id)}`, { memoryMb: Number(p.MemorySize ?? 128), architecture: arch });
      } else if (r.Type === 'AWS::S3::Bucket') c.buckets++;
      else if (r.Type === 'AWS::CloudFront::Distribution') c.distributions++;
      else if (r.Type === 'AWS::Events::Rule') {
        for (const t of (p.Targets as Array<{ Input?: string }> | undefined) ?? []) {
          const input = JSON.parse(t.Input ?? '{}') as { grants?: Array<{ regions?: string[] }> };
          for (const g of input.grants ?? []) c.grants.push({ regions: g.regions ?? [] });
        }
      }
    }
  }
  return c;
}

/** What `withFeature` deploys beyond `base` (the same fleet with the feature off). */
export function featureDelta(base: readonly Stack[], withFeature: readonly Stack[]): FeatureDelta {
  const a = count(base);
  const b = count(withFeature);
  return {
    metricAlarms: b.metricAlarms - a.metricAlarms,
    alarmMetrics: b.alarmMetrics - a.alarmMetrics,
    compositeAlarms: b.compositeAlarms - a.compositeAlarms,
    functions: [...b.functions].filter(([k]) => !a.functions.has(k)).map(([, f]) => f),
    buckets: b.buckets - a.buckets,
    distributions: b.distributions - a.distributions,
    grants: b.grants.slice(a.grants.length),
  };
}

/** One feature's month: its lines, and what it costs per target it applies to. */
export interface FeatureCost {
  readonly parts: Readonly<Record<string, number>>;
  readonly total: number;
  /** Targets it is priced for (burn alarms: the targets with them on; the refresher: the delegated ones). */
  readonly targets: number;
  readonly perTarget: number;
}

function feature(parts: Record<string, number>, targets: number): FeatureCost {
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  return { parts, total, targets, perTarget: total / Math.max(1, targets) };
}

function alarms(d: FeatureDelta, prices: Prices, fp: FeaturePrices): number {
  return d.alarmMetrics * prices.alarmMetric + d.compositeAlarms * fp.compositeAlarm;
}

/** A scheduled function's month: its invocations at `billedMs`, and their share past the Scheduler allowance. */
function scheduled(
  d: FeatureDelta,
  periodSeconds: number,
  billedMs: number,
  prices: Prices,
  fleetSchedulerInvocations: number,
  viaScheduler: boolean,
): { lambda: number; scheduler: number } {
  const runs = runsPerMonth(periodSeconds);
  const lambda = d.functions.reduce(
    (n, f) =>
      n + runs * (prices.lambdaRequest + (f.memoryMb / 1024) * (Math.ceil(billedMs) / 1000) * prices.lambdaGbSecond[f.architecture]),
    0,
  );
  // EventBridge rules' scheduled events are free; Scheduler's past its monthly allowance are not.
  const free = prices.schedulerFreeInvocationsPerMonth;
  const billable = (n: number) => Math.max(0, n - free);
  const scheduler = viaScheduler
    ? (billable(fleetSchedulerInvocations + runs) - billable(fleetSchedulerInvocations)) * prices.schedulerInvocation
    : 0;
  return { lambda, scheduler };
}

/** `slo.burnAlarms`: eight window alarms (each reading its metrics) and two composites per target. */
export function burnAlarmsCost(d: FeatureDelta, targets: number, prices: Prices, fp: FeaturePrices = FEATURE_PRICES): FeatureCost {
  return feature(
    { 'window alarms': d.alarmMetrics * prices.alarmMetric, 'composite alarms': d.compositeAlarms * fp.compositeAlarm },
    targets,
  );
}

export interface StatusUsage {
  readonly periodSeconds: number;
  readonly billedMs: number;
  /** GetMetricData metrics per shown target per run, warm (docs/reports-and-status.md: about 2.5). */
  readonly metricsPerTargetRun: number;
  /** PUTs per run: status.json and index.html. */
  readonly putsPerRun: number;
  /** Bytes the two objects take (storage; the page is rewritten, not versioned). */
  readonly objectBytes: number;
  /** Log bytes per run (its log group, ingested and kept). */
  readonly logBytesPerRun: number;
  /** Page views a month (public page only), each one request for index.html of `objectBytes`/2. */
  readonly viewsPerMonth: number;
}

/** The status page: its function every 5 minutes, its reads, its two PUTs, its errors alarm, CloudFront when public. */
export function statusPageCost(
  d: FeatureDelta,
  shownTargets: number,
  u: StatusUsage,
  prices: Prices,
  fleetSchedulerInvocations: number,
  fp: FeaturePrices = FEATURE_PRICES,
): FeatureCost {
  if (d.functions.length === 0) return feature({}, shownTargets); // no status function: the page is off
  const runs = runsPerMonth(u.periodSeconds);
  const GB = 2 ** 30;
  const viewGb = (u.viewsPerMonth * (u.objectBytes / 2)) / GB;
  return feature(
    {
      ...scheduled(d, u.periodSeconds, u.billedMs, prices, fleetSchedulerInvocations, true),
      GetMetricData: runs * shownTargets * u.metricsPerTargetRun * prices.getMetricDataMetric,
      'S3 PUTs': runs * u.putsPerRun * fp.s3PutRequest,
      'S3 storage': (u.objectBytes / GB) * fp.s3StorageGbMonth,
      logs: ((runs * u.logBytesPerRun) / GB) * (prices.logsIngestionGb + prices.logsStorageGbMonth),
      alarms: alarms(d, prices, fp),
      CloudFront:
        d.distributions > 0
          ? Math.max(0, viewGb - fp.cloudFrontFreeGb) * fp.cloudFrontGb +
            (Math.max(0, u.viewsPerMonth - fp.cloudFrontFreeRequests) / 10_000) * 0.01
          : 0,
    },
    shownTargets,
  );
}

export interface RefresherUsage {
  readonly periodSeconds: number;
  readonly billedMs: number;
  /** Renewals a month per grant: at half an access token's life (1-hour tokens: every 30 minutes). */
  readonly renewalsPerMonth: number;
  /** A probe function re-reads its access secret at most once a minute per warm container (ACCESS_TTL_MS). */
  readonly probeReadSeconds: number;
  /** Metrics the refresher publishes per grant (CanaryCredentialRefused, CredentialRefreshFailed). */
  readonly metricsPerGrant: number;
}

/**
 * The delegated-OAuth refresher: the grant and one published access secret per probe region (Secrets
 * Manager stores them, the function creates them: not in the templates, counted from the grants'
 * regions), their API calls, its two metrics per grant and one PutMetricData a run, its alarms, its Lambda.
 */
export function refresherCost(d: FeatureDelta, u: RefresherUsage, prices: Prices, fp: FeaturePrices = FEATURE_PRICES): FeatureCost {
  const runs = runsPerMonth(u.periodSeconds);
  const secrets = d.grants.reduce((n, g) => n + 1 + g.regions.length, 0);
  const calls = d.grants.reduce(
    (n, g) =>
      n +
      runs * (1 + g.regions.length) + // each run reads the grant and every region's copy
      u.renewalsPerMonth * (2 + g.regions.length) + // a renewal: the lease, the store, each copy
      (SECONDS_PER_MONTH / u.probeReadSeconds) * g.regions.length, // the probes' reads, at most
    0,
  );
  return feature(
    {
      ...scheduled(d, u.periodSeconds, u.billedMs, prices, 0, false),
      secrets: secrets * prices.secretsManagerSecret,
      'Secrets Manager API': calls * prices.secretsManagerCall,
      'custom metrics': d.grants.length * u.metricsPerGrant * prices.customMetricTiers[0]!.usd,
      PutMetricData: d.grants.length > 0 ? runs * prices.putMetricDataRequest : 0,
      alarms: alarms(d, prices, fp),
    },
    d.grants.length,
  );
}

/**
 * OpenTelemetry traces to AWS's OTLP endpoint (telemetry with sigv4 and xray.<region>): every target's run is one
 * trace (functions/io/telemetry/spans.ts: a root span, its steps and requests), recorded by X-Ray. `runsPerMonth`
 * is every target·region's runs a month, summed; `targets` what the per-target figure divides by.
 */
export function traceExportCost(runsPerMonth: number, targets: number, fp: FeaturePrices = FEATURE_PRICES): FeatureCost {
  const billable = Math.max(0, runsPerMonth - fp.xrayFreeTracesPerMonth);
  return feature({ 'X-Ray traces recorded': billable * fp.xrayTraceRecorded }, targets);
}

/** GetMetricData's limits (API reference): 500 queries a request, 100,800 datapoints a response. */
const MAX_QUERIES = 500;
const MAX_DATAPOINTS = 100_800;

/**
 * One `mcp-canary report`, counted as its own cost counter counts (functions/io/history/metrics-reader.ts:
 * two queries per target, 250 targets a request, every NextToken page a request for all its queries),
 * at the resolution it reads (1-minute up to 15 days, 5-minute to 63, hourly beyond), plus the
 * DescribeAlarmHistory pages (100 records each) and the DescribeAlarms calls that tell which page alarms
 * exist (100 names each, functions/io/history/alarm-history.ts). FilterLogEvents has no request charge.
 */
export function reportCost(
  targets: number,
  days: number,
  alarmHistoryRecords: number,
  prices: Prices,
  fp: FeaturePrices = FEATURE_PRICES,
): { requests: number; metrics: number; usd: number } {
  const period = days <= 15 ? 60 : days <= 63 ? 300 : 3600;
  const points = (days * 86_400) / period;
  let requests = 0;
  let metrics = 0;
  for (let left = targets; left > 0; left -= MAX_QUERIES / 2) {
    const queries = 2 * Math.min(left, MAX_QUERIES / 2);
    const pages = Math.max(1, Math.ceil((queries * points) / MAX_DATAPOINTS));
    requests += pages;
    metrics += pages * queries;
  }
  const historyCalls = Math.max(1, Math.ceil(alarmHistoryRecords / 100));
  const alarmCalls = Math.ceil(targets / 100);
  return { requests, metrics, usd: metrics * prices.getMetricDataMetric + (historyCalls + alarmCalls) * fp.cloudWatchApiRequest };
}
