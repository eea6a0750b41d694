/**
 * A fleet's history from CloudWatch, with the caller's AWS identity: every target's `Verdict` metric
 * (metrics-reader.ts) and the fleet's alarm changes (alarm-history.ts), turned into one pure timeline
 * per target by the paging rule (timeline.ts). The only module here that talks to AWS.
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { configError } from '../../base/common/errors.ts';
import { AlarmKind, alarmName } from '../../base/common/alarm-words.ts';
import { AwsErrorKind, awsFailure } from '../../base/common/aws-errors.ts';
import { backendTargetName } from '../../base/config/schema/backends.ts';
import type { Fleet } from '../../base/config/schema/fleet.ts';
import { targetRule } from '../../base/config/schema/target-rule.ts';
import {
  ALARM_HISTORY_DAYS,
  confirmIncident,
  existingAlarms,
  readAlarmHistory,
  type AlarmTransition,
  type Confirmation,
} from './alarm-history.ts';
import { maintenanceLookup, type OpenWindow } from './maintenance-windows.ts';
import { readVerdicts, type MetricCost } from './metrics-reader.ts';
import { findFailureClass, type RunLogSource, type UnreadLog } from './run-log.ts';
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
  /** DescribeAlarms calls: one per 100 targets, to know which page alarms exist. */
  describeAlarmsCalls: number;
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
  readonly incidents: readonly HistoryIncident[];
  readonly maintenance: readonly OpenWindow[];
  readonly transitions: readonly AlarmTransition[];
}

export interface HistoryIncident extends Incident {
  /** `not-paged` only when the page alarm exists and its history covers the incident; otherwise `unknown`, and why in alarmNote. */
  readonly alarm: Confirmation;
  /** Why `alarm` is unknown (no such alarm, not listed, older than the history kept); null when it is known. */
  readonly alarmNote: string | null;
  /** Why failureClass is null: the run log holds no failed run for it (known), or which log could not be read; null with a class. */
  readonly failureClassNote: string | null;
}

/** The page alarms looked for: `<fleet>/<target>/critical` of each target read. */
export interface AlarmsLookedFor {
  readonly looked: number;
  /** Found by DescribeAlarms, or seen in the alarm history. */
  readonly found: number;
  /** DescribeAlarms' error name when the alarms could not be listed (found then counts the history's only). */
  readonly listError: string | null;
}

/** The run log as the failure-class lookups found it. */
export interface RunLogRead {
  readonly logGroupName: string;
  /** Incidents looked up. */
  readonly lookups: number;
  /** Each region whose log was not found or not read, once. */
  readonly unread: readonly UnreadLog[];
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
  /** The page alarms looked for and found; null when alarm history is not read. */
  readonly alarms: AlarmsLookedFor | null;
  /** The run log read for failure classes; null when it is not read. */
  readonly runLog: RunLogRead | null;
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
  // A gateway's backends are reported as targets of their own (their own Verdict metric and alarms), by the
  // gateway's rule and maintenance windows; naming the gateway reports its backends with it.
  const all = fleet.targets.flatMap((t) => [
    { name: t.name, config: t, windowsOf: t.name },
    ...(t.backends ?? []).map((b) => ({ name: backendTargetName(t.name, b.name), config: t, windowsOf: t.name })),
  ]);
  const chosen = opts.targets ? all.filter((e) => opts.targets!.includes(e.name) || opts.targets!.includes(e.windowsOf)) : all;
  const unknown = (opts.targets ?? []).filter((n) => !all.some((e) => e.name === n));
  if (unknown.length)
    throw configError(`--target ${unknown.join(', ')} is not in the config. Targets: ${all.map((e) => e.name).join(', ')}`);

  const windowEnd = Math.min(opts.endMs ?? nowMs, nowMs);
  const ageDays = (nowMs - (windowEnd - opts.days * DAY_MS)) / DAY_MS;
  if (ageDays > MAX_AGE_DAYS)
    throw configError(
      `--end reaches ${Math.ceil(ageDays)} days back; CloudWatch keeps metrics ${MAX_AGE_DAYS} days: move --end later or lower --days`,
    );
  const plans = chosen.map((e) => {
    const { regions, quorum, runsInARow, periodSeconds } = targetRule(fleet, e.config);
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
    return { target: e.name, windowsOf: e.windowsOf, regions, rule, resolution, startMs, endMs, readFromMs };
  });
  const cost: HistoryCost = { requests: 0, metrics: 0, datapoints: 0, alarmHistoryCalls: 0, describeAlarmsCalls: 0, logCalls: 0 };
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
  const readHistory = opts.alarmHistory !== false;
  const transitions =
    !readHistory || historyFromMs >= endMs ? [] : await aws(() => readAlarmHistory(client, opts.fleetName, historyFromMs, nowMs, cost));
  // Which page alarms exist: an empty history is "not paged" only for an alarm that is there. Not being
  // allowed to list them is said, never fatal (the report stands without it, its unknowns say why).
  const criticalOf = (target: string) => alarmName(opts.fleetName, target, AlarmKind.critical);
  let listed = new Set<string>();
  let listError: string | null = null;
  if (readHistory && plans.length > 0)
    try {
      listed = await existingAlarms(
        client,
        plans.map((x) => criticalOf(x.target)),
        cost,
      );
    } catch (e) {
      listError = awsFailure(e).name;
    }
  const seen = new Set(transitions.filter((t) => t.kind === AlarmKind.critical).map((t) => t.target));
  const alarmExists = (target: string) => listed.has(criticalOf(target)) || seen.has(target);

