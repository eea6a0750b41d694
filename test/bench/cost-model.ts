/**
 * The cost model: what a fleet costs a month, per target·region and in total, from what the synthesized
 * templates deploy (schedules, payloads, memory, alarms, dashboards) and what a run measurably does
 * (billed duration, log bytes). Pure: no I/O, prices passed in.
 */
import type { Prices, Tier } from './prices.ts';

/** A month of 30 days: `rate(1 minute)` runs 43,200 times. */
export const SECONDS_PER_MONTH = 30 * 24 * 3600;
/** CloudWatch Logs bills 26 bytes of metadata per event on top of the message. */
export const LOG_EVENT_OVERHEAD_BYTES = 26;
/** The Lambda's own START, END and REPORT lines per invocation (text format), bytes. */
export const PLATFORM_LOG_BYTES_PER_INVOCATION = 270;
export const PLATFORM_LOG_EVENTS_PER_INVOCATION = 3;
/** Secret values are cached per warm container for 5 minutes (functions/run/secrets.ts). */
export const SECRET_CACHE_SECONDS = 300;
const GB = 2 ** 30;

/** One EventBridge schedule: one invocation of a run function per period with these targets. */
export interface ScheduleInventory {
  readonly region: string;
  readonly periodSeconds: number;
  readonly memoryMb: number;
  readonly architecture: 'arm64' | 'x86_64';
  readonly targets: ReadonlyArray<{ readonly name: string; readonly secretsManagerRefs: number }>;
}

export interface AlarmInventory {
  /** The target whose metrics it reads, or null for the canary's own alarms. */
  readonly target: string | null;
  /** Metrics it reads: 1 for a standard alarm, the MetricStat count for metric math. */
  readonly alarmMetrics: number;
  readonly math: boolean;
}

export interface Inventory {
  readonly schedules: readonly ScheduleInventory[];
  /** Distinct metric name × dimension set the runs publish (each is a billed custom metric). */
  readonly publishedMetrics: number;
  /** Of those, per target (the same for every one: the schema's metric names; no region dimension). */
  readonly metricsPerTarget: number;
  readonly alarms: readonly AlarmInventory[];
  readonly dashboards: number;
  readonly logRetentionDays: number;
}

export interface RunUsage {
  /** Billed duration of one invocation (its targets are judged concurrently). */
  readonly billedMs: number;
  /** Bytes of the run record line per target per run. */
  readonly recordBytesPerTarget: number;
}

export interface TargetRegionCost {
  readonly target: string;
  readonly region: string;
  readonly periodSeconds: number;
  /** Targets sharing the invocation (the schedule's payload). */
  readonly payloadTargets: number;
  readonly customMetrics: number;
  readonly putMetricData: number;
  readonly lambda: number;
  readonly scheduler: number;
  readonly logs: number;
  readonly alarms: number;
  readonly secretReads: number;
  readonly total: number;
  /** CloudWatch Synthetics running one canary at the same schedule. */
  readonly synthetics: number;
}

export function runsPerMonth(periodSeconds: number): number {
  return SECONDS_PER_MONTH / periodSeconds;
}

/** The price of `units` along tiers (each tier's price applies to the units up to its `upTo`). */
export function tiered(tiers: readonly Tier[], units: number): number {
  let usd = 0;
  let lower = 0;
  for (const tier of tiers) {
    usd += Math.max(0, Math.min(units, tier.upTo) - lower) * tier.usd;
    lower = tier.upTo;
    if (units <= lower) break;
  }
  return usd;
}

