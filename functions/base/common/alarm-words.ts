/**
 * The words an alarm carries: its name (stable, derived from the fleet, the target and the kind, so a
 * paging tool keys one incident per alarm across deploys) and its description (what broke, the
 * endpoint, the runbook, first steps). The CDK app writes them; the brief reads them back from the
 * alarm's state-change event. One module, so the two never drift apart.
 */
import { RUN_SKIPPED_MESSAGE } from './run-record.ts';
import { OwnFault, ownFaultAlarmWhat } from './own-faults.ts';
import { shownUrl } from './shown-url.ts';

/** What an alarm watches, and so who it tells. */
export const AlarmKind = {
  /** Pages the target owner: failing in ≥ quorum regions for N runs in a row. */
  critical: 'critical',
  /** Tickets: not healthy (degraded, failing, inconclusive) in some region for N runs in a row. */
  warning: 'warning',
  /** The canary owner: fewer regions reported than probe, or none at all (see infra/constructs/target-alarms.ts). */
  deadMan: 'dead-man',
} as const;
export type AlarmKind = (typeof AlarmKind)[keyof typeof AlarmKind];
export const alarmKinds: readonly AlarmKind[] = Object.values(AlarmKind);

/**
 * The dead-man's M: at least 3, so the two newest periods, which late-started and whole-budget runs may
 * both leave incomplete, never alarm on their own. (The alarm counts it; synth checks its window.)
 */
export function deadManRuns(runsInARow: number): number {
  return Math.max(3, runsInARow);
}

/** CloudWatch's limit on `AlarmDescription`. */
export const MAX_ALARM_DESCRIPTION_CHARS = 1024;

/**
 * `<fleet>/<target>/<kind>`, e.g. `McpCanary/rates-prod/critical`. Never a construct hash. The `/` is a
 * character neither fleet nor target names may hold, so `<fleet>/` is an exact fleet boundary: the
 * topic policies and the brief's rule match `McpCanary/*`, which `McpCanary-Prod/...` never matches
 * (a `-` separator made fleet `Mcp` match every `Mcp-Prod-*` alarm).
 */
export function alarmName(fleet: string, target: string, kind: AlarmKind): string {
  return `${fleet}/${target}/${kind}`;
}

/** The canary's own alarms: `<fleet>/canary/<what>` (a target alarm's last segment is always a kind). */
export function canaryAlarmName(fleet: string, what: string): string {
  return `${fleet}/canary/${what}`;
}

/** Every alarm of the fleet, target or canary: what topic policies and rules match. */
export function fleetAlarmPattern(fleet: string): string {
  return `${fleet}/*`;
}

/** The inverse of `alarmName`; `null` for an alarm that is not one of this fleet's target alarms. */
export function parseAlarmName(fleet: string, name: string): { readonly target: string; readonly kind: AlarmKind } | null {
  const parts = name.split('/');
  // `<fleet>/<target>/<kind>`, or a gateway's backend: `<fleet>/<gateway>/<backend>/<kind>`.
  if (parts.length < 3 || parts.length > 4 || parts[0] !== fleet || parts.slice(1, -1).some((p) => !p)) return null;
  const kind = alarmKinds.find((k) => k === parts[parts.length - 1]);
  return kind ? { target: parts.slice(1, -1).join('/'), kind } : null;
}

/** Everything a description says, all known at synth time. */
export interface AlarmFacts {
  readonly kind: AlarmKind;
  readonly target: string;
  /** A gateway's backend (`target` is `<gateway>/<backend>`): the gateway's name, so the page names both. */
  readonly gateway?: string | undefined;
  readonly url: string;
  readonly regions: readonly string[];
  /** Regions that must fail at once before a page. */
  readonly quorum: number;
  /** N: runs in a row (Gatus' failure-threshold). */
  readonly failureThreshold: number;
  readonly periodSeconds: number;
  readonly runbookUrl?: string | undefined;
  /** The run function's log group, named in the canary owner's first steps. */
  readonly runLogGroup: string;
}

const ENDPOINT = 'Endpoint: ';
const REGIONS = 'Regions: ';
const RUNBOOK = 'Runbook: ';
const NO_RUNBOOK = 'none set (add runbookUrl to the fleet config)';

