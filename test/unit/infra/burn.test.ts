/**
 * The SLO burn alarms through the same CloudWatch timing model as the paging alarms (helpers/infra/
 * timing.ts: runs start anywhere in their minute, publish when done, CloudWatch evaluates seconds after
 * each minute on what has arrived), the six window alarms replayed as synthesized and their two composite
 * alarms evaluated on the windows' state changes, as CloudWatch does (ALARM() is false for OK and
 * INSUFFICIENT_DATA). Example fleet's rates-prod: 3 regions, quorum 2, N 3, objective 99.9 % over 30 days.
 */
import { describe, expect, it } from 'vitest';
import { BURN_TIERS, burnRate, burnWindow } from '../../../infra/plan/burn.ts';
import { alarmsOf, render, type AlarmProps } from '../../helpers/infra/cfn.ts';
import { resourcesOf, smallFleet, synthFleet } from '../../helpers/infra/synth.ts';
import { randomTiming, replayTimed, seeded, type Notification, type TimedScenario } from '../../helpers/infra/timing.ts';

const fleet = synthFleet(
  smallFleet({
    slo: { objective: 99.9, burnAlarms: true },
    maintenance: [{ name: 'deploy', schedule: 'cron(0 2 * * SUN)', duration: '2 hours', targets: ['rates-prod'] }],
  }),
);
const burnJson = fleet.json('McpCanary-slo-burn');
const windows = alarmsOf(burnJson as never).filter((a) => a.AlarmName.startsWith('McpCanary/rates-prod/'));
const composites = resourcesOf(burnJson, 'AWS::CloudWatch::CompositeAlarm')
  .map(
    ([, p]) =>
      p as {
        AlarmName: string;
        AlarmRule: string;
        AlarmActions: unknown[];
        OKActions: unknown[];
        ActionsSuppressor?: string;
        ActionsSuppressorWaitPeriod?: number;
        ActionsSuppressorExtensionPeriod?: number;
      },
  )
  .filter((c) => c.AlarmName.startsWith('McpCanary/rates-prod/'));
const critical = [...fleet.templates]
  .filter(([n]) => n.includes('-alarms-'))
  .flatMap(([, t]) => alarmsOf(t.toJSON() as never))
  .filter((a) => a.AlarmName === 'McpCanary/rates-prod/critical');

interface CompositeChange {
  readonly alarm: string;
  readonly state: 'OK' | 'ALARM';
  readonly at: number;
  readonly afterRun: number;
  readonly topics: readonly string[];
  /** Its actions held back by its ActionsSuppressor (CloudWatch: in ALARM now, within the wait period, or the extension after). */
  readonly suppressed: boolean;
}

/** Whether a composite's change at `at` is suppressed by the suppressor's own notifications, as CloudWatch documents it. */
function suppressedAt(c: (typeof composites)[number], suppressor: readonly Notification[], at: number): boolean {
  if (!c.ActionsSuppressor) return false;
  const wait = c.ActionsSuppressorWaitPeriod!;
  const extension = c.ActionsSuppressorExtensionPeriod!;
  const mine = suppressor.filter((n) => n.alarm === c.ActionsSuppressor);
  const stateAt = (t: number) => mine.filter((n) => n.at <= t).at(-1)?.state;
  if (stateAt(at) === 'ALARM') return true;
  if (mine.some((n) => n.state === 'ALARM' && n.at > at && n.at <= at + wait)) return true;
  return mine.some((n) => n.from === 'ALARM' && n.at < at && n.at >= at - extension);
}

