/**
 * The optional features' section of `npm run cost`: each feature turned on in a generated fleet, its
 * templates synthesized and compared with the same fleet's with it off (cost-features.ts prices the
 * difference), and the features that deploy nothing of their own stated with the page that prices them.
 */
import type { FleetInput } from '../../functions/base/config/schema/fleet.ts';
import {
  burnAlarmsCost,
  FEATURE_PRICES,
  featureDelta,
  refresherCost,
  reportCost,
  statusPageCost,
  traceExportCost,
  type FeatureCost,
  type RefresherUsage,
  type StatusUsage,
} from './cost-features.ts';
import { runsPerMonth } from './cost-model.ts';
import { generatedFleet, synthesize } from './fleet-scale.ts';
import { readInventory } from './inventory.ts';
import { PRICES } from './prices.ts';
import { fmt, table } from './table.ts';

/**
 * What a status run does (docs/reports-and-status.md: warm, about 2.5 metrics per target per run; two
 * PUTs). Billed time, page size and views are assumptions, not measured here: each is printed.
 */
export const STATUS_USAGE: StatusUsage = {
  periodSeconds: 300,
  billedMs: 2_000,
  metricsPerTargetRun: 2.5,
  putsPerRun: 2,
  objectBytes: 3_000 * 100,
  logBytesPerRun: 1_000,
  viewsPerMonth: 100_000,
};

/** docs/oauth.md (delegated OAuth): every 5 minutes, well under a second, 1-hour tokens renewed at half-life, probes re-read a minute. */
export const REFRESHER_USAGE: RefresherUsage = {
  periodSeconds: 300,
  billedMs: 1_000,
  renewalsPerMonth: runsPerMonth(1_800),
  probeReadSeconds: 60,
  metricsPerGrant: 2,
};

/** The fleet with its first `count` targets' credential replaced by a delegated OAuth grant (the refresher keeps it). */
export function delegatingFleet(fleet: FleetInput, count: number): FleetInput {
  return {
    ...fleet,
    targets: fleet.targets.map(({ headerSecrets, ...t }, i) =>
      i < count
        ? { ...t, auth: { authorizationCode: { store: { secretsManager: `mcp-canary/${t.name}/grant` } } } }
        : { ...t, headerSecrets },
    ),
  } as FleetInput;
}

export interface FeatureLine {
  readonly feature: string;
  readonly deploys: string;
  readonly assumes: string;
  readonly cost: FeatureCost | null;
  /** Per target·region of the fleet, all targets counted (null: priced per something else). */
  readonly perTargetRegion: number | null;
}

/** Every optional feature priced on the generated fleet of `n` targets in 3 regions. */
export function featureLines(n: number): FeatureLine[] {
  const fleet = generatedFleet(n);
  const base = synthesize(fleet).stacks;
  const targetRegions = n * fleet.probeRegions!.length;
  const schedulerInvocations = readInventory(base, 'McpCanary').schedules.reduce((k, s) => k + runsPerMonth(s.periodSeconds), 0);
  const on = (f: FleetInput) => featureDelta(base, synthesize(f).stacks);

  const burn = on({ ...fleet, targets: fleet.targets.map((t) => ({ ...t, slo: { objective: 99.9, burnAlarms: true } })) });
  const burnCost = burnAlarmsCost(burn, n, PRICES);
  const status = on({ ...fleet, statusPage: { public: true } });
  const statusCost = statusPageCost(status, n, STATUS_USAGE, PRICES, schedulerInvocations);
  const delegating = (count: number) => on(delegatingFleet(fleet, count));
  const delegated = delegating(1);
  const refresh = refresherCost(delegated, REFRESHER_USAGE, PRICES);
  // A second delegated target shares the function, its schedule, PutMetricData and errors alarm.
  const further = refresherCost(delegating(2), REFRESHER_USAGE, PRICES).total - refresh.total;
  const report30 = reportCost(n, 30, 100, PRICES);
  const report7 = reportCost(n, 7, 100, PRICES);
  const runs = readInventory(base, 'McpCanary').schedules.reduce((k, s) => k + s.targets.length * runsPerMonth(s.periodSeconds), 0);
  const traces = traceExportCost(runs, n);

  return [
    {
      feature: 'SLO burn alarms (slo.burnAlarms), every target',
      deploys: `${burn.metricAlarms} metric alarms reading ${burn.alarmMetrics} metrics, ${burn.compositeAlarms} composites`,
      assumes: 'standard resolution; a metric-math alarm billed per metric it reads; composites $0.50',
      cost: burnCost,
      perTargetRegion: burnCost.total / targetRegions,
    },
    {
      feature: 'status page (statusPage, public)',
      deploys: `${status.functions.length} function (${status.functions.map((f) => `${f.memoryMb} MB ${f.architecture}`).join(', ')}), ${status.metricAlarms} alarm, ${status.buckets} buckets, ${status.distributions} CloudFront`,
      assumes: `every 5 min, ${fmt.ms(STATUS_USAGE.billedMs)} billed, ${STATUS_USAGE.metricsPerTargetRun} metrics/target/run (warm), 2 PUTs, ${fmt.int(STATUS_USAGE.viewsPerMonth)} views (CloudFront free tier)`,
      cost: statusCost,
      perTargetRegion: statusCost.total / targetRegions,
    },
    {
      feature: 'delegated OAuth refresher, the first delegated target',
      deploys: `${delegated.functions.length} function, ${delegated.metricAlarms} alarms; ${delegated.grants.map((g) => 1 + g.regions.length).join(', ')} secrets (grant + one per probe region)`,
      assumes: `every 5 min, ${fmt.ms(REFRESHER_USAGE.billedMs)} billed, 1-hour tokens, probes re-read each minute, 2 metrics a grant`,
      cost: refresh,
      perTargetRegion: null,
    },
    {
      feature: 'each further delegated target',
      deploys: 'its secrets, metrics and credential alarm (the function is shared)',
      assumes: 'as above',
      cost: { parts: {}, total: further, targets: 1, perTarget: further },
      perTargetRegion: null,
    },
    {
      feature: "OpenTelemetry traces to AWS's OTLP endpoint (X-Ray), every target",
      deploys: 'xray:PutTraceSegments on the run role; nothing billed until a run exports',
      assumes: `one trace per target run (${fmt.int(runs)} a month), $${(FEATURE_PRICES.xrayTraceRecorded * 1e6).toFixed(2)} per million recorded past ${fmt.int(FEATURE_PRICES.xrayFreeTracesPerMonth)} free a month; the export's own time is in the run's billed duration`,
      cost: traces,
      perTargetRegion: traces.total / targetRegions,
    },
    {
      feature: `mcp-canary report, ${n} targets, 30 days (7 days)`,
      deploys: 'nothing: GetMetricData, DescribeAlarmHistory, DescribeAlarms and FilterLogEvents when someone runs it',
      assumes: `${fmt.int(report30.metrics)} metrics in ${report30.requests} requests (7 days: ${fmt.int(report7.metrics)} in ${report7.requests}), ≤ 100 alarm-history records; per report`,
      cost: { parts: {}, total: report30.usd, targets: n, perTarget: report30.usd / n },
      perTargetRegion: null,
    },
  ];
}

