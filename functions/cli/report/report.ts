/**
 * `mcp-canary report`'s one result, the `--json` shape (version 1: fields may be added, never renamed or
 * removed), built from a fleet's history (functions/io/history) and the config's SLOs. The text and the HTML
 * render this and nothing else, so all three say the same. It holds target names and times only: never a
 * URL, a header or anything else of a target's config.
 */
import { sloOf } from '../../base/config/schema/slo.ts';
import type { Fleet } from '../../base/config/schema/fleet.ts';
import { availabilityOf, errorBudget, timeToResolve } from '../../io/history/budget.ts';
import type { FleetHistory } from '../../io/history/read.ts';
import type { IntervalState } from '../../io/history/timeline.ts';

/** CloudWatch's list prices (us-east-1): GetMetricData per 1,000 metrics requested; other API requests per 1,000. */
export const USD_PER_1000_METRICS = 0.01;
export const USD_PER_1000_REQUESTS = 0.01;

export interface ReportIncident {
  /** The window's start for one already open then (startedBeforeWindow). */
  readonly start: string;
  /** Open when the window began: start and duration are its part inside the window, and it has no time to resolve. */
  readonly startedBeforeWindow: boolean;
  /** null: open at the window's end (still open when window.endsNow). */
  readonly end: string | null;
  /** When the rule paged; for one already open at the window's start, as far back as the report reads (the alarm's N + 2 periods). */
  readonly pagedAt: string;
  readonly durationSeconds: number;
  /** Outside maintenance: what availability counts. */
  readonly countedSeconds: number;
  readonly maintenance: 'none' | 'partly' | 'inside';
  readonly failureClass: string | null;
  /**
   * Why failureClass is null, in words: "no failed run logged in the periods that paged" (the log was read: known),
   * the run log not found or not read in which regions, or not looked up; null when there is a class.
   */
  readonly failureClassNote: string | null;
  /**
   * What the page alarm's history shows: paged; not-paged (the alarm exists and its history, read, shows no
   * page); unknown otherwise (older than the 30 days kept, no such alarm, the alarms not listable).
   */
  readonly alarm: 'paged' | 'not-paged' | 'unknown';
  /** Why alarm is unknown, in words (e.g. "no alarm McpCanary/rates/critical in us-east-1"); null when known. */
  readonly alarmNote: string | null;
}

/** Where the fleet's name came from: the config's `name`, `--fleet` (a config without one), or the default app's McpCanary. */
export type FleetNameFrom = 'config' | '--fleet' | 'default';

export interface ReportTarget {
  readonly target: string;
  readonly rule: { readonly regions: number; readonly quorum: number; readonly runsInARow: number; readonly periodSeconds: number };
  readonly resolution: { readonly periodSeconds: number; readonly exact: boolean; readonly note: string };
  /** Percent of judged time up or degraded; null when nothing was judged. */
  readonly availabilityPercent: number | null;
  readonly seconds: {
    readonly up: number;
    readonly degraded: number;
    readonly down: number;
    readonly maintenance: number;
    readonly noData: number;
    readonly judged: number;
  };
  readonly slo: {
    readonly objective: number;
    readonly windowDays: number;
    readonly burnAlarms: boolean;
    /** Against the report's window (its judged time). */
    readonly errorBudget: {
      readonly allowedSeconds: number;
      readonly downSeconds: number;
      readonly leftSeconds: number;
      readonly leftPercent: number | null;
      readonly burnRate: number | null;
    };
  } | null;
  readonly incidents: readonly ReportIncident[];
  readonly timeToResolve: {
    readonly incidents: number;
    readonly open: number;
    readonly meanSeconds: number | null;
    readonly maxSeconds: number | null;
  };
  readonly maintenance: ReadonlyArray<{ readonly name: string; readonly start: string; readonly end: string }>;
  readonly intervals: ReadonlyArray<{ readonly state: IntervalState; readonly start: string; readonly end: string }>;
}

