/**
 * "I cannot judge" is never "the endpoint is fine": the paging promises when regions are inconclusive
 * (the canary's own credential read or config failed there) or silent (no run, the run ledger could not
 * record the claim, the publish failed), as fast-check properties over the timing model of timing.test.ts
 * (runs anywhere in their minute, up to their whole budget, CloudWatch evaluating seconds after each minute
 * on what has arrived; duplicates, ambiguous and throttled puts, slow batch-mates), through the synthesized
 * alarms of the example fleet and of a 5-region fleet (quorum 1 to 5).
 *
 * The rule, written here from docs/alarms.md and not from the code: per period, with F regions failed, I
 * inconclusive, H judged not failing, of R, quorum k:
 * - breaching once F ≥ 1 and F·R ≥ k·(R − I) (a quorum's share of the regions that may still judge it:
 *   a region yet to report is counted as one that would judge it healthy);
 * - not breaching once H > R − k (k failures impossible even if every region not judged healthy failed);
 * - otherwise undetermined: the alarm keeps its state.
 *
 * 1. Every region with one outcome throughout: from a settled healthy alarm, it pages after run N or N+1
 *    exactly when the rule breaches, and never otherwise; after an outage that paged, it resolves within
 *    N+2 runs exactly when the rule says not breaching, and otherwise the page stays open.
 * 2. The canary owner hears within N+1 runs when some region cannot judge, and never when all can.
 * 3. The scenarios through the expression as it was, and as it is: an outage whose regions then
 *    all turn inconclusive (or all but the failing ones) resolved its page in every trial; now never.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runBudgetMs } from '../../../functions/base/config/schema/budget.ts';
import { alarmsOf, type AlarmProps } from '../../helpers/infra/cfn.ts';
import { smallFleet, synthFleet } from '../../helpers/infra/synth.ts';
import { randomTiming, replayTimed, seeded, type Faults, type Notification, type Timing } from '../../helpers/infra/timing.ts';

const TRIALS = 24;
const HOME = 'us-east-1';
const FIVE = ['us-east-1', 'eu-west-1', 'ap-southeast-2', 'us-west-2', 'eu-central-1'];
const MAX_MINUTE_BUDGET_MS = 45_000;

interface Case {
  readonly label: string;
  readonly regions: readonly string[];
  readonly quorum: number;
  readonly n: number;
  readonly maxRunSeconds: number;
  /** The target's three alarms and the fleet's inconclusive alarm of its rate (every minute). */
  readonly alarms: readonly AlarmProps[];
}

function alarmsFor(fleet: ReturnType<typeof synthFleet>, fleetName: string, target: string): AlarmProps[] {
  return [...fleet.templates.values()]
    .flatMap((t) => alarmsOf(t.toJSON() as never))
    .filter((a) => a.AlarmName.startsWith(`${fleetName}/${target}/`) || a.AlarmName === `${fleetName}/canary/inconclusive-1m`);
}

function cases(): Case[] {
  const out: Case[] = [
    {
      label: 'example rates-prod (3 regions, quorum 2, N 3)',
      regions: FIVE.slice(0, 3),
      quorum: 2,
      n: 3,
      maxRunSeconds: runBudgetMs(30_000) / 1000,
      alarms: alarmsFor(synthFleet(smallFleet()), 'McpCanary', 'rates-prod'),
    },
  ];
  for (const [quorum, n] of [
    [1, 3],
    [2, 3],
    [3, 2],
    [3, 3],
    [3, 5],
    [4, 3],
    [5, 3],
  ] as const) {
    const fleet = synthFleet(
      {
        homeRegion: HOME,
        probeRegions: FIVE,
        failureThreshold: n,
        quorum,
        targets: [{ name: 'five', url: 'https://five.example.com/mcp', budgetMs: MAX_MINUTE_BUDGET_MS }],
      },
      {},
      'Gen',
    );
    out.push({
      label: `5 regions, quorum ${quorum}, N ${n}`,
      regions: FIVE,
      quorum,
      n,
      maxRunSeconds: runBudgetMs(MAX_MINUTE_BUDGET_MS) / 1000,
      alarms: alarmsFor(fleet, 'Gen', 'five'),
    });
  }
  return out;
}

type Verdict = 'breach' | 'ok' | 'undetermined';

/** The rule as docs/alarms.md states it, for one period whose regions have all reported what they will. */
function rule(codes: readonly string[], quorum: number): Verdict {
  const r = codes.length;
  const f = codes.filter((c) => c === 'F').length;
  const i = codes.filter((c) => c === 'I').length;
  const h = codes.filter((c) => c === 'H').length;
  if (f >= 1 && f * r >= quorum * (r - i)) return 'breach';
  if (h > r - quorum) return 'ok';
  return 'undetermined';
}

const kinds = (ns: readonly Notification[], kind: string) => ns.filter((x) => x.alarm.endsWith(`/${kind}`));
const owner = (ns: readonly Notification[]) => ns.filter((x) => x.alarm.includes('/canary/inconclusive-'));

/** Per region one code (F failed, I inconclusive, H healthy; -, L, P silent), and the AWS faults of timing.test.ts. */
function draws(regions: number) {
  return fc.record({
    codes: fc.array(fc.constantFrom('F', 'I', 'H', 'H', 'F', 'I', '-', 'L', 'P'), { minLength: regions, maxLength: regions }),
    seed: fc.integer(),
    jitter: fc.boolean(),
    duplicateRate: fc.constantFrom(0, 0.05, 0.5),
    ambiguousPutRate: fc.constantFrom(0, 0.05),
    lostShare: fc.constant(0),
    throttledPutRate: fc.constantFrom(0, 0.2),
    slowBatchRate: fc.constantFrom(0, 0.3),
  });
}