/** A plain-words description: what broke, then the endpoint, the runbook and first steps, each on its own line. */
export function describeAlarm(f: AlarmFacts): string {
  const regions = `${f.regions.length} region(s): ${f.regions.join(', ')}`;
  const period = every(f.periodSeconds);
  const shown = shownUrl(f.url);
  const check = `npx mcp-canary check ${shown}`;
  const who = f.gateway ? `${f.target} (backend "${f.target.slice(f.gateway.length + 1)}" of gateway "${f.gateway}")` : f.target;
  let what: string;
  let steps: string[];
  switch (f.kind) {
    case AlarmKind.critical:
      what = `${who} has failed ${f.failureThreshold} time(s) in a row in at least ${f.quorum} of ${regions} (one run ${period}), or in that share of the regions that could judge it while others could not. Agents cannot use this MCP endpoint.`;
      steps = [
        'read the brief (briefs topic) for the failing probe and what it saw',
        `reproduce it: ${check}`,
        "check the server's recent deploys, upstream dependencies and TLS certificate",
        `this alarm resolves itself after a run that at least ${f.regions.length - f.quorum + 1} region(s) judge not failing (a region that cannot judge never resolves it)`,
      ];
      break;
    case AlarmKind.warning:
      what = `${who} has not been healthy in some region ${f.failureThreshold} time(s) in a row (one run ${period}, ${regions}): degraded (slow, or healthy only after a retry or a new session), failing (in ${f.quorum} or more regions at once it also pages), or inconclusive (the canary could not judge it).`;
      steps = [
        'the brief says which region and which probe',
        `degraded or one region failing: ${check}, then compare latency and network path from that region`,
        "inconclusive: check the target's headerSecrets and the run function's access to them",
      ];
      break;
    case AlarmKind.deadMan:
      what = `No run of ${who} was recorded in at least one of ${regions} for ${f.failureThreshold} period(s) (one run ${period}). The canary is broken, not (necessarily) the endpoint: for the canary owner.`;
      steps = [
        `look at the run function's errors and its log group ${f.runLogGroup} in that region`,
        // What the run logs when it could not judge a target through its own fault (functions/lambdas/run/run.ts):
        // from here that looks exactly like a run that never started.
        `"${RUN_SKIPPED_MESSAGE}" lines there (saved query ${queryPrefix(f.runLogGroup)}skipped-runs) with reason "credentials" mean its credentials could not be read (that region's ${canaryAlarmName(fleetOf(f.runLogGroup), ownFaultAlarmWhat(OwnFault.credentials))} alarm says why); reason "duplicate" is harmless`,
        "check the schedule's dead-letter queue and that the schedule is enabled",
        'check the PutMetricData permission and the home region setting',
      ];
      break;
  }
  const links = [`${ENDPOINT}${shown}`, `${REGIONS}${f.regions.join(', ')}`, `${RUNBOOK}${f.runbookUrl ?? NO_RUNBOOK}`];
  // The limit is CloudWatch's. Cut first steps first, then the sentence; the endpoint and runbook lines
  // stay whole (the brief reads them back), unless the URLs alone exceed the limit.
  for (let n = steps.length; n >= 0; n--) {
    const text = [
      what,
      ...links,
      ...(n > 0
        ? [
            `First steps: ${steps
              .slice(0, n)
              .map((s, i) => `${i + 1}) ${s}`)
              .join('; ')}.`,
          ]
        : []),
    ].join('\n');
    if (text.length <= MAX_ALARM_DESCRIPTION_CHARS) return text;
  }
  const room = MAX_ALARM_DESCRIPTION_CHARS - links.join('\n').length - 1;
  if (room >= 40) return [`${what.slice(0, room - 1)}…`, ...links].join('\n');
  return [...links, what].join('\n').slice(0, MAX_ALARM_DESCRIPTION_CHARS);
}

/**
 * Reads the endpoint, the probe regions and the runbook back out of a description `describeAlarm`
 * wrote (the alarms read one metric for all regions, so the regions are not in their dimensions).
 */
export function parseAlarmDescription(description: string): {
  readonly endpoint?: string;
  readonly regions?: readonly string[];
  readonly runbookUrl?: string;
} {
  const out: { endpoint?: string; regions?: string[]; runbookUrl?: string } = {};
  for (const line of description.split('\n')) {
    if (line.startsWith(ENDPOINT)) out.endpoint = line.slice(ENDPOINT.length).trim();
    if (line.startsWith(REGIONS))
      out.regions = line
        .slice(REGIONS.length)
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean);
    if (line.startsWith(RUNBOOK)) {
      const value = line.slice(RUNBOOK.length).trim();
      if (value && value !== NO_RUNBOOK) out.runbookUrl = value;
    }
  }
  return out;
}

/** `every minute`, `every 5 minutes`, `every 2 hours`. */
export function every(periodSeconds: number): string {
  if (periodSeconds % 3600 === 0) return periodSeconds === 3600 ? 'every hour' : `every ${periodSeconds / 3600} hours`;
  if (periodSeconds % 60 === 0) return periodSeconds === 60 ? 'every minute' : `every ${periodSeconds / 60} minutes`;
  return `every ${periodSeconds} s`;
}

/** `/mcp-canary/<fleet>/run` → `mcp-canary/<fleet>/`: the saved queries' prefix (infra/constructs/run-queries.ts). */
function queryPrefix(runLogGroup: string): string {
  return `${runLogGroup.replace(/^\//, '').replace(/run$/, '')}`;
}

/** `/mcp-canary/<fleet>/run` → `<fleet>`. */
function fleetOf(runLogGroup: string): string {
  return /^\/mcp-canary\/(.+)\/run$/.exec(runLogGroup)?.[1] ?? '<fleet>';
}