/** Composite alarms over the windows' notifications: re-evaluated at every change of a window it names. */
function composite(
  changes: readonly Notification[],
  initial: 'OK' | 'INSUFFICIENT_DATA',
  suppressor: readonly Notification[] = [],
): CompositeChange[] {
  const state = new Map(windows.map((w) => [w.AlarmName, initial as string]));
  const current = new Map<string, string>(composites.map((c) => [c.AlarmName, 'INSUFFICIENT_DATA']));
  const out: CompositeChange[] = [];
  for (const n of changes) {
    state.set(n.alarm, n.state);
    for (const c of composites) {
      // (ALARM("a") AND ALARM("b")) OR (…): the rule as synthesized, read back.
      const alarmed = c.AlarmRule.split(' OR ').some((term) =>
        [...term.matchAll(/ALARM\("([^"]+)"\)/g)].every((m) => state.get(m[1]!) === 'ALARM'),
      );
      const next = alarmed ? 'ALARM' : 'OK';
      if (next !== current.get(c.AlarmName)) {
        out.push({
          alarm: c.AlarmName,
          state: next,
          at: n.at,
          afterRun: n.afterRun,
          topics: (next === 'ALARM' ? c.AlarmActions : c.OKActions).map(render),
          suppressed: suppressedAt(c, suppressor, n.at),
        });
        current.set(c.AlarmName, next);
      }
    }
  }
  return out;
}

const everywhere = (seq: string): TimedScenario['runs'] => ({ 'us-east-1': seq, 'eu-west-1': seq, 'ap-southeast-2': seq });
const alarms = (cs: readonly CompositeChange[], suffix: string) => cs.filter((c) => c.alarm.endsWith(suffix) && c.state === 'ALARM');

function replay(s: TimedScenario, initial: 'OK' | 'INSUFFICIENT_DATA' = 'OK', alarmsToReplay: readonly AlarmProps[] = windows) {
  return composite(replayTimed(alarmsToReplay, s), initial, replayTimed(critical, s));
}

describe('SLO burn alarms (as synthesized)', () => {
  it('are six window alarms on the paging expression and two composites: the page on the pages topic, the ticket on the tickets topic', () => {
    expect(windows).toHaveLength(6);
    expect(new Set(windows.map((w) => w.Metrics!.find((m) => m.Expression)!.Expression))).toEqual(
      new Set(critical.map((c) => c.Metrics!.find((m) => m.Expression)!.Expression)),
    );
    expect(windows.map((w) => [w.AlarmName.split('/')[2], w.EvaluationPeriods, w.DatapointsToAlarm])).toEqual([
      ['slo-burn-fast-1h-long', 60, 3],
      ['slo-burn-fast-1h-short', 5, 3],
      ['slo-burn-fast-6h-long', 360, 3],
      ['slo-burn-fast-6h-short', 30, 3],
      ['slo-burn-slow-1d-long', 1440, 5],
      ['slo-burn-slow-1d-short', 120, 3],
    ]);
    expect(windows.every((w) => !w.AlarmActions && !w.OKActions)).toBe(true);
    const byName = Object.fromEntries(composites.map((c) => [c.AlarmName.split('/')[2], c.AlarmActions.map(render).join()]));
    expect(byName['slo-burn-page']).toMatch(/:McpCanary-pages$/);
    expect(byName['slo-burn-ticket']).toMatch(/:McpCanary-tickets$/);
    // Every window within CloudWatch's evaluation limit for a 1-minute period: one day.
    for (const w of windows) expect(w.EvaluationPeriods * 60).toBeLessThanOrEqual(86_400);
  });

  it('a fast burn that never fails 3 runs in a row pages within its short window; the paging alarm never does', () => {
    const s: TimedScenario = { runs: everywhere('FFH'.repeat(10)), timing: randomTiming(seeded(7), 30, true) };
    const cs = replay(s);
    const page = alarms(cs, '/slo-burn-page');
    expect(page).toHaveLength(1);
    expect(page[0]!.afterRun).toBeLessThanOrEqual(6);
    expect(page[0]!.suppressed).toBe(false);
    expect(page[0]!.topics.join()).toMatch(/McpCanary-pages/);
    expect(replayTimed(critical, s).filter((n) => n.state === 'ALARM')).toEqual([]);
  });

  it('a hard outage pages once: the paging alarm pages, the fast burn beside it is suppressed by it', () => {
    const page = composites.find((c) => c.AlarmName.endsWith('/slo-burn-page'))!;
    expect(page.ActionsSuppressor).toBe('McpCanary/rates-prod/critical');
    for (const seed of [1, 2]) {
      const s: TimedScenario = { runs: everywhere(`HH${'F'.repeat(40)}${'H'.repeat(40)}`), timing: randomTiming(seeded(seed), 30, true) };
      const pages = replayTimed(critical, s).filter((n) => n.state === 'ALARM');
      expect(pages).toHaveLength(1);
      const burns = alarms(replay(s), '/slo-burn-page');
      // Not vacuous: the fast burn does reach ALARM in this outage; it tells no one.
      expect(burns.length).toBeGreaterThan(0);
      expect(burns.filter((b) => !b.suppressed)).toEqual([]);
    }
  });

  it('a slow burn (one bad minute in 20) tickets and never pages', () => {
    const cs = replay({ runs: everywhere(`F${'H'.repeat(19)}`.repeat(8)), timing: randomTiming(seeded(11), 30, true) });
    const ticket = alarms(cs, '/slo-burn-ticket');
    expect(ticket).toHaveLength(1);
    // The fifth bad minute (run 81) is the day window's M; the two-hour window has its 3 by then.
    expect(ticket[0]!.afterRun).toBeGreaterThanOrEqual(81);
    expect(ticket[0]!.afterRun).toBeLessThanOrEqual(83);
    expect(ticket[0]!.topics.join()).toMatch(/McpCanary-tickets/);
    expect(alarms(cs, '/slo-burn-page')).toEqual([]);
  });

  it('a short blip (shorter than N runs) does neither', () => {
    for (const seq of ['FF', 'F']) {
      const cs = replay({ runs: everywhere(`HH${seq}${'H'.repeat(30)}`), timing: randomTiming(seeded(3), 30, true) });
      expect(cs.filter((c) => c.state === 'ALARM')).toEqual([]);
    }
  });

  it('a deploy three hours after an outage is quiet: the long windows still see it, the short ones do not', () => {
    const cs = replay(
      { runs: everywhere(`${'F'.repeat(10)}${'H'.repeat(190)}`), createdAtRun: 190, timing: randomTiming(seeded(5), 30, true) },
      'INSUFFICIENT_DATA',
    );
    expect(cs.filter((c) => c.state === 'ALARM')).toEqual([]);
    // Not vacuous: the day window alarms at once on the history it reads.
    const days = replayTimed(
      windows.filter((w) => w.AlarmName.endsWith('slow-1d-long')),
      { runs: everywhere(`${'F'.repeat(10)}${'H'.repeat(190)}`), createdAtRun: 190 },
    );
    expect(days[0]).toMatchObject({ state: 'ALARM' });
  });

  it('count a period nobody could judge neither as bad nor as good: a window keeps what its judged periods said', () => {
    // Each short window, alone: three bad periods, then an hour in which every region cannot judge.
    const shorts = windows.filter((w) => w.AlarmName.endsWith('-short'));
    const s: TimedScenario = { runs: everywhere(`HH${'F'.repeat(3)}${'I'.repeat(60)}`), timing: randomTiming(seeded(13), 30, true) };
    const states = (ws: readonly AlarmProps[]) => replayTimed(ws, s).map((n) => `${n.alarm.split('/')[2]}:${n.state}`);
    // Shipped (`ignore`): into ALARM on the bad periods, and nothing after: the hour nobody judged leaves them as they were.
    expect(states(shorts)).toEqual(shorts.map((w) => `${w.AlarmName.split('/')[2]}:ALARM`));
    // The first release's `notBreaching` counted that hour as good periods: the windows it outlasts went OK in it.
    const good = states(shorts.map((w) => ({ ...w, TreatMissingData: 'notBreaching' })));
    expect(good).toEqual(expect.arrayContaining(['slo-burn-fast-1h-short:OK', 'slo-burn-fast-6h-short:OK']));
    // And never bad: an hour nobody could judge, from a healthy start, burns nothing anywhere.
    expect(replay({ runs: everywhere(`${'H'.repeat(5)}${'I'.repeat(60)}`), timing: randomTiming(seeded(17), 30, true) })).toEqual([]);
    expect(replayTimed(windows, { runs: everywhere(`${'H'.repeat(5)}${'I'.repeat(60)}`) }).filter((n) => n.state === 'ALARM')).toEqual([]);
  });

  it('are muted by the target’s maintenance windows, beside its paging and ticket alarms', () => {
    const names = resourcesOf(fleet.json('McpCanary-maintenance'), 'AWS::CloudWatch::AlarmMuteRule').flatMap(
      ([, p]) => (p as { MuteTargets: { AlarmNames: string[] } }).MuteTargets.AlarmNames,
    );
    expect(names).toEqual([
      'McpCanary/rates-prod/critical',
      'McpCanary/rates-prod/warning',
      'McpCanary/rates-prod/slo-burn-page',
      'McpCanary/rates-prod/slo-burn-ticket',
    ]);
  });
});

describe('burn windows', () => {
  it('are the SRE workbook rates for a 30-day SLO, scaled with windowDays', () => {
    expect(BURN_TIERS.map((t) => burnRate(t, 30))).toEqual([14.4, 6, 3]);
    expect(burnRate(BURN_TIERS[0]!, 7)).toBeCloseTo(3.36, 9);
  });

  it('never ask less than N in a row, nor more than the window holds', () => {
    expect(burnWindow({ periodSeconds: 60, windowSeconds: 3600, rate: 14.4, objective: 99.9, runsInARow: 3 })).toEqual({
      evaluationPeriods: 60,
      datapointsToAlarm: 3,
    });
    expect(burnWindow({ periodSeconds: 60, windowSeconds: 3600, rate: 14.4, objective: 99, runsInARow: 3 })).toEqual({
      evaluationPeriods: 60,
      datapointsToAlarm: 9,
    });
    expect(burnWindow({ periodSeconds: 60, windowSeconds: 300, rate: 14.4, objective: 90, runsInARow: 3 })).toEqual({
      evaluationPeriods: 5,
      datapointsToAlarm: 5,
    });
    expect(burnWindow({ periodSeconds: 3600, windowSeconds: 300, rate: 14.4, objective: 99.9, runsInARow: 3 })).toEqual({
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
    });
  });
});