function check(c: Case, body: (codes: readonly string[], timing: Timing) => void): void {
  fc.assert(
    fc.property(draws(c.regions.length), (d) => {
      const timing = randomTiming(seeded(d.seed), c.maxRunSeconds, d.jitter, d as Faults);
      try {
        body(d.codes, timing);
      } catch (e) {
        throw new Error(`${c.label}, ${JSON.stringify(d)}: ${(e as Error).message}`, { cause: e });
      }
    }),
    { numRuns: TRIALS },
  );
}

describe('regions that cannot judge, or are silent', () => {
  const all = cases();

  it.each(all.map((c) => [c.label, c] as const))('%s: from a healthy alarm, it pages exactly when the rule breaches', (_l, c) => {
    check(c, (codes, timing) => {
      const long = c.n + 8;
      const runs = Object.fromEntries(c.regions.map((r, k) => [r, codes[k]!.repeat(long)]));
      const critical = kinds(replayTimed(c.alarms, { runs, timing }), 'critical');
      if (rule(codes, c.quorum) === 'breach') {
        expect(critical.map((x) => x.state)).toEqual(['ALARM']);
        expect(critical[0]!.afterRun).toBeGreaterThanOrEqual(c.n);
        expect(critical[0]!.afterRun).toBeLessThanOrEqual(c.n + 1);
      } else {
        expect(critical).toEqual([]);
      }
    });
  });

  it.each(all.map((c) => [c.label, c] as const))(
    '%s: an open page resolves within N+2 runs when the rule says not breaching, and otherwise stays open',
    (_l, c) => {
      check(c, (codes, timing) => {
        const down = c.n + 3;
        const after = c.n + 8;
        const runs = Object.fromEntries(c.regions.map((r, k) => [r, 'F'.repeat(down) + codes[k]!.repeat(after)]));
        const critical = kinds(replayTimed(c.alarms, { runs, timing }), 'critical');
        if (rule(codes, c.quorum) === 'ok') {
          expect(critical.map((x) => x.state)).toEqual(['ALARM', 'OK']);
          expect(critical[1]!.afterRun).toBeGreaterThan(down);
          expect(critical[1]!.afterRun).toBeLessThanOrEqual(down + c.n + 2);
        } else {
          expect(critical.map((x) => x.state)).toEqual(['ALARM']);
        }
      });
    },
  );

  it.each(all.map((c) => [c.label, c] as const))(
    '%s: the canary owner hears within N+1 runs when some region cannot judge, and never when all can',
    (_l, c) => {
      check(c, (codes, timing) => {
        const long = c.n + 6;
        const runs = Object.fromEntries(c.regions.map((r, k) => [r, 'H'.repeat(2) + codes[k]!.repeat(long)]));
        const told = owner(replayTimed(c.alarms, { runs, timing })).filter((x) => x.state === 'ALARM');
        if (codes.includes('I')) {
          expect(told, 'the inconclusive alarm never fired').toHaveLength(1);
          expect(told[0]!.afterRun - 2).toBeLessThanOrEqual(c.n + 1);
        } else {
          expect(told).toEqual([]);
        }
      });
    },
  );
});

describe('the issue’s scenarios: an outage, then the canary cannot judge', () => {
  const TRIALS_PER_FLEET = 200;
  const example = cases()[0]!;
  const five = cases().find((c) => c.label === '5 regions, quorum 3, N 3')!;
  /** The critical alarm of a case with its expression as it was before this change. */
  const before = (c: Case): AlarmProps[] =>
    c.alarms
      .filter((a) => a.AlarmName.endsWith('/critical'))
      .map((a) => ({
        ...a,
        Metrics: a.Metrics!.map((m) =>
          m.Expression
            ? {
                ...m,
                Expression: `IF(failing >= ${c.quorum}, failing, IF(reports - failing > ${c.regions.length - c.quorum}, failing))`,
              }
            : m,
        ),
      }));
  /** Trials in which the page resolved (an OK) while the endpoint was still down everywhere. */
  const resolved = (c: Case, alarms: readonly AlarmProps[], failingAfter: number): number => {
    let n = 0;
    for (let i = 0; i < TRIALS_PER_FLEET; i++) {
      const timing = randomTiming(seeded(70_000 + i), c.maxRunSeconds, true);
      const runs = Object.fromEntries(c.regions.map((r, k) => [r, 'F'.repeat(c.n + 3) + (k < failingAfter ? 'F' : 'I').repeat(c.n + 8)]));
      if (kinds(replayTimed(alarms, { runs, timing }), 'critical').some((x) => x.state === 'OK')) n++;
    }
    return n;
  };

  it.each([example, five].map((c) => [c.label, c] as const))(
    '%s: every region inconclusive, or all but one failing region: the page resolved in every trial before, never now',
    (_l, c) => {
      const critical = c.alarms.filter((a) => a.AlarmName.endsWith('/critical'));
      for (const failing of [0, 1]) {
        expect(resolved(c, before(c), failing)).toBe(TRIALS_PER_FLEET);
        expect(resolved(c, critical, failing)).toBe(0);
      }
    },
  );
});
