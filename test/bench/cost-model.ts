/**
 * The cost model: what a fleet costs a month, per target·region and in total, all in — as a user with
 * credentials and the dashboard open pays it — from what the synthesized templates deploy (schedules,
 * payloads, memory, alarms, the dashboard's widgets and range, credential references, the run ledger)
 * and what a run measurably does (billed duration, log bytes). Pure: no I/O, prices passed in.
 */
import {
  CREDENTIAL_READS,
  readsPerRun,
  SECRET_CACHE_SECONDS,
  storeCalls,
  type CredentialReads,
} from '../../infra/quotas/credential-rate.ts';
import { publishWaves } from '../../infra/quotas/runtime-load.ts';
import type { Prices, Tier } from './prices.ts';

/** A month of 30 days: `rate(1 minute)` runs 43,200 times. */
export const SECONDS_PER_MONTH = 30 * 24 * 3600;
/** CloudWatch Logs bills 26 bytes of metadata per event on top of the message. */
export const LOG_EVENT_OVERHEAD_BYTES = 26;
/** The Lambda's own START, END and REPORT lines per invocation (text format), bytes. */
export const PLATFORM_LOG_BYTES_PER_INVOCATION = 270;
export const PLATFORM_LOG_EVENTS_PER_INVOCATION = 3;
/** A ledger record (key, status, expiry, the small completion marker): well under 1 KB, one write unit. */
export const LEDGER_ITEM_BYTES = 200;
/** A ledger record lives an hour (LEDGER_RECORD_SECONDS; TTL deletes are free). */
export const LEDGER_RECORD_HOURS = 1;
const GB = 2 ** 30;

/** A credential a target's run reads: where it is stored (a name: the probe region; an ARN: its region). */
export interface CredentialRef {
  readonly kind: 'secretsManager' | 'ssmParameter';
  readonly id: string;
  readonly storedIn: string;
}

/** One EventBridge schedule: one invocation of a run function per period with these targets. */
export interface ScheduleInventory {
  readonly region: string;
  readonly periodSeconds: number;
  readonly memoryMb: number;
  readonly architecture: 'arm64' | 'x86_64';
  /** `gateway`: a gateway's backend, judged in the gateway's run (it rides the gateway's ledger claim). */
  readonly targets: ReadonlyArray<{ readonly name: string; readonly credentials: readonly CredentialRef[]; readonly gateway?: string }>;
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
  /** Fleet-level metrics the runs publish (`RunDuration` per probe region), priced per fleet. @default 0 */
  readonly fleetMetrics?: number;
  /** Probe regions whose runs claim each run in a ledger table. @default none */
  readonly ledgerRegions?: readonly string[];
  /** The dashboard's Logs Insights widgets, by the region whose run log each scans. @default none */
  readonly dashboardLogWidgets?: readonly string[];
  /** Metrics the dashboard's metric widgets request per refresh (the GetMetricData upper bound). @default 0 */
  readonly dashboardMetricsPerRefresh?: number;
  /** The range the dashboard opens with, in hours. @default 3 */
  readonly dashboardRangeHours?: number;
}

export interface RunUsage {
  /** Billed duration of one invocation (its targets are judged concurrently). */
  readonly billedMs: number;
  /** Bytes of the run record line per target per run. */
  readonly recordBytesPerTarget: number;
  /**
   * PutMetricData waves per invocation. @default - `publishWaves` of its payload (infra/quotas/runtime-load.ts):
   * one for a lone target, up to three for a batch of remote endpoints whose verdicts arrive ~2 s apart
   */
  readonly wavesPerInvocation?: number;
  /** How often a run reads each credential. @default - CREDENTIAL_READS (infra/quotas/credential-rate.ts, shared with the synth checks) */
  readonly credentialReads?: CredentialReads;
  /**
   * Regions whose Parameter Store runs at higher throughput, where each GetParameter is billed: those where
   * synth warns the fleet is over the 40-a-second standard throughput (McpCanaryFleet.runtime). @default - none
   */
  readonly ssmHigherThroughputRegions?: ReadonlySet<string>;
  /** Ledger writes per target and run (claims are per target, functions/lambdas/run/ledger.ts): the claim and the completion. @default 2 */
  readonly ledgerWritesPerTargetRun?: number;
}