export interface Report {
  readonly report: 'mcp-canary report';
  readonly version: 1;
  readonly fleet: string;
  readonly fleetNameFrom: FleetNameFrom;
  readonly namespace: string;
  readonly homeRegion: string;
  /** endsNow: no earlier --end, so an incident open at the end is still open (otherwise: open at the window's end). */
  readonly window: { readonly start: string; readonly end: string; readonly days: number; readonly endsNow: boolean };
  /** Alarm history covers from here (CloudWatch keeps 30 days); null when not read. */
  readonly alarmHistoryFrom: string | null;
  /**
   * What the report could not find or read, in words: the fleet's alarms, its run log. Each makes some
   * incidents' `alarm` unknown or their class null, said per incident too; empty when everything was read.
   */
  readonly warnings: readonly string[];
  readonly cost: {
    readonly getMetricDataRequests: number;
    readonly metricsRequested: number;
    readonly datapoints: number;
    readonly describeAlarmHistoryCalls: number;
    /** To know which page alarms exist: one per 100 targets. */
    readonly describeAlarmsCalls: number;
    /** For failure classes: one per incident and probe region (not in estimatedUsd). */
    readonly filterLogEventsCalls: number;
    readonly estimatedUsd: number;
  };
  readonly targets: readonly ReportTarget[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const s = (ms: number) => Math.round(ms / 1000);

export function buildReport(h: FleetHistory, fleet: Fleet, fleetNameFrom: FleetNameFrom = 'config'): Report {
  return {
    report: 'mcp-canary report',
    version: 1,
    fleet: h.fleetName,
    fleetNameFrom,
    namespace: h.namespace,
    homeRegion: h.homeRegion,
    window: { start: iso(h.startMs), end: iso(h.endMs), days: h.days, endsNow: h.endsNow },
    alarmHistoryFrom: h.alarmHistoryFromMs === null ? null : iso(h.alarmHistoryFromMs),
    warnings: warningsOf(h, fleetNameFrom),
    cost: {
      getMetricDataRequests: h.cost.requests,
      metricsRequested: h.cost.metrics,
      datapoints: h.cost.datapoints,
      describeAlarmHistoryCalls: h.cost.alarmHistoryCalls,
      describeAlarmsCalls: h.cost.describeAlarmsCalls,
      filterLogEventsCalls: h.cost.logCalls,
      estimatedUsd:
        (h.cost.metrics / 1000) * USD_PER_1000_METRICS +
        ((h.cost.alarmHistoryCalls + h.cost.describeAlarmsCalls) / 1000) * USD_PER_1000_REQUESTS,
    },
    targets: h.targets.map((t): ReportTarget => {
      const a = availabilityOf(t.timeline);
      const config = fleet.targets.find((x) => x.name === t.target);
      const slo = config ? sloOf(fleet, config) : null;
      const budget = slo ? errorBudget(a, slo.objective) : null;
      const ttr = timeToResolve(t.incidents);
      return {
        target: t.target,
        rule: { ...t.rule },
        resolution: { periodSeconds: t.resolution.periodSeconds, exact: t.resolution.exact, note: t.resolution.note },
        availabilityPercent: a.availability === null ? null : a.availability * 100,
        seconds: {
          up: s(a.upMs),
          degraded: s(a.degradedMs),
          down: s(a.downMs),
          maintenance: s(a.maintenanceMs),
          noData: s(a.noDataMs),
          judged: s(a.judgedMs),
        },
        slo:
          slo && budget
            ? {
                ...slo,
                errorBudget: {
                  allowedSeconds: s(budget.allowedDownMs),
                  downSeconds: s(budget.downMs),
                  leftSeconds: s(budget.leftMs),
                  leftPercent: budget.leftFraction === null ? null : budget.leftFraction * 100,
                  burnRate: budget.burnRate,
                },
              }
            : null,
        incidents: t.incidents.map((i) => ({
          start: iso(i.startMs),
          startedBeforeWindow: i.startedBeforeWindow,
          end: i.endMs === null ? null : iso(i.endMs),
          pagedAt: iso(i.pagedAtMs),
          durationSeconds: s(i.durationMs),
          countedSeconds: s(i.countedMs),
          maintenance: i.maintenance,
          failureClass: i.failureClass,
          failureClassNote: i.failureClass === null ? i.failureClassNote : null,
          alarm: i.alarm,
          alarmNote: i.alarm === 'unknown' ? i.alarmNote : null,
        })),
        timeToResolve: {
          incidents: ttr.incidents,
          open: ttr.open,
          meanSeconds: ttr.meanMs === null ? null : s(ttr.meanMs),
          maxSeconds: ttr.maxMs === null ? null : s(ttr.maxMs),
        },
        maintenance: t.maintenance.map((w) => ({ name: w.name, start: iso(w.startMs), end: iso(w.endMs) })),
        intervals: t.timeline.intervals.map((i) => ({ state: i.state, start: iso(i.startMs), end: iso(i.endMs) })),
      };
    }),
  };
}

/** The fleet name's source, in the words the warnings and the text use. */
export function fleetNameWords(from: FleetNameFrom): string {
  return from === 'config' ? "the config's name" : from === '--fleet' ? 'from --fleet' : 'the default: the config has no name';
}

/** What could not be found or read, fleet-wide: each one a reason some incidents say unknown. */
function warningsOf(h: FleetHistory, from: FleetNameFrom): string[] {
  const out: string[] = [];
  const which = `${h.fleetName} is ${fleetNameWords(from)}`;
  // The fix for a fleet read under the wrong name: the config's own name, when it has none.
  const fix =
    from === 'config'
      ? `check that the fleet is deployed in ${h.homeRegion} under this name`
      : 'if the fleet was deployed under another name, set `name` in the config or pass --fleet NAME';
  const a = h.alarms;
  if (a?.listError)
    out.push(
      `could not list the fleet's alarms (${a.listError}): add cloudwatch:DescribeAlarms; an incident the alarm history does not show as paged reads unknown`,
    );
  else if (a && a.looked > 0 && a.found === 0)
    out.push(
      `no alarm of fleet ${h.fleetName} found in ${h.homeRegion} (looked for ${h.fleetName}/<target>/critical of ${a.looked} target(s); ${which}): whether an incident paged is unknown; ${fix}`,
    );
  const missing = (h.runLog?.unread ?? []).filter((u) => u.problem === 'not-found').map((u) => u.region);
  if (h.runLog && missing.length)
    out.push(`run log ${h.runLog.logGroupName} not found in ${missing.join(', ')} (${which}): failure classes unknown there; ${fix}`);
  for (const u of (h.runLog?.unread ?? []).filter((x) => x.problem === 'unreadable'))
    out.push(
      `could not read run log ${h.runLog!.logGroupName} in ${u.region} (${u.error}): failure classes unknown there; the caller needs logs:FilterLogEvents`,
    );
  return out;
}