  const maintenanceFor = maintenanceLookup(fleet.maintenance);
  const targets = plans.map((x): TargetHistory => {
    const maintenance = maintenanceFor(x.windowsOf, x.startMs, x.endMs);
    const timeline = buildTimeline({
      rule: ruleAt(x.rule, x.resolution),
      startMs: x.readFromMs,
      windowStartMs: x.startMs,
      samples: (samples.get(x.target) ?? []).map((s) => (s ? perRun(s, x.resolution) : undefined)),
      maintenance,
    });
    const mine = transitions.filter((t) => t.target === x.target);
    const period = x.resolution.periodSeconds * 1000;
    const confirmed = (i: Incident): Pick<HistoryIncident, 'alarm' | 'alarmNote'> => {
      if (!readHistory) return { alarm: 'unknown', alarmNote: 'alarm history not read' };
      const alarm = confirmIncident(i, mine, historyFromMs, period);
      if (alarm === 'paged') return { alarm, alarmNote: null };
      if (alarm === 'unknown') return { alarm, alarmNote: `older than the ${ALARM_HISTORY_DAYS} days of alarm history CloudWatch keeps` };
      if (alarmExists(x.target)) return { alarm, alarmNote: null };
      return {
        alarm: 'unknown',
        alarmNote: listError
          ? `could not list the alarms (${listError}): needs cloudwatch:DescribeAlarms`
          : `no alarm ${criticalOf(x.target)} in ${fleet.homeRegion}`,
      };
    };
    return {
      target: x.target,
      rule: x.rule,
      resolution: x.resolution,
      timeline,
      incidents: timeline.incidents.map((i) => ({
        ...i,
        ...confirmed(i),
        failureClassNote: opts.runLog
          ? `not looked up: classes are read for the newest ${MAX_INCIDENTS_CLASSIFIED} incidents`
          : 'run log not read',
      })),
      maintenance,
      transitions: mine,
    };
  });
  const runLog = opts.runLog ? await classify(opts.runLog, new Map(plans.map((x) => [x.target, x.regions])), targets, cost) : null;
  return {
    fleetName: opts.fleetName,
    namespace: fleet.namespace,
    homeRegion: fleet.homeRegion,
    days: opts.days,
    startMs,
    endMs,
    endsNow: windowEnd >= nowMs,
    alarmHistoryFromMs: readHistory ? historyFromMs : null,
    alarms: readHistory ? { looked: plans.length, found: plans.filter((x) => alarmExists(x.target)).length, listError } : null,
    runLog,
    targets,
    cost,
  };
}

/**
 * Each incident's failure class from the run records of its first N periods (the runs that paged), newest
 * incidents first, read in the target's probe regions (`regionsOf`, by target name). A class not found
 * says why: the log holds no failed run of those periods (known), or which regions' log was not read.
 */
async function classify(
  source: RunLogSource,
  regionsOf: ReadonlyMap<string, readonly string[]>,
  targets: TargetHistory[],
  cost: HistoryCost,
): Promise<RunLogRead> {
  const all = targets
    .flatMap((t, ti) => t.incidents.map((i, ii) => ({ t, ti, i, ii })))
    .sort((a, b) => b.i.startMs - a.i.startMs)
    .slice(0, MAX_INCIDENTS_CLASSIFIED);
  const found = await Promise.all(
    all.map(({ t, i }) => {
      const regions = regionsOf.get(t.target)!;
      // One already open at the window's start paged before it: its first N runs inside the window name it.
      const toMs = i.startedBeforeWindow ? i.startMs + t.rule.runsInARow * t.rule.periodSeconds * 1000 : i.pagedAtMs;
      return findFailureClass(source, { target: t.target, regions, fromMs: i.startMs, toMs }, cost);
    }),
  );
  const unread = new Map<string, UnreadLog>();
  all.forEach(({ ti, ii }, k) => {
    const t = targets[ti]!;
    const incidents = [...t.incidents];
    const lookup = found[k]!;
    for (const u of lookup.unread) unread.set(`${u.region} ${u.problem} ${u.error}`, u);
    incidents[ii] = {
      ...incidents[ii]!,
      failureClass: lookup.failureClass,
      failureClassNote: lookup.failureClass !== null ? null : classNote(source.logGroupName, lookup.unread),
    };
    targets[ti] = { ...t, incidents };
  });
  return { logGroupName: source.logGroupName, lookups: all.length, unread: [...unread.values()] };
}

/** The one class note that is knowledge, not a gap: the run log was read in every region and holds no failed run then. */
export const NO_FAILED_RUN_LOGGED = 'no failed run logged in the periods that paged';

/** Why no class: the regions whose log was not found or not read, or (all read) that it holds no failed run then. */
export function classNote(logGroupName: string, unread: readonly UnreadLog[]): string {
  if (unread.length === 0) return NO_FAILED_RUN_LOGGED;
  const missing = unread.filter((u) => u.problem === 'not-found').map((u) => u.region);
  const failed = unread.filter((u) => u.problem === 'unreadable');
  return [
    ...(missing.length ? [`run log ${logGroupName} not found in ${missing.join(', ')}`] : []),
    ...failed.map((u) => `could not read run log ${logGroupName} in ${u.region} (${u.error})`),
  ].join('; ');
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