/** Someone keeps the dashboard open: refreshed every `refreshSeconds`, `hoursPerDay` hours a day. */
export interface DashboardViewing {
  readonly refreshSeconds: number;
  readonly hoursPerDay: number;
}

/** The wall screen: open all day on a 1-minute refresh, the costliest way the console offers short of 10 s. */
export const WALL_SCREEN: DashboardViewing = { refreshSeconds: 60, hoursPerDay: 24 };

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
  /** Its share of storing its credentials (a Secrets Manager secret per region it is stored in). */
  readonly credentialStorage: number;
  /** Reading them: GetSecretValue, or the KMS Decrypt behind a SecureString parameter. */
  readonly secretReads: number;
  /** Its share of the run ledger's claims. */
  readonly ledger: number;
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

/** Every target·region's monthly cost: its share of its target's metrics, alarms and credentials, its secret reads, and its share of the invocations it rides in. */
export function costPerTargetRegion(inv: Inventory, usage: RunUsage, prices: Prices): TargetRegionCost[] {
  const regionsOf = new Map<string, number>();
  for (const s of inv.schedules) for (const t of s.targets) regionsOf.set(t.name, (regionsOf.get(t.name) ?? 0) + 1);
  const alarmMetricsOf = new Map<string, number>();
  for (const a of inv.alarms) if (a.target !== null) alarmMetricsOf.set(a.target, (alarmMetricsOf.get(a.target) ?? 0) + a.alarmMetrics);
  const storageOf = credentialStorage(inv, prices);
  const ledgers = new Set(inv.ledgerRegions ?? []);

  // A function serves every schedule of its rate in its region: they fire together, each on its own container.
  const containersOf = new Map<string, number>();
  for (const s of inv.schedules)
    containersOf.set(`${s.region}|${s.periodSeconds}`, (containersOf.get(`${s.region}|${s.periodSeconds}`) ?? 0) + 1);
  const ssmHigherThroughput = usage.ssmHigherThroughputRegions ?? new Set<string>();
  return inv.schedules.flatMap((s) => {
    const runs = runsPerMonth(s.periodSeconds);
    const k = s.targets.length;
    const invocations = runs / k; // this target's share of the schedule's invocations
    const datumsPerCall = k * inv.metricsPerTarget + 1; // and the region's RunDuration datum
    const callsPerInvocation = (usage.wavesPerInvocation ?? publishWaves(k)) * Math.ceil(datumsPerCall / 1000);
    const gbSeconds = (s.memoryMb / 1024) * (Math.ceil(usage.billedMs) / 1000);
    const logBytes = logBytesPerMonth(s, usage) / k;
    const storedMonths = Math.min(1, inv.logRetentionDays / 30);
    const containers = containersOf.get(`${s.region}|${s.periodSeconds}`) ?? 1;
    const readsPerRef = runs * readsPerRun(usage.credentialReads ?? CREDENTIAL_READS, s.periodSeconds, containers, SECRET_CACHE_SECONDS);
    // A run reads a store's references together, batched (credential-rate.ts): a parameter's share of a
    // GetParameters call is what higher throughput bills it. Its KMS Decrypt is its own. A batched Secrets Manager
    // read is priced per secret: AWS's pricing page does not say a batch bills as one call.
    const callsPerName = storeShares(s);
    const readPrice = (c: CredentialRef) =>
      c.kind === 'secretsManager'
        ? prices.secretsManagerCall
        : prices.kmsRequest + (ssmHigherThroughput.has(c.storedIn) ? prices.ssmHigherThroughputCall * callsPerName.get(storeKey(c))! : 0);
    return s.targets.map((t): TargetRegionCost => {
      const regions = regionsOf.get(t.name) ?? 1;
      const parts = {
        // A target's metrics are shared by its regions: each region's run adds a datapoint to the same one.
        customMetrics: (inv.metricsPerTarget * prices.customMetricTiers[0]!.usd) / regions,
        putMetricData: invocations * callsPerInvocation * prices.putMetricDataRequest,
        lambda: invocations * (prices.lambdaRequest + gbSeconds * prices.lambdaGbSecond[s.architecture]),
        scheduler: invocations * prices.schedulerInvocation,
        logs: (logBytes / GB) * (prices.logsIngestionGb + storedMonths * prices.logsStorageGbMonth),
        alarms: ((alarmMetricsOf.get(t.name) ?? 0) * prices.alarmMetric) / regions,
        credentialStorage: (storageOf.get(t.name) ?? 0) / regions,
        secretReads: distinct(t.credentials).reduce((n, c) => n + readsPerRef * readPrice(c), 0),
        ledger: ledgers.has(s.region) && !t.gateway ? runs * (usage.ledgerWritesPerTargetRun ?? 2) * prices.dynamoWriteRequestUnit : 0,
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

/** One schedule's run log a month: each target's record, and the invocation's platform lines. */
function logBytesPerMonth(s: ScheduleInventory, usage: RunUsage): number {
  const runs = runsPerMonth(s.periodSeconds);
  return (
    runs * s.targets.length * (usage.recordBytesPerTarget + LOG_EVENT_OVERHEAD_BYTES) +
    runs * (PLATFORM_LOG_BYTES_PER_INVOCATION + PLATFORM_LOG_EVENTS_PER_INVOCATION * LOG_EVENT_OVERHEAD_BYTES)
  );
}

const storeKey = (c: CredentialRef) => `${c.kind}|${c.storedIn}`;

/** Per store (service and Region) of a schedule: the calls one read of all its references makes, per reference. */
function storeShares(s: ScheduleInventory): Map<string, number> {
  const names = new Map<string, Set<string>>();
  for (const t of s.targets) for (const c of t.credentials) names.set(storeKey(c), (names.get(storeKey(c)) ?? new Set()).add(c.id));
  const out = new Map<string, number>();
  for (const [key, ids] of names) {
    const calls = Object.values(storeCalls(key.startsWith('ssm') ? 'ssm' : 'secretsmanager', ids.size)).reduce((a, b) => a + b, 0);
    out.set(key, calls / ids.size);
  }
  return out;
}

function distinct(refs: readonly CredentialRef[]): CredentialRef[] {
  return [...new Map(refs.map((r) => [`${r.kind}|${r.id}|${r.storedIn}`, r])).values()];
}

/**
 * Each target's credential storage a month: a Secrets Manager secret costs per region it is stored in
 * (a name is looked up in each probe region, so the docs' old advice stored one per region); a
 * standard SSM parameter costs nothing. A secret several targets share is split between them.
 */
function credentialStorage(inv: Inventory, prices: Prices): Map<string, number> {
  const users = new Map<string, Set<string>>();
  for (const s of inv.schedules)
    for (const t of s.targets)
      for (const c of t.credentials) {
        const key = `${c.kind}|${c.id}|${c.storedIn}`;
        users.set(key, (users.get(key) ?? new Set()).add(t.name));
      }
  const out = new Map<string, number>();
  for (const [key, targets] of users) {
    const usd = key.startsWith('secretsManager|') ? prices.secretsManagerSecret : prices.ssmStandardParameter;
    for (const t of targets) out.set(t, (out.get(t) ?? 0) + usd / targets.size);
  }
  return out;
}

/**
 * Who pays for an invocation's billed time: its targets run at once, so the time until the fastest is
 * done is shared by all, each later stretch by those still running. One target that hangs for its whole
 * budget pays for the wait it alone causes, and its batch-mates' shares stay what they were.
 */
export function billedShares(durationsMs: readonly number[]): number[] {
  const order = durationsMs.map((ms, i) => ({ ms, i })).sort((a, b) => a.ms - b.ms);
  const shares = new Array<number>(durationsMs.length).fill(0);
  let previous = 0;
  order.forEach(({ ms }, rank) => {
    const stretch = (ms - previous) / (order.length - rank);
    for (const later of order.slice(rank)) shares[later.i]! += stretch;
    previous = ms;
  });
  return shares;
}

export interface FleetCost {
  readonly targetRegions: number;
  /** Sum of the target·region costs, at the first metric tier and the marginal Scheduler price. */
  readonly direct: number;
  /** The canary's own alarms (run errors, dead-letter queues, the brief). */
  readonly canaryAlarms: number;
  readonly dashboards: number;
  /** The fleet-level metrics (`RunDuration` per probe region). */
  readonly fleetMetrics: number;
  /** Logs Insights scans of the dashboard's log widgets, refreshed as `viewing` says. */
  readonly dashboardScans: number;
  /** GetMetricData for the dashboard's metric widgets, IF the console's reads were billed (not in the total). */
  readonly dashboardMetricReadsIfBilled: number;
  /** The ledger's storage (its writes are in the target·region rows). */
  readonly ledgerStorage: number;
  /** Metric tiers past 10,000 metrics (≤ 0). */
  readonly metricTierAdjustment: number;
  /** The Scheduler's free monthly allowance (≤ 0). */
  readonly schedulerAllowance: number;
  readonly total: number;
  readonly perTargetRegion: number;
  readonly synthetics: number;
  readonly schedulerInvocations: number;
}

export function fleetCost(
  inv: Inventory,
  perTargetRegion: readonly TargetRegionCost[],
  prices: Prices,
  usage: RunUsage = { billedMs: 0, recordBytesPerTarget: 0 },
  viewing: DashboardViewing = WALL_SCREEN,
): FleetCost {
  const direct = perTargetRegion.reduce((n, c) => n + c.total, 0);
  const canaryAlarms = inv.alarms.filter((a) => a.target === null).reduce((n, a) => n + a.alarmMetrics * prices.alarmMetric, 0);
  const dashboards = inv.dashboards * prices.dashboard;
  const fleetMetrics = (inv.fleetMetrics ?? 0) * prices.customMetricTiers[0]!.usd;
  const refreshes = inv.dashboards > 0 ? (SECONDS_PER_MONTH / viewing.refreshSeconds) * (viewing.hoursPerDay / 24) : 0;
  const rangeHours = inv.dashboardRangeHours ?? 3;
  const scannedPerRefresh = (inv.dashboardLogWidgets ?? []).reduce(
    (n, region) => n + regionLogBytesPerHour(inv, usage, region) * rangeHours,
    0,
  );
  const dashboardScans = refreshes * (scannedPerRefresh / 1e9) * prices.logsInsightsGbScanned;
  const dashboardMetricReadsIfBilled = refreshes * (inv.dashboardMetricsPerRefresh ?? 0) * prices.getMetricDataMetric;
  const ledgerItems = inv.schedules
    .filter((s) => (inv.ledgerRegions ?? []).includes(s.region))
    .reduce((n, s) => n + s.targets.filter((t) => !t.gateway).length * (3600 / s.periodSeconds) * LEDGER_RECORD_HOURS, 0);
  const ledgerStorage = ((ledgerItems * LEDGER_ITEM_BYTES) / GB) * prices.dynamoStorageGbMonth;
  const published = inv.publishedMetrics + (inv.fleetMetrics ?? 0);
  const metricTierAdjustment = tiered(prices.customMetricTiers, published) - published * prices.customMetricTiers[0]!.usd;
  const schedulerInvocations = inv.schedules.reduce((n, s) => n + runsPerMonth(s.periodSeconds), 0);
  const schedulerAllowance = -Math.min(schedulerInvocations, prices.schedulerFreeInvocationsPerMonth) * prices.schedulerInvocation;
  const total =
    direct + canaryAlarms + dashboards + fleetMetrics + dashboardScans + ledgerStorage + metricTierAdjustment + schedulerAllowance;
  return {
    targetRegions: perTargetRegion.length,
    direct,
    canaryAlarms,
    dashboards,
    fleetMetrics,
    dashboardScans,
    dashboardMetricReadsIfBilled,
    ledgerStorage,
    metricTierAdjustment,
    schedulerAllowance,
    total,
    perTargetRegion: total / Math.max(1, perTargetRegion.length),
    synthetics: perTargetRegion.reduce((n, c) => n + c.synthetics, 0),
    schedulerInvocations,
  };
}

/** Bytes a Logs Insights query over one region's run log scans per hour of range (what was ingested). */
export function regionLogBytesPerHour(inv: Inventory, usage: RunUsage, region: string): number {
  const hoursPerMonth = SECONDS_PER_MONTH / 3600;
  return inv.schedules.filter((s) => s.region === region).reduce((n, s) => n + logBytesPerMonth(s, usage) / hoursPerMonth, 0);
}
