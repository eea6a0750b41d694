/**
 * A fleet's history from CloudWatch, with the caller's AWS identity: every target's `Verdict` metric
 * (metrics-reader.ts) and the fleet's alarm changes (alarm-history.ts), turned into one pure timeline
 * per target by the paging rule (timeline.ts). The only module here that talks to AWS.
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { configError } from '../../base/common/errors.ts';
import { AwsErrorKind, awsFailure } from '../../base/common/aws-errors.ts';
import type { Fleet } from '../../base/config/schema/fleet.ts';
import { targetRule } from '../../base/config/schema/target-rule.ts';
import { ALARM_HISTORY_DAYS, confirmIncident, readAlarmHistory, type AlarmTransition, type Confirmation } from './alarm-history.ts';
import { maintenanceLookup, type OpenWindow } from './maintenance-windows.ts';
import { readVerdicts, type MetricCost } from './metrics-reader.ts';
import { failureClassOf, type RunLogSource } from './run-log.ts';
import {
  MAX_DAYS,
  MIN_DAYS,
  perRun,
  resolutionFor,
  retainedPeriod,
  RETENTION,
  ruleAt,
  type PagingRule,
  type Resolution,
} from './resolution.ts';
import { buildTimeline, EVALUATION_RANGE_EXTRA, type Incident, type Timeline } from './timeline.ts';

const DAY_MS = 86_400_000;
const MAX_AGE_DAYS = RETENTION[RETENTION.length - 1]!.keptDays;

export interface HistoryOptions {
  readonly fleet: Fleet;
  /** The fleet's name (McpCanaryFleet's id, `McpCanary` by default): its alarms are `<name>/<target>/<kind>`. */
  readonly fleetName: string;
  /** 1–90. */
  readonly days: number;
  /** @default - Date.now() */
  readonly nowMs?: number;
  /** The window ends here (epoch ms, at most now). @default - nowMs */
  readonly endMs?: number;
  /** Only these targets. @default - every target of the fleet */
  readonly targets?: readonly string[];
  /** @default true */
  readonly alarmHistory?: boolean;
  /** Where the run records are, for each incident's failure class. @default - not read: failureClass null */
  readonly runLog?: RunLogSource;
}

export interface HistoryCost extends MetricCost {
  alarmHistoryCalls: number;
  /** FilterLogEvents calls for failure classes: one per incident and probe region. */
  logCalls: number;
}

/** Failure classes are looked up for at most this many incidents per report (the newest), to keep its cost bounded. */
export const MAX_INCIDENTS_CLASSIFIED = 50;

export interface TargetHistory {
  readonly target: string;
  readonly rule: PagingRule;
  readonly resolution: Resolution;
  readonly timeline: Timeline;
  /** The timeline's incidents, each with whether the alarm history shows its page. */
  readonly incidents: ReadonlyArray<Incident & { readonly alarm: Confirmation }>;
  readonly maintenance: readonly OpenWindow[];
  readonly transitions: readonly AlarmTransition[];
}

export interface FleetHistory {
  readonly fleetName: string;
  readonly namespace: string;
  readonly homeRegion: string;
  readonly days: number;
  readonly startMs: number;
  readonly endMs: number;
  /** The window ends now (no earlier --end): an incident open at its end is still open, not just open then. */
  readonly endsNow: boolean;
  /** Alarm history starts here (CloudWatch keeps 30 days); null when not read. */
  readonly alarmHistoryFromMs: number | null;
  readonly targets: readonly TargetHistory[];
  readonly cost: HistoryCost;
}

export function checkDays(days: number): void {
  if (!Number.isInteger(days) || days < MIN_DAYS || days > MAX_DAYS)
    throw configError(`--days ${days} is not a whole number of days from ${MIN_DAYS} to ${MAX_DAYS}: e.g. --days 30`);
}