export function featureSection(n: number): string[] {
  const lines = featureLines(n);
  const out: string[] = [];
  out.push(
    table(
      ['optional feature (off by default: off costs $0)', 'a month', 'per target', 'per target·region'],
      lines.map((l) => [
        l.feature,
        l.cost ? fmt.usd(l.cost.total) : '—',
        l.cost ? fmt.usd(l.cost.perTarget) : '—',
        l.perTargetRegion === null ? '—' : fmt.usd(l.perTargetRegion),
      ]),
    ),
  );
  out.push('');
  for (const l of lines) {
    const parts = Object.entries(l.cost?.parts ?? {}).filter(([, v]) => v > 0);
    out.push(`- ${l.feature}. Adds: ${l.deploys}. Assumes: ${l.assumes}.`);
    if (parts.length > 0) out.push(`  ${parts.map(([k, v]) => `${k} ${fmt.usd(v)}`).join(', ')}.`);
  }
  out.push("  The report's line is per run of `mcp-canary report`, not a month; the report prints its own (cost.estimatedUsd).");
  out.push('');
  out.push("No line of their own (the user's bill, not the canary's; figures from the pages named):");
  out.push("- OpenTelemetry export to a backend outside AWS (telemetry): $0 in AWS, but each export adds its time to the run's");
  out.push("  billed duration (measure it with --billed-ms). To AWS's OTLP endpoints, traces are priced above as X-Ray bills them");
  out.push('  (aws.amazon.com/xray/pricing/); with Transaction Search on, spans are instead ingested into the aws/spans log group at');
  out.push("  CloudWatch's per-GB price, and OTel metrics sent to monitoring.<region> are billed per GB ingested");
  out.push('  (aws.amazon.com/cloudwatch/pricing/): those two are not modelled, the per-GB prices were not confirmed here.');
  out.push('- The proxy and its VPC (proxy.vpc): a Lambda in a VPC costs nothing extra. Reaching AWS APIs from the VPC needs interface');
  out.push(
    `  endpoints (CloudWatch, Secrets Manager/SSM/KMS, DynamoDB is a free gateway endpoint) at $${FEATURE_PRICES.interfaceEndpointAzHour} per endpoint per AZ-hour`,
  );
  out.push(
    `  ($${(FEATURE_PRICES.interfaceEndpointAzHour * 720).toFixed(2)} a month each AZ) plus $${FEATURE_PRICES.interfaceEndpointGb} per GB (aws.amazon.com/privatelink/pricing/), or a NAT gateway, billed per hour and per GB`,
  );
  out.push('  (aws.amazon.com/vpc/pricing/); the proxy itself is yours. Neither is deployed by the canary, so neither is in a total.');
  return out;
}
