/** A target's rule, decided in one place: the fleet's defaults, a target's overrides, the quorum's default, a schedule that is no rate. */
import { describe, expect, it } from 'vitest';
import { isCanaryError, CanaryErrorCode } from '../../../../functions/base/common/errors.ts';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import { targetRule } from '../../../../functions/base/config/schema/target-rule.ts';

const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2', 'us-west-2', 'eu-central-1'];
const target = { name: 'rates', url: 'https://rates.example/mcp' };

describe('targetRule', () => {
  it("gives a target that overrides nothing the fleet's defaults: the home region alone, rate(1 minute), N = 3", () => {
    const fleet = parseFleet({ homeRegion: 'eu-west-1', targets: [target] });

    expect(targetRule(fleet, fleet.targets[0]!)).toEqual({
      regions: ['eu-west-1'],
      regionField: '(fleet) probeRegions',
      quorum: 1,
      schedule: 'rate(1 minute)',
      scheduleField: '(fleet) schedule',
      periodSeconds: 60,
      runsInARow: 3,
      runbookUrl: undefined,
    });
    expect(targetRule(fleet)).toEqual(targetRule(fleet, fleet.targets[0]!));
  });

  it("takes a target's own regions, schedule and runbook over the fleet's, and says which field held them", () => {
    const fleet = parseFleet({
      homeRegion: 'us-east-1',
      probeRegions: REGIONS.slice(0, 3),
      schedule: 'rate(5 minutes)',
      failureThreshold: 2,
      runbookUrl: 'https://wiki.example/fleet',
      targets: [
        target,
        {
          name: 'search',
          url: 'https://search.example/mcp',
          probeRegions: ['eu-west-1'],
          schedule: 'rate(1 hour)',
          runbookUrl: 'https://wiki.example/search',
        },
      ],
    });
    const [rates, search] = fleet.targets.map((t) => targetRule(fleet, t));

    expect(rates).toMatchObject({ regions: REGIONS.slice(0, 3), regionField: '(fleet) probeRegions', scheduleField: '(fleet) schedule' });
    expect(rates).toMatchObject({ periodSeconds: 300, runsInARow: 2, runbookUrl: 'https://wiki.example/fleet' });
    expect(search).toEqual({
      regions: ['eu-west-1'],
      regionField: 'probeRegions',
      quorum: 1,
      schedule: 'rate(1 hour)',
      scheduleField: 'schedule',
      periodSeconds: 3600,
      runsInARow: 2,
      runbookUrl: 'https://wiki.example/search',
    });
  });

  it("defaults the quorum to more than half of the target's regions, and takes the fleet's quorum when set", () => {
    const quorums = [1, 2, 3, 4, 5].map((n) => {
      const fleet = parseFleet({ homeRegion: 'us-east-1', probeRegions: REGIONS.slice(0, n), targets: [target] });
      return targetRule(fleet, fleet.targets[0]!).quorum;
    });
    expect(quorums).toEqual([1, 2, 2, 3, 3]);

    const fleet = parseFleet({ homeRegion: 'us-east-1', probeRegions: REGIONS, quorum: 1, targets: [target] });
    expect(targetRule(fleet, { ...fleet.targets[0]!, probeRegions: REGIONS.slice(0, 2) }).quorum).toBe(1);
  });

  it('refuses a schedule that is not a rate with a config error naming the field and the rate to write', () => {
    const fleet = parseFleet({ homeRegion: 'us-east-1', targets: [target] });
    const thrown = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(isCanaryError(e, CanaryErrorCode.config)).toBe(true);
        return (e as Error).message;
      }
      throw new Error('expected a config error');
    };

    expect(thrown(() => targetRule(fleet, { ...fleet.targets[0]!, schedule: 'cron(0/5 * * * ? *)' }))).toBe(
      'mcp-canary fleet config: target "rates": schedule cron(0/5 * * * ? *) runs at a fixed interval, but as a cron: the canary\'s alarms count failed runs in a row, one run per period, so it runs on a rate. Write rate(5 minutes), the same interval',
    );
    expect(thrown(() => targetRule({ ...fleet, schedule: 'rate(5 minute)' }))).toMatch(
      /^mcp-canary fleet config: schedule rate\(5 minute\) is not valid: .* Write rate\(5 minutes\)$/,
    );
  });
});