export async function readFleetHistory(client: CloudWatchClient, opts: HistoryOptions): Promise<FleetHistory> {
  checkDays(opts.days);
  const { fleet } = opts;
  const nowMs = opts.nowMs ?? Date.now();
  const chosen = opts.targets ? fleet.targets.filter((t) => opts.targets!.includes(t.name)) : fleet.targets;
  const unknown = (opts.targets ?? []).filter((n) => !fleet.targets.some((t) => t.name === n));
  if (unknown.length)
    throw configError(`--target ${unknown.join(', ')} is not in the config. Targets: ${fleet.targets.map((t) => t.name).join(', ')}`);

  const windowEnd = Math.min(opts.endMs ?? nowMs, nowMs);
  const ageDays = (nowMs - (windowEnd - opts.days * DAY_MS)) / DAY_MS;
  if (ageDays > MAX_AGE_DAYS)
    throw configError(
      `--end reaches ${Math.ceil(ageDays)} days back; CloudWatch keeps metrics ${MAX_AGE_DAYS} days: move --end later or lower --days`,
    );
  const plans = chosen.map((t) => {
    const { regions, quorum, runsInARow, periodSeconds } = targetRule(fleet, t);
    const rule: PagingRule = { regions: regions.length, quorum, runsInARow, periodSeconds };
    const resolution = resolutionFor(opts.days, rule.periodSeconds, ageDays);
    const p = resolution.periodSeconds * 1000;
    const endMs = Math.floor(windowEnd / p) * p;
    const startMs = Math.ceil((endMs - opts.days * DAY_MS) / p) * p;
    // The alarm's own evaluation range before the window (N + 2 points), read too: an outage already open
    // when the window begins pages from those points, and is down from the window's first minute. Never
    // older than CloudWatch keeps at this period (a 15-day window then has none: its start is the limit).
    const kept = RETENTION.find((r) => r.periodSeconds === retainedPeriod(ageDays))!.keptDays;
    const lookback = (ruleAt(rule, resolution).runsInARow + EVALUATION_RANGE_EXTRA) * p;
    const readFromMs = Math.min(startMs, Math.max(startMs - lookback, Math.ceil((nowMs - kept * DAY_MS) / p) * p));
    return { target: t.name, regions, rule, resolution, startMs, endMs, readFromMs };
  });
  const cost: HistoryCost = { requests: 0, metrics: 0, datapoints: 0, alarmHistoryCalls: 0, logCalls: 0 };
  const samples = await aws(() =>
    readVerdicts(
      client,
      fleet.namespace,
      plans.map((x) => ({ target: x.target, periodSeconds: x.resolution.periodSeconds, startMs: x.readFromMs, endMs: x.endMs })),
      cost,
    ),
  );
  const startMs = Math.min(...plans.map((x) => x.startMs));
  const endMs = Math.max(...plans.map((x) => x.endMs));
  if (plans.length > 0 && plans.every((x) => (samples.get(x.target) ?? []).every((s) => s === undefined)))
    throw configError(
      `no ${fleet.namespace}/Verdict datapoints for any target in ${fleet.homeRegion} over the last ${opts.days} day(s): check the config's namespace and homeRegion, that the fleet is deployed and running, and that AWS_REGION/credentials point at its account`,
    );

  // From the lookback's start: the page of an outage open at the window's start fell in it.
  const readFromMs = Math.min(...plans.map((x) => x.readFromMs));
  const historyFromMs = Math.max(readFromMs, nowMs - ALARM_HISTORY_DAYS * DAY_MS);
  const transitions =
    opts.alarmHistory === false || historyFromMs >= endMs
      ? []
      : await aws(() => readAlarmHistory(client, opts.fleetName, historyFromMs, nowMs, cost));

  const maintenanceFor = maintenanceLookup(fleet.maintenance);
  const targets = plans.map((x): TargetHistory => {
    const maintenance = maintenanceFor(x.target, x.startMs, x.endMs);
    const timeline = buildTimeline({
      rule: ruleAt(x.rule, x.resolution),
      startMs: x.readFromMs,
      windowStartMs: x.startMs,
      samples: (samples.get(x.target) ?? []).map((s) => (s ? perRun(s, x.resolution) : undefined)),
      maintenance,
    });
    const mine = transitions.filter((t) => t.target === x.target);
    const period = x.resolution.periodSeconds * 1000;
    return {
      target: x.target,
      rule: x.rule,
      resolution: x.resolution,
      timeline,
      incidents: timeline.incidents.map((i) => ({
        ...i,
        alarm: opts.alarmHistory === false ? 'unknown' : confirmIncident(i, mine, historyFromMs, period),
      })),
      maintenance,
      transitions: mine,
    };
  });
  if (opts.runLog) await classify(opts.runLog, new Map(plans.map((x) => [x.target, x.regions])), targets, cost);
  return {
    fleetName: opts.fleetName,
    namespace: fleet.namespace,
    homeRegion: fleet.homeRegion,
    days: opts.days,
    startMs,
    endMs,
    endsNow: windowEnd >= nowMs,
    alarmHistoryFromMs: opts.alarmHistory === false ? null : historyFromMs,
    targets,
    cost,
  };
}

/**
 * Each incident's failure class from the run records of its first N periods (the runs that paged), newest
 * incidents first, read in the target's probe regions (`regionsOf`, by target name).
 */
async function classify(
  source: RunLogSource,
  regionsOf: ReadonlyMap<string, readonly string[]>,
  targets: TargetHistory[],
  cost: HistoryCost,
): Promise<void> {
  const all = targets
    .flatMap((t, ti) => t.incidents.map((i, ii) => ({ t, ti, i, ii })))
    .sort((a, b) => b.i.startMs - a.i.startMs)
    .slice(0, MAX_INCIDENTS_CLASSIFIED);
  const found = await Promise.all(
    all.map(({ t, i }) => {
      const regions = regionsOf.get(t.target)!;
      // One already open at the window's start paged before it: its first N runs inside the window name it.
      const toMs = i.startedBeforeWindow ? i.startMs + t.rule.runsInARow * t.rule.periodSeconds * 1000 : i.pagedAtMs;
      return failureClassOf(source, { target: t.target, regions, fromMs: i.startMs, toMs }, cost);
    }),
  );
  all.forEach(({ ti, ii }, k) => {
    const t = targets[ti]!;
    const incidents = [...t.incidents];
    incidents[ii] = { ...incidents[ii]!, failureClass: found[k] ?? null };
    targets[ti] = { ...t, incidents };
  });
}

/** AWS's refusals as the fix they need, by the AWS error boundary's kind: credentials, permissions, else what AWS said. */
async function aws<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    const failure = awsFailure(e);
    if (failure.kind === AwsErrorKind.credentials)
      throw configError(
        'no AWS credentials found: set AWS_PROFILE (or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), or run `aws sso login`, for the account that runs the fleet',
        e,
      );
    if (failure.kind === AwsErrorKind.denied)
      throw configError(
        `AWS refused the read (${failure.name}): the caller needs cloudwatch:GetMetricData and cloudwatch:DescribeAlarmHistory in the fleet's home region`,
        e,
      );
    throw configError(`CloudWatch could not be read (${failure.name}: ${failure.message.slice(0, 200)})`, e);
  }
}
