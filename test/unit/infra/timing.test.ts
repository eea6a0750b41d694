/**
 * The paging promises, as fast-check properties over random timings (support/timing.ts): each region's
 * run starts at a fixed or jittered second of its minute, takes from 1 s to its whole run budget, and
 * CloudWatch evaluates 5–15 s after each minute on what has arrived; and AWS does what it documents it
 * may: deliver a run twice (each copy timed on its own), lose the answer to a put that was stored,
 * throttle a put, hold a batch for its slowest target. Through the synthesized alarms of the example
 * fleet and of generated fleets (1, 3 and 5 regions; quorum 1..regions; N = 2..5).
 *
 * 1. A hard outage everywhere pages after run N or N+1 (never before N) and stays in ALARM throughout.
 * 2. Recovery resolves the page once, within N+2 healthy runs: one ALARM, one OK.
 * 3. Down, then the canary falls silent (everywhere, or all but the failing regions): the page stays
 *    open, and the canary owner is told within N+3 periods of silence.
 * 4. A new alarm is quiet while its first runs arrive; a healthy target whose runs take their whole
 *    budget never alarms.
 * 5. One region failing alone never pages and always tickets within N+1 runs; one failed run never pages.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { runBudgetMs } from '../../../functions/base/config/schema/budget.ts';
import { alarmsOf, type AlarmProps } from '../../helpers/infra/cfn.ts';
import { smallFleet, synthFleet } from '../../helpers/infra/synth.ts';
import { randomTiming, replayTimed, seeded, type Faults, type Notification, type Timing } from '../../helpers/infra/timing.ts';

/** Random timings per case and promise. */
const TRIALS = 24;
const HOME = 'us-east-1';
const ALL_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2', 'us-west-2', 'eu-central-1'];
/** The largest budget a rate(1 minute) target may have (its function timeout stays under the minute). */
const MAX_MINUTE_BUDGET_MS = 45_000;

interface Case {
  readonly label: string;
  readonly regions: readonly string[];
  readonly quorum: number;
  readonly n: number;
  readonly maxRunSeconds: number;
  readonly alarms: readonly AlarmProps[];
}

function alarmsOfTarget(fleet: ReturnType<typeof synthFleet>, fleetName: string, target: string): AlarmProps[] {
  return [...fleet.templates]
    .filter(([n]) => n.includes('-alarms-'))
    .flatMap(([, t]) => alarmsOf(t.toJSON() as never))
    .filter((a) => a.AlarmName.startsWith(`${fleetName}/${target}/`));
}

/** The example fleet's rates-prod, and one generated fleet per (N, quorum) with targets on 1, 3 and 5 regions. */
function cases(): Case[] {
  const out: Case[] = [];
  const example = synthFleet(smallFleet());
  out.push({
    label: 'example rates-prod (3 regions, quorum 2, N 3)',
    regions: ALL_REGIONS.slice(0, 3),
    quorum: 2,
    n: 3,
    maxRunSeconds: runBudgetMs(30_000) / 1000,
    alarms: alarmsOfTarget(example, 'McpCanary', 'rates-prod'),
  });
  for (const n of [2, 3, 4, 5]) {
    for (const quorum of [1, 2, 3, 4, 5]) {
      const sizes = [1, 3, 5].filter((r) => r >= quorum);
      const config: FleetInput = {
        homeRegion: HOME,
        probeRegions: ALL_REGIONS,
        failureThreshold: n,
        quorum,
        targets: sizes.map((r) => ({
          name: `t${r}`,
          url: `https://t${r}.example.com/mcp`,
          probeRegions: ALL_REGIONS.slice(0, r),
          budgetMs: MAX_MINUTE_BUDGET_MS,
        })),
      };
      const fleet = synthFleet(config, {}, 'Gen');
      for (const r of sizes) {
        out.push({
          label: `${r} region(s), quorum ${quorum}, N ${n}`,
          regions: ALL_REGIONS.slice(0, r),
          quorum,
          n,
          maxRunSeconds: runBudgetMs(MAX_MINUTE_BUDGET_MS) / 1000,
          alarms: alarmsOfTarget(fleet, 'Gen', `t${r}`),
        });
      }
    }
  }
  return out;
}

const kinds = (ns: readonly Notification[], kind: string) => ns.filter((x) => x.alarm.endsWith(`/${kind}`));
const states = (ns: readonly Notification[]) => ns.map((x) => `${x.state}@${x.afterRun}`);

/**
 * What AWS may do on top of the documented timing, as fast-check draws: duplicates, ambiguous puts (here
 * all of them stored: a lost one is a missing run, covered in timing-faults.test.ts), throttled puts,
 * slow batch-mates. The seed draws everything else.
 */
const faultsArb: fc.Arbitrary<Faults & { seed: number; jitter: boolean }> = fc.record({
  seed: fc.integer(),
  jitter: fc.boolean(),
  duplicateRate: fc.constantFrom(0, 0.05, 0.5),
  ambiguousPutRate: fc.constantFrom(0, 0.05, 0.5),
  lostShare: fc.constant(0),
  throttledPutRate: fc.constantFrom(0, 0.2),
  slowBatchRate: fc.constantFrom(0, 0.3, 1),
});

