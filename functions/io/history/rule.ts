/**
 * The paging rule's parameters for one target, read from the fleet config exactly as the plan reads them
 * (infra/plan/resolve.ts: regions, quorum; the alarm stack: N = the fleet's failureThreshold), so history
 * replays the rule that pages instead of a second one. test/unit/io/history/rule.test.ts holds the two equal.
 */
import { defaultQuorum, type Fleet, type FleetTarget } from '../../base/config/schema/fleet.ts';
import { rateSeconds } from '../../base/config/aws/schedule.ts';

export interface PagingRule {
  /** Probe regions of the target: R. */
  readonly regions: number;
  /** Regions that must fail in the same period: k. */
  readonly quorum: number;
  /** Determined periods in a row before a page (and before a ticket): N. */
  readonly runsInARow: number;
  /** One run per region per period. */
  readonly periodSeconds: number;
}

export function pagingRuleOf(fleet: Fleet, target: FleetTarget): PagingRule {
  const regions = (target.probeRegions ?? fleet.probeRegions ?? [fleet.homeRegion]).length;
  const schedule = target.schedule ?? fleet.schedule;
  const periodSeconds = rateSeconds(schedule);
  // Cannot happen: the fleet schema admits only rates (config/aws/schedule.ts), so this is an invariant, not a config error.
  if (periodSeconds === null) throw new Error(`not a rate expression: ${schedule}`);
  return { regions, quorum: fleet.quorum ?? defaultQuorum(regions), runsInARow: fleet.failureThreshold, periodSeconds };
}
