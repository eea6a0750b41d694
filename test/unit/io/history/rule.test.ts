/** History replays the rule that pages: its parameters equal the plan's and the alarm stack's for any fleet. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkFleet } from '../../../../infra/plan/checks.ts';
import { targetRule } from '../../../../functions/base/config/schema/target-rule.ts';
import { pagingRuleOf } from '../../../../functions/io/history/rule.ts';

const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2', 'us-west-2', 'eu-central-1'];

describe('pagingRuleOf', () => {
  it('equals the plan: regions, quorum and period per target, N = the fleet failureThreshold', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        fc.integer({ min: 1, max: 10 }),
        fc.constantFrom('rate(1 minute)', 'rate(5 minutes)', 'rate(1 hour)'),
        fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        (fleetRegions, targetRegions, failureThreshold, schedule, quorum) => {
          const fleet = checkFleet({
            homeRegion: 'us-east-1',
            probeRegions: REGIONS.slice(0, fleetRegions),
            failureThreshold,
            ...(quorum !== undefined && quorum <= Math.min(fleetRegions, targetRegions ?? fleetRegions) ? { quorum } : {}),
            targets: [
              { name: 'a', url: 'https://a.example.com/mcp', schedule },
              { name: 'b', url: 'https://b.example.com/mcp', ...(targetRegions ? { probeRegions: REGIONS.slice(0, targetRegions) } : {}) },
            ],
          });
          for (const t of fleet.targets) {
            const plan = targetRule(fleet, t);
            expect(pagingRuleOf(fleet, t)).toEqual({
              regions: plan.regions.length,
              quorum: plan.quorum,
              runsInARow: fleet.failureThreshold,
              periodSeconds: plan.periodSeconds,
            });
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