/** Every target·region's monthly cost: its share of its target's metrics and alarms, its secret reads, and its share of the invocations it rides in. */
export function costPerTargetRegion(inv: Inventory, usage: RunUsage, prices: Prices): TargetRegionCost[] {
  const regionsOf = new Map<string, number>();
  for (const s of inv.schedules) for (const t of s.targets) regionsOf.set(t.name, (regionsOf.get(t.name) ?? 0) + 1);
  const alarmMetricsOf = new Map<string, number>();
  for (const a of inv.alarms) if (a.target !== null) alarmMetricsOf.set(a.target, (alarmMetricsOf.get(a.target) ?? 0) + a.alarmMetrics);

  return inv.schedules.flatMap((s) => {
    const runs = runsPerMonth(s.periodSeconds);
    const k = s.targets.length;
    const invocations = runs / k; // this target's share of the schedule's invocations
    const datumsPerCall = k * inv.metricsPerTarget;
    const callsPerInvocation = Math.ceil(datumsPerCall / 1000);
    const gbSeconds = (s.memoryMb / 1024) * (Math.ceil(usage.billedMs) / 1000);
    const logBytes =
      runs * (usage.recordBytesPerTarget + LOG_EVENT_OVERHEAD_BYTES) +
      invocations * (PLATFORM_LOG_BYTES_PER_INVOCATION + PLATFORM_LOG_EVENTS_PER_INVOCATION * LOG_EVENT_OVERHEAD_BYTES);
    const storedMonths = Math.min(1, inv.logRetentionDays / 30);
    const secretReadsPerRef = Math.min(runs, SECONDS_PER_MONTH / Math.max(SECRET_CACHE_SECONDS, s.periodSeconds));
    return s.targets.map((t): TargetRegionCost => {
      const parts = {
        // A target's metrics are shared by its regions: each region's run adds a datapoint to the same one.
        customMetrics: (inv.metricsPerTarget * prices.customMetricTiers[0]!.usd) / (regionsOf.get(t.name) ?? 1),
        putMetricData: invocations * callsPerInvocation * prices.putMetricDataRequest,
        lambda: invocations * (prices.lambdaRequest + gbSeconds * prices.lambdaGbSecond[s.architecture]),
        scheduler: invocations * prices.schedulerInvocation,
        logs: (logBytes / GB) * (prices.logsIngestionGb + storedMonths * prices.logsStorageGbMonth),
        alarms: ((alarmMetricsOf.get(t.name) ?? 0) * prices.alarmMetric) / (regionsOf.get(t.name) ?? 1),
        secretReads: t.secretsManagerRefs * secretReadsPerRef * prices.secretsManagerCall,
      };
      const total = Object.values(parts).reduce((a, b) => a + b, 0);
      return {
        target: t.name,
        region: s.region,
        periodSeconds: s.periodSeconds,
        payloadTargets: k,
        ...parts,
        total,
        synthetics: runs * prices.syntheticsCanaryRun,
      };
    });
  });
}

export interface FleetCost {
  readonly targetRegions: number;
  /** Sum of the target·region costs, at the first metric tier and the marginal Scheduler price. */
  readonly direct: number;
  /** The canary's own alarms (run errors, dead-letter queues, the brief). */
  readonly canaryAlarms: number;
  readonly dashboards: number;
  /** Metric tiers past 10,000 metrics (≤ 0). */
  readonly metricTierAdjustment: number;
  /** The Scheduler's free monthly allowance (≤ 0). */
  readonly schedulerAllowance: number;
  readonly total: number;
  readonly perTargetRegion: number;
  readonly synthetics: number;
  readonly schedulerInvocations: number;
}

export function fleetCost(inv: Inventory, perTargetRegion: readonly TargetRegionCost[], prices: Prices): FleetCost {
  const direct = perTargetRegion.reduce((n, c) => n + c.total, 0);
  const canaryAlarms = inv.alarms.filter((a) => a.target === null).reduce((n, a) => n + a.alarmMetrics * prices.alarmMetric, 0);
  const dashboards = inv.dashboards * prices.dashboard;
  const metricTierAdjustment =
    tiered(prices.customMetricTiers, inv.publishedMetrics) - inv.publishedMetrics * prices.customMetricTiers[0]!.usd;
  const schedulerInvocations = inv.schedules.reduce((n, s) => n + runsPerMonth(s.periodSeconds), 0);
  const schedulerAllowance = -Math.min(schedulerInvocations, prices.schedulerFreeInvocationsPerMonth) * prices.schedulerInvocation;
  const total = direct + canaryAlarms + dashboards + metricTierAdjustment + schedulerAllowance;
  return {
    targetRegions: perTargetRegion.length,
    direct,
    canaryAlarms,
    dashboards,
    metricTierAdjustment,
    schedulerAllowance,
    total,
    perTargetRegion: total / Math.max(1, perTargetRegion.length),
    synthetics: perTargetRegion.reduce((n, c) => n + c.synthetics, 0),
    schedulerInvocations,
  };
}
