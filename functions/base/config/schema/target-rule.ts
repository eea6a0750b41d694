/**
 * A target's rule, decided here and nowhere else: where it is probed from, how often, and when it pages
 * (k of R regions failing, N periods in a row). The plan and its stacks, the history a report replays, the
 * CLI and the schema's own checks all read this answer; the brief and the status page get it written into
 * their environment and payload at synth, never worked out again at run time.
 *
 * Typed by shape, not by `Fleet`, so fleet.ts can check its regions with it without a loop between files.
 */
import { configError } from '../../common/errors.ts';
import { canaryScheduleProblem, rateSeconds, schedulerProblem } from '../aws/schedule.ts';

/** The fleet's side: its defaults, and the rule's fleet-wide knobs. */
export interface RuleFleet {
  readonly homeRegion: string;
  readonly probeRegions?: readonly string[] | undefined;
  readonly schedule: string;
  readonly quorum?: number | undefined;
  readonly failureThreshold: number;
  readonly runbookUrl?: string | undefined;
}

/** The target's side: what it may override. Left out, the fleet's defaults apply. */
export interface RuleTarget {
  readonly name?: string | undefined;
  readonly probeRegions?: readonly string[] | undefined;
  readonly schedule?: string | undefined;
  readonly runbookUrl?: string | undefined;
}

/** Where a target is probed from, and which field said so (for messages). */
export interface ProbeRegions {
  /** R: its own `probeRegions`, else the fleet's, else the home region alone. */
  readonly regions: readonly string[];
  readonly regionField: 'probeRegions' | '(fleet) probeRegions';
}

export interface TargetRule extends ProbeRegions {
  /** k: regions that must fail in the same period to page; the fleet's `quorum`, else more than half of R. */
  readonly quorum: number;
  /** `rate(...)`: its own `schedule`, else the fleet's. One run per region per period; the alarms' period. */
  readonly schedule: string;
  readonly scheduleField: 'schedule' | '(fleet) schedule';
  readonly periodSeconds: number;
  /** N: determined periods in a row before a page (and a ticket): the fleet's `failureThreshold`. */
  readonly runsInARow: number;
  /** The runbook the alarms link: its own `runbookUrl`, else the fleet's. */
  readonly runbookUrl: string | undefined;
}

/**
 * The regions step of `targetRule` alone, for the fleet schema's own checks: they run even when a
 * `schedule` is invalid (zod reports every issue at once), where the whole rule would throw.
 * Without a target, the fleet's default: what a target with no `probeRegions` gets.
 */
export function probeRegionsOf(fleet: Pick<RuleFleet, 'homeRegion' | 'probeRegions'>, target: RuleTarget = {}): ProbeRegions {
  return {
    regions: target.probeRegions ?? fleet.probeRegions ?? [fleet.homeRegion],
    regionField: target.probeRegions ? 'probeRegions' : '(fleet) probeRegions',
  };
}

/**
 * The target's rule; without a target, the fleet's default rule (a target that overrides nothing). Throws
 * a config error naming the field and the rate to write when the schedule is not a rate, which the fleet
 * schema refuses first: only an unchecked fleet reaches it.
 */
export function targetRule(fleet: RuleFleet, target: RuleTarget = {}): TargetRule {
  const where = probeRegionsOf(fleet, target);
  const schedule = target.schedule ?? fleet.schedule;
  const scheduleField = target.schedule ? 'schedule' : '(fleet) schedule';
  const periodSeconds = rateSeconds(schedule);
  if (periodSeconds === null) {
    const field =
      scheduleField === 'schedule' && target.name !== undefined ? `target ${JSON.stringify(target.name)}: schedule` : 'schedule';
    const problem = schedulerProblem(schedule) ?? canaryScheduleProblem(schedule);
    throw configError(`mcp-canary fleet config: ${field} ${problem}`);
  }
  return {
    ...where,
    quorum: fleet.quorum ?? defaultQuorum(where.regions.length),
    schedule,
    scheduleField,
    periodSeconds,
    runsInARow: fleet.failureThreshold,
    runbookUrl: target.runbookUrl ?? fleet.runbookUrl,
  };
}

/** Default quorum: more than half of the probing regions, at least 1. */
function defaultQuorum(regionCount: number): number {
  return Math.max(1, Math.floor(regionCount / 2) + 1);
}
