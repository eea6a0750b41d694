/**
 * The SLO burn alarms as synthesized, through the same CloudWatch timing model as the paging alarms
 * (helpers/infra/timing.ts: runs start anywhere in their minute, publish when done, CloudWatch evaluates
 * seconds after each minute on what has arrived), the window alarms replayed and their two composite alarms
 * evaluated on the windows' state changes (helpers/infra/burn.ts). Example fleet's rates-prod: 3 regions,
 * quorum 2, N 3, objective 99.9 % over 30 days. What each burn rate is detected in: burn-detection.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { BURN_TIERS, burnRate, burnWindow, planBurn } from '../../../infra/plan/burn.ts';
import { alarmsBy, burnAlarmsOf } from '../../helpers/infra/burn.ts';
import { render, type AlarmProps } from '../../helpers/infra/cfn.ts';
import { resourcesOf, smallFleet } from '../../helpers/infra/synth.ts';
import { randomTiming, replayTimed, seeded, type TimedScenario } from '../../helpers/infra/timing.ts';

const burn = burnAlarmsOf(
  smallFleet({
    slo: { objective: 99.9, burnAlarms: true },
    maintenance: [{ name: 'deploy', schedule: 'cron(0 2 * * SUN)', duration: '2 hours', targets: ['rates-prod'] }],
  }),
  'rates-prod',
);
const { fleet, windows, composites, critical } = burn;
const everywhere = (seq: string): TimedScenario['runs'] => ({ 'us-east-1': seq, 'eu-west-1': seq, 'ap-southeast-2': seq });
const alarms = alarmsBy;
const replay = (s: TimedScenario, initial: 'OK' | 'INSUFFICIENT_DATA' = 'OK', only?: readonly AlarmProps[]) =>
  burn.replay(s, initial, only);

describe('SLO burn alarms (as synthesized)', () => {
  it('are eight window alarms on the paging expression and two composites: the page on the pages topic, the ticket on the tickets topic', () => {
    expect(windows).toHaveLength(8);
    expect(new Set(windows.map((w) => w.Metrics!.find((m) => m.Expression)!.Expression))).toEqual(
      new Set(critical.map((c) => c.Metrics!.find((m) => m.Expression)!.Expression)),
    );
    // The workbook's counts at 99.9 %: 14.4 × 0.001 × 60 = 0.864 → 1 bad minute, raised to N (3) because one
    // bad minute is already over the hour's share; 6 × 0.001 × 360 = 2.16 → 3; 3 × 0.001 × 1440 = 4.32 → 5;
    // the 3-day window read as one day at 1×: 1.44 → 2; every short window one bad period (no floor).
    expect(windows.map((w) => [w.AlarmName.split('/')[2], w.EvaluationPeriods, w.DatapointsToAlarm])).toEqual([
      ['slo-burn-fast-1h-long', 60, 3],
      ['slo-burn-fast-1h-short', 5, 1],
      ['slo-burn-fast-6h-long', 360, 3],
      ['slo-burn-fast-6h-short', 30, 1],
      ['slo-burn-slow-1d-long', 1440, 5],
      ['slo-burn-slow-1d-short', 120, 1],
      ['slo-burn-slow-3d-long', 1440, 2],
      ['slo-burn-slow-3d-short', 360, 1],
    ]);
    const rules = Object.fromEntries(composites.map((c) => [c.AlarmName.split('/')[2], c.AlarmRule.match(/slo-burn-[a-z0-9-]+/g)]));
    expect(rules['slo-burn-page']).toEqual([
      'slo-burn-fast-1h-long',
      'slo-burn-fast-1h-short',
      'slo-burn-fast-6h-long',
      'slo-burn-fast-6h-short',
    ]);
    expect(rules['slo-burn-ticket']).toEqual([
      'slo-burn-slow-1d-long',
      'slo-burn-slow-1d-short',
      'slo-burn-slow-3d-long',
      'slo-burn-slow-3d-short',
    ]);
    expect(windows.every((w) => !w.AlarmActions && !w.OKActions)).toBe(true);
    // The paging expression over two metrics: CloudWatch allows 10 per metric-math alarm.
    for (const w of windows) expect(w.Metrics!.filter((m) => m.MetricStat)).toHaveLength(2);
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
      // Nor its resolution: the 30-minute short window holds the outage that long after it, within the extension.
      const page = replay(s).filter((c) => c.alarm.endsWith('/slo-burn-page'));
      const after = page.slice(page.findIndex((c) => c.state === 'ALARM'));
      expect(after.map((c) => c.state)).toEqual(['ALARM', 'OK']);
      expect(after.filter((c) => !c.suppressed)).toEqual([]);
    }
  });

  it('a slow burn (one bad minute in 200, 5×) tickets on its second bad minute and never pages', () => {
    const cs = replay({ runs: everywhere(`F${'H'.repeat(199)}`.repeat(2)), timing: randomTiming(seeded(11), 30, true) });
    const ticket = alarms(cs, '/slo-burn-ticket');
    expect(ticket).toHaveLength(1);
    // The second bad minute (run 201) is the 1× window's M (2 in a day); the 6-hour window has its 1.
    expect(ticket[0]!.afterRun).toBeGreaterThanOrEqual(201);
    expect(ticket[0]!.afterRun).toBeLessThanOrEqual(203);
    expect(ticket[0]!.topics.join()).toMatch(/McpCanary-tickets/);
    // Never two bad minutes in an hour nor three in six: no fast tier's long window is reached.
    expect(alarms(cs, '/slo-burn-page')).toEqual([]);
  });

  it('a short blip (shorter than N runs) never pages; one bad minute tells no one, two within a day ticket', () => {
    const blip = (seq: string) => replay({ runs: everywhere(`HH${seq}${'H'.repeat(30)}`), timing: randomTiming(seeded(3), 30, true) });
    expect(blip('F').filter((c) => c.state === 'ALARM')).toEqual([]);
    // Two bad minutes are 4.6 % of a 30-day budget at 99.9 %, over the 1× tier's share of a day (3.3 %).
    const two = blip('FF');
    expect(alarms(two, '/slo-burn-page')).toEqual([]);
    expect(alarms(two, '/slo-burn-ticket')).toHaveLength(1);
  });

  it('a deploy seven hours after an outage is quiet: the long windows still see it, the short ones do not', () => {
    const runs = everywhere(`${'F'.repeat(10)}${'H'.repeat(420)}`);
    const cs = replay({ runs, createdAtRun: 420, timing: randomTiming(seeded(5), 30, true) }, 'INSUFFICIENT_DATA');
    expect(cs.filter((c) => c.state === 'ALARM')).toEqual([]);
    // Not vacuous: the day windows alarm at once on the history they read.
    const days = replayTimed(
      windows.filter((w) => /slow-(1d|3d)-long$/.test(w.AlarmName)),
      { runs, createdAtRun: 420 },
    );
    expect(days.map((n) => n.state)).toEqual(['ALARM', 'ALARM']);
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
    expect(BURN_TIERS.map((t) => burnRate(t, 30))).toEqual([14.4, 6, 3, 1]);
    expect(burnRate(BURN_TIERS[0]!, 7)).toBeCloseTo(3.36, 9);
  });

  it("ask the workbook's count of bad periods, nor more than the window holds", () => {
    const at = (periodSeconds: number, windowSeconds: number, objective: number, floor = 0) =>
      burnWindow({ periodSeconds, windowSeconds, rate: 14.4, objective, floor });
    expect(at(60, 3600, 99)).toEqual({ evaluationPeriods: 60, datapointsToAlarm: 9, floored: false });
    expect(at(60, 300, 99.9)).toEqual({ evaluationPeriods: 5, datapointsToAlarm: 1, floored: false });
    expect(at(60, 300, 90)).toEqual({ evaluationPeriods: 5, datapointsToAlarm: 5, floored: false });
    expect(at(3600, 300, 99.9)).toEqual({ evaluationPeriods: 1, datapointsToAlarm: 1, floored: false });
  });

  it('raise a count of one bad period to the floor (N), and only that', () => {
    const at = (windowSeconds: number, objective: number, floor: number) =>
      burnWindow({ periodSeconds: 60, windowSeconds, rate: 14.4, objective, floor });
    // 0.864 bad minutes: one bad minute is over the share, the window cannot tell the rate from a blip.
    expect(at(3600, 99.9, 3)).toEqual({ evaluationPeriods: 60, datapointsToAlarm: 3, floored: true });
    // 8.64 → 9: already more than one; N does not raise it (nor would N = 12).
    expect(at(3600, 99, 12)).toEqual({ evaluationPeriods: 60, datapointsToAlarm: 9, floored: false });
    // A short window passes no floor (0): one bad period.
    expect(at(300, 99.9, 0)).toMatchObject({ datapointsToAlarm: 1, floored: false });
    // Never more than the window holds.
    expect(at(120, 99.9, 3)).toEqual({ evaluationPeriods: 2, datapointsToAlarm: 2, floored: true });
  });

  it('floor every long window of a 5-minute target at 99.9 % (one bad period is 11.6 % of the budget), none at 99 % and one minute', () => {
    const plan = (periodSeconds: number, objective: number) =>
      planBurn({ fleet: 'F' } as never, { name: 't', periodSeconds }, { objective, windowDays: 30 }, 3).tiers.map((t) => [
        t.long.floored,
        t.long.datapointsToAlarm,
        t.long.evaluationPeriods,
      ]);
    expect(plan(300, 99.9)).toEqual([
      [true, 3, 12],
      [true, 3, 72],
      [true, 3, 288],
      [true, 3, 288],
    ]);
    expect(plan(60, 99)).toEqual([
      [false, 9, 60],
      [false, 22, 360],
      [false, 44, 1440],
      [false, 15, 1440],
    ]);
  });
});
