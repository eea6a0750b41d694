/**
 * One target's deployment facts, resolved from the target and the fleet defaults in one place: the
 * synth checks (checks.ts) and the plan the stacks render (plan.ts) read the same answer.
 */
import { defaultQuorum, type Fleet, type FleetTarget } from '../../functions/base/config/schema/fleet.ts';
import { periodSeconds } from './rates.ts';

export interface ResolvedTarget {
  readonly regions: readonly string[];
  /** Where the regions came from, for messages: the target's own field or the fleet's. */
  readonly regionField: 'probeRegions' | '(fleet) probeRegions';
  /** Regions that must fail at once to page. */
  readonly quorum: number;
  readonly schedule: string;
  readonly scheduleField: 'schedule' | '(fleet) schedule';
  readonly periodSeconds: number;
  readonly runbookUrl: string | undefined;
}

export function resolveTarget(fleet: Fleet, t: FleetTarget): ResolvedTarget {
  const regions = t.probeRegions ?? fleet.probeRegions ?? [fleet.homeRegion];
  const schedule = t.schedule ?? fleet.schedule;
  return {
    regions,
    regionField: t.probeRegions ? 'probeRegions' : '(fleet) probeRegions',
    quorum: fleet.quorum ?? defaultQuorum(regions.length),
    schedule,
    scheduleField: t.schedule ? 'schedule' : '(fleet) schedule',
    periodSeconds: periodSeconds(schedule),
    runbookUrl: t.runbookUrl ?? fleet.runbookUrl,
  };
}