function forEachTiming(
  c: Case,
  check: (timing: Timing, seed: number) => void,
  faults: fc.Arbitrary<Faults & { seed: number; jitter: boolean }> = faultsArb,
): void {
  fc.assert(
    fc.property(faults, (f) => {
      const timing = randomTiming(seeded(f.seed), c.maxRunSeconds, f.jitter, f);
      try {
        check(timing, f.seed);
      } catch (e) {
        throw new Error(`${c.label}, ${JSON.stringify(f)}: ${(e as Error).message}`, { cause: e });
      }
    }),
    { numRuns: TRIALS },
  );
}

const all = (c: Case, seq: string) => Object.fromEntries(c.regions.map((r) => [r, seq]));

describe('pages under real CloudWatch timing', () => {
  const generated = cases();

  it.each(generated.map((c) => [c.label, c] as const))('%s: a hard outage pages after run N or N+1 and stays in ALARM', (_l, c) => {
    forEachTiming(c, (timing) => {
      const ns = replayTimed(c.alarms, { runs: all(c, 'F'.repeat(c.n + 8)), timing });
      const critical = kinds(ns, 'critical');
      expect(states(critical)).toHaveLength(1);
      expect(critical[0]!.state).toBe('ALARM');
      expect(critical[0]!.afterRun).toBeGreaterThanOrEqual(c.n);
      expect(critical[0]!.afterRun).toBeLessThanOrEqual(c.n + 1);
    });
  });

  it.each(generated.map((c) => [c.label, c] as const))('%s: recovery resolves once, within N+2 healthy runs', (_l, c) => {
    forEachTiming(c, (timing) => {
      const down = c.n + 3;
      const ns = replayTimed(c.alarms, { runs: all(c, 'F'.repeat(down) + 'H'.repeat(c.n + 6)), timing });
      const critical = kinds(ns, 'critical');
      expect(critical.map((x) => x.state)).toEqual(['ALARM', 'OK']);
      expect(critical[1]!.afterRun).toBeLessThanOrEqual(down + c.n + 2);
      expect(critical[1]!.afterRun).toBeGreaterThan(down);
    });
  });

  it.each(generated.map((c) => [c.label, c] as const))(
    '%s: a silent canary keeps the page open and tells the owner within N+3 periods',
    (_l, c) => {
      forEachTiming(c, (timing, seed) => {
        const down = c.n + 3;
        const silence = c.n + 8;
        // Every region silent, or all but some failing ones (chosen by the seed).
        const keepFailing =
          seed % 3 === 0 || c.regions.length === 1 ? 0 : 1 + (seed % c.regions.length === 0 ? 0 : seed % (c.regions.length - 1));
        const runs = Object.fromEntries(c.regions.map((r, k) => [r, 'F'.repeat(down) + (k < keepFailing ? 'F' : '-').repeat(silence)]));
        const ns = replayTimed(c.alarms, { runs, timing });
        expect(states(kinds(ns, 'critical'))).toEqual([expect.stringMatching(/^ALARM@/)]);
        const owner = kinds(ns, 'dead-man').find((x) => x.state === 'ALARM' || x.state === 'INSUFFICIENT_DATA');
        expect(owner, `owner never told (${states(kinds(ns, 'dead-man')).join(', ')})`).toBeDefined();
        expect(owner!.afterRun - down).toBeLessThanOrEqual(c.n + 3);
      });
    },
  );

  it.each(generated.map((c) => [c.label, c] as const))('%s: new alarms are quiet, and whole-budget healthy runs never alarm', (_l, c) => {
    forEachTiming(c, (timing) => {
      const fresh = replayTimed(c.alarms, { runs: all(c, 'H'.repeat(c.n + 8)), timing, baseline: 0 });
      expect(fresh.filter((x) => x.state !== 'OK')).toEqual([]);
      const slow: Timing = { ...timing, runSeconds: () => c.maxRunSeconds };
      expect(replayTimed(c.alarms, { runs: all(c, 'H'.repeat(c.n + 8)), timing: slow })).toEqual([]);
    });
  });

  it.each(generated.filter((c) => c.regions.length > 1).map((c) => [c.label, c] as const))(
    '%s: one region failing alone tickets within N+1 and pages only at quorum 1',
    (_l, c) => {
      forEachTiming(c, (timing) => {
        const runs = { ...all(c, 'H'.repeat(c.n + 6)), [c.regions[1]!]: 'F'.repeat(c.n + 6) };
        const ns = replayTimed(c.alarms, { runs, timing });
        const ticket = kinds(ns, 'warning').find((x) => x.state === 'ALARM');
        expect(ticket).toBeDefined();
        expect(ticket!.afterRun).toBeLessThanOrEqual(c.n + 1);
        expect(states(kinds(ns, 'warning'))).toHaveLength(1);
        expect(kinds(ns, 'critical').length > 0).toBe(c.quorum === 1);
      });
    },
  );

  it.each(generated.map((c) => [c.label, c] as const))('%s: a single failed run never pages', (_l, c) => {
    forEachTiming(c, (timing) => {
      const ns = replayTimed(c.alarms, { runs: all(c, 'HH' + 'F' + 'H'.repeat(c.n + 4)), timing });
      expect(kinds(ns, 'critical')).toEqual([]);
    });
  });
});
